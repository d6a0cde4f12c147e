"""The bot endpoint's WebSocket: a bot account plays one seat in the competition protocol.

``ws://HOST/ws/bot/?token=T&table=ID&seat=N[&code=INVITATION]`` (or the token as
``Authorization: Bearer T``). On connect the token is checked (``accounts.bots``: an
approved bot that was not revoked), the bot takes its seat (``games.tables.services.
seat_bot_account``: a friend table with the host's invitation code, or in place of a
built-in bot at its owner's practice table; never a match table, R10.1) and follows the
table's change events like a table page does. What it is sent is built only from its
seat's view (``games.botapi.messages.SeatFeed``); its ``{"actIndex": i}`` answers go
through the one door (``games.live.door.submit_action``) as the seat's player.

Refusals are answered ``{"type": "error", "rule": ..., "message": ...}`` and change
nothing: junk, an ``actIndex`` outside ``0..indexRange`` or without an ``act`` to answer
(R9.1), and an answer that comes after the seat's think time ran out (R9.2: the seat
timed out meanwhile; two timeouts in a row put it on autopilot until the bot answers
again). A bot that never answers validly within its think time therefore times out,
exactly as a person would.
"""

from __future__ import annotations

import json
import logging
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils.translation import gettext as _

from accounts import bots as account_bots
from games.botapi.messages import SeatFeed, action_behind
from games.engine.deal import HUMAN
from games.engine.errors import RuleError
from games.engine.views import view_for
from games.live import door
from games.live.broadcast import table_group
from games.live.render import Scene, scene_for
from games.models import Table
from games.tables import services
from games.tables.policies import TableError

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 256  # an answer is {"actIndex": i}
CLOSE_UNAUTHORISED = 4401
CLOSE_REFUSED = 4403


def _token_of(scope) -> str | None:
    query = parse_qs(scope.get("query_string", b"").decode("latin1"))
    if query.get("token"):
        return query["token"][0]
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            text = value.decode("latin1")
            if text.lower().startswith("bearer "):
                return text[7:].strip()
    return None


def _whole(value) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


class BotConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        """Check the token and take the seat, then accept: a refusal is the first (and
        only) message, followed by the close."""
        self.bot = None
        self.feed: SeatFeed | None = None
        self.table_id: int | None = None
        refusal = await self._join()
        await self.accept()
        if refusal is not None:
            code, rule, message = refusal
            await self.error(rule, message)
            await self.close(code=code)
            return
        await self.channel_layer.group_add(table_group(self.table_id), self.channel_name)
        await self.send_scene(await database_sync_to_async(self._read_scene)())

    async def _join(self) -> tuple[int, str | None, str] | None:
        query = parse_qs(self.scope.get("query_string", b"").decode("latin1"))
        bot = await database_sync_to_async(account_bots.bot_for_token)(_token_of(self.scope))
        if bot is None:
            return CLOSE_UNAUTHORISED, None, _("the bot token is unknown, revoked or not approved yet")
        self.bot = bot
        self.bot.user.is_guandan_bot = True
        try:
            table_id = int(query.get("table", [""])[0])
            position = int(query.get("seat", [""])[0]) - 1
        except ValueError:
            return CLOSE_REFUSED, "R1.1", _("say which table and seat: ?table=ID&seat=1..4")
        code = query.get("code", [None])[0]
        try:
            seat = await database_sync_to_async(self._sit)(table_id, position, code)
        except TableError as exc:
            return CLOSE_REFUSED, exc.message.split(":", 1)[0], exc.message
        self.table_id = table_id
        self.feed = SeatFeed(position=seat.position)
        return None

    def _sit(self, table_id: int, position: int, code: str | None):
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            raise TableError(_("R10.5: there is no such table."))
        return services.seat_bot_account(table=table, bot=self.bot, position=position, invite_code=code)

    def _read_scene(self) -> Scene | None:
        table = Table.objects.filter(pk=self.table_id).first()
        return scene_for(table) if table is not None else None

    async def disconnect(self, code):
        if self.table_id is not None:
            await self.channel_layer.group_discard(table_group(self.table_id), self.channel_name)

    # ---- out: the seat's view as protocol messages ---------------------------------------

    async def table_changed(self, event):
        text = event.get("scene")
        if text is None:
            scene = await database_sync_to_async(self._read_scene)()
        else:
            scene = Scene.from_event(text)
        await self.send_scene(scene)

    async def send_scene(self, scene: Scene | None) -> None:
        if scene is None or self.feed is None:
            return
        if scene.position_of(self.bot.user_id) != self.feed.position:
            return  # not (or no longer) seated here
        view = view_for(scene.state, self.feed.position)
        for message in self.feed.feed(scene.deal_id, view):
            await self.send(text_data=json.dumps(message, separators=(",", ":")))

    async def error(self, rule: str | None, message: str) -> None:
        await self.send(text_data=json.dumps({"type": "error", "rule": rule, "message": message}))

    # ---- in: {"actIndex": i} ---------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        if self.feed is None:
            return
        if text_data is None or len(text_data.encode("utf-8", "replace")) > MAX_MESSAGE_BYTES:
            await self.error("R9.1", _("answer with one JSON text message: {\"actIndex\": i}"))
            return
        try:
            data = json.loads(text_data)
        except (ValueError, RecursionError):
            await self.error("R9.1", _("that message is not JSON; answer {\"actIndex\": i}"))
            return
        index = _whole(data.get("actIndex")) if isinstance(data, dict) else None
        pending = self.feed.pending
        if index is None:
            await self.error("R9.1", _("an answer is {\"actIndex\": i} with a whole number i; nothing was played"))
            return
        if pending is None:
            await self.error("R9.1", _("there is no act message to answer; wait for your turn"))
            return
        if index >= len(pending.behind):
            await self.error("R9.1", _("actIndex %(index)s is outside 0..%(last)s; nothing was played")
                             % {"index": index, "last": len(pending.behind) - 1})
            return
        rule, message = await database_sync_to_async(self._submit)(pending, index)
        if message:
            await self.error(rule, message)

    def _submit(self, pending, index: int) -> tuple[str | None, str]:
        if not account_bots.bot_for_token_id(self.bot.pk):
            return None, _("the bot token was revoked")
        kind, cards, reading = action_behind(pending, index)
        try:
            door.submit_action(
                table_id=self.table_id, seat=self.feed.position, kind=kind, cards=cards, reading=reading,
                expected_deal=pending.deal_id, expected_seq=pending.step, actor=HUMAN, user=self.bot.user,
            )
        except door.PlayError as exc:
            if exc.rule == "R9.1":
                # The table moved on before the answer: the seat's think time ran out (it
                # timed out), or, during tribute, the other donor gave first (a new act
                # message follows).
                return "R9.2", _("that answer came too late: the table moved on (the think time ran out or "
                                 "another seat acted first); nothing was played")
            return exc.rule, exc.message
        except RuleError as exc:
            return str(exc).split(":", 1)[0], str(exc)
        if self.feed.pending is pending:
            self.feed.pending = None
        return None, ""
