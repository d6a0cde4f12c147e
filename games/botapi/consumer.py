"""The bot endpoint's WebSocket: a bot account plays one seat in the competition protocol.

Two ways in (docs/bot-protocol.md):

- ``ws://HOST/ws/bot/?table=ID&seat=N[&code=INVITATION]`` with the token in the
  ``Authorization: Bearer TOKEN`` header; the token is never accepted in the URL
  (proxies and servers log URLs);
- ``ws://HOST/ws/bot/?ticket=T``: a single-use ticket from the bots page for the table
  and seat chosen there (``games.botapi.tickets``), for programs that can only be given
  a URL.

On connect the bot takes its seat (``games.tables.services.seat_bot_account``: a friend
table with the host's invitation code, or in place of a built-in bot at its owner's
practice table; never a match table, R10.1) and follows the table's change events like
a table page does. What it is sent is built only from its seat's view
(``games.botapi.messages.SeatFeed``); its ``{"actIndex": i}`` answers go through the one
door (``games.live.door.submit_action``) as the seat's player.

The competition protocol has only ``notify`` and ``act`` messages, and its client
programs fail on anything else, so by default the endpoint speaks nothing else: a
connection refused before the seat is taken is closed with a close code and a reason
(4401 the credentials, 4403 the seat, citing the rule), and an answer refused in play
(R9.1) or late (R9.2) is dropped, leaving the seat to its think time like any seat that
gives no valid answer: it times out. A program that asks for more (``errors=1`` in the
URL) is also told every refusal as ``{"type": "error", "rule": ..., "message": ...}``.

While the program is disconnected its seat is played by the site at the table's pace
(``door.bot_program_connected``) until it connects again; one connection plays a seat
at a time (a new one replaces the old, which is closed with 4409).
"""

from __future__ import annotations

import json
import logging
from urllib.parse import parse_qs

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.dispatch import receiver
from django.utils.translation import gettext as _

from accounts import bots as account_bots
from games.botapi import tickets
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
CLOSE_REPLACED = 4409
MAX_REASON_BYTES = 123  # RFC 6455: a close frame's reason


def bot_group(bot_id: int) -> str:
    """The channel group of a bot account's open connections, in any process."""
    return f"bot-{bot_id}"


@receiver(account_bots.bot_access_changed, dispatch_uid="games.botapi.close_on_access_changed")
def close_on_access_changed(sender, bot_id: int, **kwargs):
    """A rotated token or a revoked bot ends the bot's open connections at once, and its
    unused tickets."""
    tickets.forget_tickets(bot_id=bot_id)
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(bot_group(bot_id), {"type": "bot.access_changed"})
    except Exception:  # the layer is away: the next answer is refused anyway (may_still_play)
        log.exception("could not close the connections of bot %s", bot_id)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def _bearer(scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            text = value.decode("latin1")
            if text.lower().startswith("bearer "):
                return text[7:].strip()
    return None


def _reason(text: str) -> str:
    """A close reason fits in a close frame (123 bytes of UTF-8)."""
    data = text.encode("utf-8")
    if len(data) <= MAX_REASON_BYTES:
        return text
    return data[: MAX_REASON_BYTES - 3].decode("utf-8", "ignore") + "..."


def _whole(value) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


class BotConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        """Check the credentials and take the seat, then accept: a refusal closes the
        connection with its code and reason (after an ``error`` message for a program
        that asked for them)."""
        self.bot = None
        self.feed: SeatFeed | None = None
        self.table_id: int | None = None
        self.token_hash: str | None = None
        self.replaced = False
        query = parse_qs(self.scope.get("query_string", b"").decode("latin1"))
        self.wants_errors = _truthy(query.get("errors", [""])[0])
        refusal = await self._join(query)
        if refusal is None:
            await database_sync_to_async(self._present)(True)  # back: the program plays its seat again
        await self.accept()
        if refusal is not None:
            code, rule, message = refusal
            await self.error(rule, message)
            await self.close(code=code, reason=_reason(message))
            return
        await self.channel_layer.group_add(table_group(self.table_id), self.channel_name)
        await self.channel_layer.group_add(bot_group(self.bot.pk), self.channel_name)
        await self.channel_layer.group_send(bot_group(self.bot.pk), {
            "type": "bot.connected", "table": self.table_id, "channel": self.channel_name,
        })
        await self.send_scene(await database_sync_to_async(self._read_scene)())

    async def _join(self, query) -> tuple[int, str | None, str] | None:
        if query.get("token"):
            return CLOSE_UNAUTHORISED, None, _(
                "the token travels in the Authorization header (Bearer), never in the URL; "
                "or use a connection ticket from the bots page"
            )
        ticket_secret = query.get("ticket", [""])[0]
        if ticket_secret:
            ticket = await database_sync_to_async(tickets.redeem_ticket)(secret=ticket_secret)
            if ticket is None:
                return CLOSE_UNAUTHORISED, None, _("the ticket is unknown, used or expired; get a new one on the bots page")
            bot, table_id, position = ticket.bot, ticket.table_id, ticket.position
            code = ticket.table.invite_code
        else:
            bot = await database_sync_to_async(account_bots.bot_for_token)(_bearer(self.scope))
            if bot is None:
                return CLOSE_UNAUTHORISED, None, _("the bot token is unknown, revoked or not approved yet")
            try:
                table_id = int(query.get("table", [""])[0])
                position = int(query.get("seat", [""])[0]) - 1
            except ValueError:
                return CLOSE_REFUSED, "R1.1", _("say which table and seat: ?table=ID&seat=1..4")
            code = query.get("code", [None])[0]
        self.bot = bot
        self.bot.user.is_guandan_bot = True
        self.token_hash = bot.token_hash
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

    def _present(self, connected: bool) -> None:
        table = Table.objects.filter(pk=self.table_id).first()
        if table is not None and table.is_open:
            door.bot_program_connected(table=table, user=self.bot.user, connected=connected)

    def _read_scene(self) -> Scene | None:
        table = Table.objects.filter(pk=self.table_id).first()
        return scene_for(table) if table is not None else None

    async def disconnect(self, code):
        if self.table_id is None:
            return
        await self.channel_layer.group_discard(table_group(self.table_id), self.channel_name)
        await self.channel_layer.group_discard(bot_group(self.bot.pk), self.channel_name)
        if not self.replaced:
            # Gone: the site plays the seat until the program is back.
            await database_sync_to_async(self._present)(False)

    # ---- the bot's other connections ---------------------------------------------------

    async def bot_connected(self, event):
        """Another connection of this bot took this seat: this one stops."""
        if event.get("table") == self.table_id and event.get("channel") != self.channel_name:
            self.replaced = True
            self.feed = None
            await self.close(code=CLOSE_REPLACED, reason=_reason(_("another connection of this bot took the seat")))

    async def bot_access_changed(self, event):
        self.feed = None
        await self.close(code=CLOSE_UNAUTHORISED, reason=_reason(_("the bot's token was rotated or the bot revoked")))

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
        """Tell the program a refusal, if it asked for them (``errors=1``); the
        competition's programs know no such message, so others are told nothing: what
        they sent simply did not count."""
        if not self.wants_errors:
            log.info("bot %s: refused (%s) %s", getattr(self.bot, "pk", None), rule, message)
            return
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
        if not await database_sync_to_async(account_bots.may_still_play)(self.bot.pk, self.token_hash):
            message = _("the bot's token was rotated or the bot revoked")
            await self.error(None, message)
            await self.close(code=CLOSE_UNAUTHORISED, reason=_reason(message))
            return
        rule, message = await database_sync_to_async(self._submit)(pending, index)
        if message:
            await self.error(rule, message)

    def _submit(self, pending, index: int) -> tuple[str | None, str]:
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
