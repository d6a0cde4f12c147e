"""The live table's WebSocket: actions in, HTML fragments out.

One consumer per open page. It joins the ``table-<id>`` group; on every change it sends the
public fragments (rendered once for everybody by the sender, or by itself when the event
carries none or is in another language) and its own viewer's private fragments, drawn
from that viewer's own view of the scene the event carries (``table_render.Scene``), on
the event loop and without a query; the hand only when it changed. A seated player's
messages are actions; a spectator's messages are refused.

Every refusal (junk, an oversized message, a stale step, an illegal play) is answered with
a message that names the rule, and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
import weakref
from concurrent.futures import ThreadPoolExecutor

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import connections
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _

from games.engine.deal import Action as EngineAction
from games.engine.errors import RuleError
from games.engine.reading import Reading
from games.engine.replay import state_from_json
from games.engine.views import view_for
from games.live import broadcast, door, talk
from games.live import selectors as live_selectors
from games.live.broadcast import table_group
from games.live.render import (
    PrivateParts,
    Scene,
    ViewerState,
    play_as_options,
    regions_of,
    render_private_parts,
    render_public,
    scene_for,
    scene_from_event,
    seat_name,
)
from accounts.models import Profile
from games.models import Table
from games.rules.words import coach_text, reading_label, reason_text, rule_links, suggestion_text
from games.tables import selectors as table_selectors
from games.tables.consumers import SessionBound, supported_language, viewer_language
from games.tables.selectors import invitations

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 4096
PRESENCE_INTERVAL = 60.0  # seconds between a seated player's "still here" (door.human_present)
MAX_JSON_DEPTH = 4  # an action is an object of strings and lists of strings
_WHOLE_NUMBER = re.compile(r"[0-9]{1,12}")  # ASCII digits only (no "80.7", no other scripts' digits)
_INTERVAL = re.compile(r"[0-9]{1,2}(\.[0-9]{1,2})?")
SORT_ACTIONS = {"sort-rank": "rank", "sort-suit": "suit", "sort-combo": "combo"}
TALK_ACTIONS = ("talk", "talk-table", "talk-mute")
MOVE_ACTIONS = ("pass", "tribute", "return", "play")


# The threads the table's pages do their database work on (see ``_in_thread``).
# Eight per process (``GUANDAN_DATABASE_THREADS``): a step spends most of its time waiting
# on PostgreSQL, so with four, steps of busy tables queued for a thread (at 100 actions/s
# p95 250 -> 150-200 ms with eight; sixteen cost more in switching than they saved).
# Each thread holds one of the process's pooled connections while it works.
DATABASE_THREADS = ThreadPoolExecutor(max_workers=settings.GUANDAN_DATABASE_THREADS, thread_name_prefix="table-db")


def _in_thread(func):
    """Run ``func`` (which may use the database) on one of ``DATABASE_THREADS``.

    Not Channels' default single thread per process: one page's action would then wait
    behind every other page's database round trips. Each thread holds its own connection
    while it works (returned to the site's pool afterwards); a consumer handles one
    message at a time, so its own state is never touched by two threads at once. What
    the work announces after its commit is handed to this event loop without a wait
    (``broadcast.sends_on``).
    """

    def run(loop, *args, **kwargs):
        try:
            with broadcast.sends_on(loop):  # a step's events go to the loop without a wait
                return func(*args, **kwargs)
        finally:
            # Back to the pool at once. (Channels does this too, except under its test
            # communicator, where the threads would otherwise keep their connections.)
            connections.close_all()

    threaded = database_sync_to_async(run, thread_sensitive=False, executor=DATABASE_THREADS)

    @functools.wraps(func)
    async def call(*args, **kwargs):
        return await threaded(asyncio.get_running_loop(), *args, **kwargs)

    return call


class _Resync:
    """Pages that missed a step catch up from the database.

    A step reaches pages through the channel layer after its commit; that hop can be
    lost (the committing process dies between commit and publish, the channel layer's
    Redis is down or restarting). So every server process checks, every
    ``GUANDAN_RESYNC_INTERVAL`` seconds and with one query for all its open tables, each
    table's newest step in the database; a page still behind it on two checks in a row
    (an event in flight gets one interval to arrive) is drawn afresh from the database,
    exactly as on a reconnect. One per event loop; it runs only while pages are open.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.pages: dict[int, set[TableConsumer]] = {}
        self.task: asyncio.Task | None = None

    def add(self, page: TableConsumer) -> None:
        self.pages.setdefault(page.table_id, set()).add(page)
        if self.task is None or self.task.done():
            self.task = self.loop.create_task(self.run())

    def discard(self, page: TableConsumer) -> None:
        pages = self.pages.get(page.table_id)
        if pages is not None:
            pages.discard(page)
            if not pages:
                del self.pages[page.table_id]

    async def run(self) -> None:
        while self.pages:
            await asyncio.sleep(settings.GUANDAN_RESYNC_INTERVAL)
            try:
                await self.check()
            except Exception:  # the database may be down: try again next time
                log.warning("resync check failed", exc_info=True)

    async def check(self) -> None:
        table_ids = list(self.pages)
        if not table_ids:
            return
        newest = await _in_thread(live_selectors.newest_steps)(table_ids)
        for table_id, step in newest.items():
            for page in list(self.pages.get(table_id, ())):
                if page.drawn[0] == 0 or page.drawn >= step:
                    page.behind = None  # up to date, or still in the waiting room
                elif page.behind is not None and page.drawn < page.behind:
                    page.behind = None  # behind on two checks in a row: the event was lost
                    await page.resync()
                else:
                    page.behind = step  # seen behind once: the event may be in flight


_RESYNCS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # event loop -> _Resync


def _resync_of_this_loop() -> _Resync:
    loop = asyncio.get_running_loop()
    resync = _RESYNCS.get(loop)
    if resync is None:
        resync = _RESYNCS[loop] = _Resync(loop)
    return resync


_HAND_COUNT = re.compile(r'<legend id="tbl-hand-count".*?</legend>', re.S)


# Kept for the last few texts: a step's public fragments are the same text for every page
# of the table here.
_regions_of = functools.lru_cache(maxsize=64)(regions_of)


def _pieces(part: str, opening: str, closing: str, digits: int) -> tuple[tuple[str, str], ...]:
    """Each piece of ``part`` that starts with ``opening``, then ``digits`` ASCII numbers
    joined by "-" and a quote, and ends with the next ``closing``: (the numbers, the
    piece), in order. What ``opening + (\\d+)(-\\d+)* " .*? closing`` finds, by
    ``str.find``: the pattern's lazy match took a step through the interpreter for every
    character of the text."""
    out = []
    find = part.find
    at = find(opening)
    while at >= 0:
        start = at + len(opening)
        quote = find('"', start)
        if quote < 0:
            break
        ident = part[start:quote]
        numbers = ident.split("-")
        if len(numbers) != digits or not all(n.isascii() and n.isdigit() for n in numbers):
            at = find(opening, start)
            continue
        end = find(closing, quote)
        if end < 0:
            break
        end += len(closing)
        out.append((ident, part[at:end]))
        at = find(opening, end)
    return tuple(out)


# Each step reads the log its pages held (the step before's) and the new one: with a
# line per table kept, the held log is read once, not again at the next step (at 100
# tables a cache of 64 had dropped it by then). A log region is a few KB.
@functools.lru_cache(maxsize=2048)
def _log_lines(part: str) -> tuple[tuple[str, str, str], ...]:
    """The log region's lines: (deal, index, the line's HTML), oldest first."""
    return tuple((*ident.split("-"), line) for ident, line in _pieces(part, '<li id="tbl-log-', "</li>", 2))


def _hand_cards(part: str) -> dict[str, str]:
    """The hand region's cards: card id -> its checkbox and label."""
    return dict(_pieces(part, '<input type="checkbox" class="hand-check" id="hc-', "</label>", 1))


class _Regions:
    """What this page was last sent of each region of the table, so that a step sends
    only the regions it changed (a seat, the trick, the log's new line, the status),
    not the whole table: a few hundred bytes a step instead of about ten thousand.

    The fragments mark where each region begins (``<!--tbl:NAME-->``, templates/live/).
    A region is sent when its HTML differs from what this page was last sent of it; a
    region of a seat goes alone and htmx swaps it in by its id inside the seats. Always
    sent: ``status``, whose ``data-seq`` and ``data-deal`` name the step the page shows.
    Never held back: the hand, which the page draws only when it changed (``keep_hand``)
    and the player's own requests redraw whole; when it only lost cards, the page deletes
    them (``delete``) and updates the count, else it is sent whole. While the deal goes on, the log gets its
    new lines appended (``beforeend``) and loses the oldest it no longer shows (``delete``),
    so it holds exactly what it would drawn whole; it is sent whole on a new deal.

    Every message this page is sent passes through here (``changed`` or ``remember``), so
    what is remembered is what the page holds. A new socket starts empty: the page is
    drawn whole on (re)connect, on a resync and on the page's "refresh".
    """

    ALWAYS = frozenset({"status"})
    # The seats' frame and each seat's box: the same at every step (a seat's plate and
    # last play are regions of their own, templates/live/_seat.html).
    FRAME = frozenset({"seats", "seats-end"} | {f"seat-{n}{end}" for n in range(1, 5) for end in ("", "-end")})

    def __init__(self):
        self.sent: dict[str, str] = {}

    @staticmethod
    def split(html: str) -> tuple[tuple[str, str], ...]:
        return _regions_of(html)

    def remember(self, html: str) -> str:
        """``html`` is sent whole: remember each of its regions."""
        for name, part in self.split(html):
            self.sent[name] = part
        return html

    def changed(self, html: str, private: tuple[tuple[str, str], ...] = ()) -> str:
        """The part of ``html`` (and of ``private``, the regions of the viewer's own
        fragments that follow it) the page does not hold yet, and remember it. Every page
        of a table in this process is given the same public fragments at a step: they are
        split once."""
        out = []
        for name, part in self.split(html) + private:
            if name in self.FRAME:
                continue
            if name not in self.ALWAYS and name != "hand" and self.sent.get(name) == part:
                continue
            if name == "log":
                out.append(_log_update(self.sent.get("log", ""), part))
            elif name == "hand":
                out.append(self._hand(part))
            else:
                out.append(f"<!--tbl:{name}-->{part}")
            self.sent[name] = part
        return "".join(out)

    def _hand(self, part: str) -> str:
        """The hand, drawn because it changed (or the player asked): when it only lost
        cards (a play, a tribute), the page deletes those cards and updates the count;
        otherwise it is sent whole."""
        old = self.sent.get("hand")
        whole = "<!--tbl:hand-->" + part
        if old is None:
            return whole
        old_cards = _hand_cards(old)
        new_ids = _hand_cards(part).keys()
        gone = [card for card in old_cards if card not in new_ids]
        if not gone or not new_ids <= old_cards.keys():
            return whole
        expected = old
        for card in gone:
            expected = expected.replace(old_cards[card], "", 1)
        count = _HAND_COUNT.search(part)
        if count is None or _HAND_COUNT.sub(lambda _m: count.group(0), expected, count=1) != part:
            return whole  # regrouped, reselected, or drawn differently: send it whole
        deletes = "".join(f'<input id="hc-{card}" hx-swap-oob="delete"><label id="hl-{card}" hx-swap-oob="delete"></label>'
                          for card in gone)
        return f"<!--tbl:hand-->{deletes}{count.group(0)}\n"


@functools.lru_cache(maxsize=256)
def _log_update(held: str, part: str) -> str:
    """What a page holding the log region ``held`` is sent for the log region ``part``.
    While the deal goes on, the new lines appended and the oldest the log no longer
    shows deleted; else ``part`` whole. A function of the two texts only, so the pages of
    a table that held the same log (most of them, at most steps) share one answer."""
    old = [(deal, index) for deal, index, _line in _log_lines(held)] if held else []
    entries = _log_lines(part)
    lines = [(deal, index) for deal, index, _line in entries]
    known = set(old)
    new = [line for deal, index, line in entries if (deal, index) not in known]
    kept = len(lines) - len(new)
    if old and new and kept <= len(old) and lines[:kept] == old[len(old) - kept:] \
            and all(deal == old[-1][0] for deal, _index in lines):
        # The same deal, and the new lines follow the ones the page holds: append them,
        # and drop the oldest the log no longer shows.
        gone = "".join(f'<li id="tbl-log-{deal}-{index}" hx-swap-oob="delete"></li>'
                       for deal, index in old[: len(old) - kept])
        lines_html = "".join(new)
        return f'<!--tbl:log-->{gone}<ol hx-swap-oob="beforeend:#tbl-log-list">{lines_html}</ol>\n'
    return "<!--tbl:log-->" + part


def _in_language(language: str):
    """``translation.override(language)``, or nothing to do when ``language`` is the one
    already active (most pages read the table in the language the last one did)."""
    if translation.get_language() == language:
        return contextlib.nullcontext()
    return translation.override(language)


class _Choose(Exception):
    """The selected cards read several ways: the player chooses first (R3.5)."""


def _json_depth(text: str, limit: int) -> bool:
    """Whether the JSON text ``text`` nests arrays and objects at most ``limit`` deep,
    read before parsing it (deep nesting costs the parser its stack)."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return False
        elif char in "]}":
            depth -= 1
    return True


def _whole_number(value) -> int | None:
    """A non-negative whole number written in ASCII digits (a JSON integer or a string of
    digits), else None: no fractions, signs, spaces, booleans or other scripts' digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value):
        return int(value)
    return None


def _int(value, rule: str, what: str) -> int:
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    number = _whole_number(value)
    if number is None:
        raise door.PlayError(rule, _("%(what)s is missing or not a number") % {"what": what})
    return number


def _interval(value) -> str:
    """The auto-play interval as sent by the form's list ("0.3" ... "5"), strictly."""
    text = value if isinstance(value, str) else ""
    if not _INTERVAL.fullmatch(text):
        raise door.PlayError("R9.2", _("choose an auto-play interval from the list"))
    return text


def _card_list(value) -> list[int]:
    if value in (None, ""):
        return []
    values = value if isinstance(value, list) else [value]
    if len(values) > 27:
        raise door.PlayError("R1.3", _("a hand holds at most 27 cards"))
    cards = []
    for v in values:
        card = _whole_number(v)
        if card is None:
            raise door.PlayError("R1.4", _("%(value)r is not a card id") % {"value": str(v)[:20]})
        if not 0 <= card < 108:
            raise door.PlayError("R1.4", _("%(value)s is not a card id (0-107)") % {"value": card})
        cards.append(card)
    if len(set(cards)) != len(cards):
        raise door.PlayError("R3.2", _("one physical card fills exactly one position"))
    return cards


class TableConsumer(SessionBound, AsyncWebsocketConsumer):
    async def dispatch(self, message):
        """Channels' dispatch without its hop to the process's synchronous thread to close
        stale database connections before every message: this consumer never uses the
        database on that thread (its work runs on ``DATABASE_THREADS``, which hand their
        connections back themselves). On a busy table, with every change reaching every
        page, those hops were about a twelfth of the server's work."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self):
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.viewer = ViewerState()
        self.language = viewer_language(self.scope)
        self.drawn = (0, -1)  # (deal id, step) of the newest scene this page was sent
        self.regions = _Regions()  # what the page holds of each region
        self.hand_key: tuple | None = None  # what the hand the page shows was drawn from
        self.scene: Scene | None = None  # the newest scene drawn
        self.user_id: int | None = None
        # The resync draws this page from its own task: it takes turns with the page's
        # messages and events, which otherwise run one at a time.
        self.turn = asyncio.Lock()
        self.seated = False
        self.muted = False  # the viewer mutes table talk (Profile.mute_talk)
        self.presence: asyncio.Task | None = None
        if not await _in_thread(self._may_watch)():
            # No such table, or a friend table this browser was not invited to (R10.3).
            await self.close(code=4404)
            return
        await self.channel_layer.group_add(table_group(self.table_id), self.channel_name)
        await self.join_user_group()
        await self.accept()
        if self.seated:
            # A seated player with the table open is a human at the table: it is not
            # abandoned (door.abandon_tables) while this page stays.
            self.presence = asyncio.ensure_future(self._keep_present())
        await self.send_render(with_talk=True)
        self.behind: tuple[int, int] | None = None  # a newer step the resync saw first
        _resync_of_this_loop().add(self)

    async def disconnect(self, code):
        if hasattr(self, "behind"):
            _resync_of_this_loop().discard(self)
        if self.presence is not None:
            self.presence.cancel()
        await self.channel_layer.group_discard(table_group(self.table_id), self.channel_name)
        await self.leave_user_group()

    async def _keep_present(self):
        while True:
            await asyncio.sleep(PRESENCE_INTERVAL)
            try:
                await _in_thread(door.human_present)(table_id=self.table_id)
            except Exception:  # the database is away: the next beat tries again
                log.warning("table %s: presence not recorded", self.table_id, exc_info=True)

    async def resync(self) -> None:
        """Draw the page afresh from the database: a step's event never reached it. A
        player to act at that step gets their whole think time from now (R9.2)."""
        async with self.turn:
            log.info("table %s: page behind at %s, drawing it afresh", self.table_id, self.drawn)
            self.viewer.play_as = []
            await self.send_render()
            scene = self.scene
            position = scene.position_of(self.user_id) if scene is not None else None
            if position is None or position not in scene.state.to_act:
                return
            moved = await _in_thread(door.grant_resync_grace)(
                table_id=self.table_id, deal_id=scene.deal_id, seq=scene.seq, position=position
            )
            if moved:
                await self.send_render()

    async def table_changed(self, event):
        async with self.turn:
            await self._table_changed(event)

    async def _table_changed(self, event):
        data = event.get("scene")
        if data is None:
            # No deal yet (the waiting room follows seat changes over HTTP) or an event
            # from an older sender: read the table afresh.
            self.viewer.play_as = []
            await self.send_render_or_log()
            return
        if (event["deal"], event["seq"]) < self.drawn:
            return  # an older step that arrived after a newer one: the page is ahead
        self.viewer.play_as = []
        public = event.get("public") if event.get("language") == self.language else None
        try:
            # Drawn here, on the event loop: the scene holds all it needs, so no query runs.
            public, parts = self.draw_parts(scene_from_event(self.table_id, data), public, keep_hand=True)
        except Exception:  # a bad event must not cost the page its connection
            log.exception("table %s: drawing step %s failed; reading the table afresh", self.table_id, event.get("seq"))
            await self.send_render_or_log()
            return
        await self.send(text_data=self.regions.changed(public, parts.regions()))

    async def send_render(self, *, with_talk: bool = False):
        """The whole table, drawn afresh from the database; ``with_talk``: the table talk
        panel too (on connect), ahead of the table's regions."""
        html = await _in_thread(self.render)()
        if html and with_talk:
            html = await _in_thread(self._talk_panel)() + html
        if html:
            await self.send(text_data=self.regions.remember(html))

    async def send_render_or_log(self):
        """``send_render`` for events: a database that is away costs this update only,
        never the page its connection (the next event or the page's next message draws
        the table again)."""
        try:
            await self.send_render()
        except Exception:
            log.exception("table %s: the table could not be read afresh", self.table_id)

    # ---- rendering (sync, in a worker thread) --------------------------------------

    def _may_watch(self) -> bool:
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return False
        session = self.scope.get("session")
        invited = invitations(session).keys() if session is not None and session.session_key else ()
        user = self._user()
        self.user_id = user.pk if user is not None else None
        self.seated = user is not None and table.seats.filter(user=user).exists()
        self.muted = user is not None and Profile.objects.filter(user=user, mute_talk=True).exists()
        if self.seated:
            door.human_present(table_id=table.pk)
        return table_selectors.may_see(table, table_selectors.viewer_for(user, invited_table_ids=invited))

    def _user(self):
        user = self.scope.get("user")
        return user if user is not None and user.is_authenticated else None

    def render(self) -> str:
        """The whole page's fragments, read afresh from the database (on connect, and in
        reply to this page's own messages)."""
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return ""
        scene = scene_for(table)
        if scene is None:
            return ""  # the waiting room follows seat changes over HTTP (#table-live)
        return self.draw(scene)

    def draw(self, scene: Scene, public: str | None = None, *, keep_hand: bool = False) -> str:
        """This page's fragments of ``scene`` as one text (``draw_parts``)."""
        public, parts = self.draw_parts(scene, public, keep_hand=keep_hand)
        return public + parts.html()

    def draw_parts(self, scene: Scene, public: str | None = None, *, keep_hand: bool = False
                   ) -> tuple[str, PrivateParts]:
        """This page's fragments of ``scene``: the public ones (given, or drawn from the
        spectator's view) and the viewer's own, from the viewer's seat's view only. With
        ``keep_hand``, the hand is left out when it would be drawn exactly as the page
        already shows it (another seat moved), so a selection in progress stays."""
        with _in_language(self.language):
            if public is None:
                # Drawn once per scene and language for all of this process's pages that
                # read the table in a language other than the sender's.
                drawn = scene.__dict__.setdefault("public_by_language", {})
                public = drawn.get(self.language)
                if public is None:
                    public = drawn[self.language] = render_public(scene)
            position = scene.position_of(self.user_id)
            parts = render_private_parts(scene, position, self.viewer,
                                         skip_hand=self.hand_key if keep_hand else None)
        self.hand_key = parts.hand_key
        if (scene.deal_id, scene.seq) >= self.drawn:
            self.drawn, self.scene = (scene.deal_id, scene.seq), scene
        return public, parts

    # ---- actions ---------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        if bytes_data is not None or text_data is None:
            await self.refuse("R9.1", _("send actions as JSON text"))
            return
        if len(text_data.encode("utf-8", "replace")) > MAX_MESSAGE_BYTES:
            await self.refuse("R9.1", _("that message is too large"))
            return
        if not _json_depth(text_data, MAX_JSON_DEPTH):
            await self.refuse("R9.1", _("that message nests too deeply"))
            return
        try:
            data = json.loads(text_data)
        except (ValueError, RecursionError):
            await self.refuse("R9.1", _("that message is not JSON"))
            return
        if not isinstance(data, dict) or not isinstance(data.get("action"), str):
            await self.refuse("R9.1", _("an action needs an \"action\" field"))
            return
        if data["action"] in TALK_ACTIONS:
            await self.talk(data)
            return
        try:
            async with self.turn:
                html = await _in_thread(self.handle)(data)
                if html:
                    # "refresh": the page saw a step go missing and asks for the whole table;
                    # "language": every region changes, the seats' frame too.
                    whole = data["action"] in ("refresh", "language")
                    html = self.regions.remember(html) if whole else self.regions.changed(html)
        except Exception:  # a bug must not cost the player the connection
            log.exception("table %s: action %r failed", self.table_id, data.get("action"))
            await self.refuse("R9.1", _("that could not be done; nothing was changed"))
            return
        if html:
            await self.send(text_data=html)

    # ---- table talk (games/live/talk.py) ------------------------------------------------

    async def talk(self, data: dict) -> None:
        """A phrase or emote by the viewer's seat, the table's switch, or the viewer's
        own mute. Phrases go to every page of the table (``table_talk``); nothing is
        stored."""
        action = data["action"]
        user_id = self.user_id
        if user_id is None:
            await self.refuse("R10.5", _("you are watching; only seated players act"))
            return
        if action == "talk-mute":
            self.muted = data.get("on") == "1"
            await _in_thread(talk.set_muted)(user=self._user(), muted=self.muted)
            await self.send_talk_panel()
            return
        position = self.scene.position_of(user_id) if self.scene is not None else None
        if position is None:
            position = await _in_thread(self._seat_position)()
        if position is None:
            await self.refuse("R10.5", _("you are watching; only seated players act"))
            return
        if action == "talk-table":
            await _in_thread(talk.set_table_talk)(table_id=self.table_id, user=self._user(), on=data.get("on") == "1")
            await self.channel_layer.group_send(table_group(self.table_id), {"type": "table.talk_state"})
            return
        phrase = data.get("phrase")
        if not talk.is_phrase(phrase):
            await self.refuse("R9.1", _("choose a phrase from the table talk list"))
            return
        if self.muted:
            await self.refuse("R9.1", _("you have muted table talk; unmute it to send phrases"))
            return
        if await _in_thread(self._silenced)():
            await self.refuse("R9.1", _("table talk is switched off at this table"))
            return
        if not await _in_thread(talk.may_speak_now)(user_id):
            await self.refuse("R9.1", _("one phrase every %(seconds)s seconds") % {"seconds": talk.EVERY})
            return
        await self.channel_layer.group_send(table_group(self.table_id),
                                            {"type": "table.talk", "seat": position, "phrase": phrase})

    def _seat_position(self) -> int | None:
        seat = Table.objects.get(pk=self.table_id).seats.filter(user_id=self.user_id).first()
        return seat.position if seat is not None else None

    def _silenced(self) -> list[str]:
        """The names of the seated players who switched table talk off here."""
        table = Table.objects.get(pk=self.table_id)
        seats = {seat.user_id: seat for seat in table.seats.filter(user__isnull=False).select_related("user__profile")}
        return [seats[user_id].user.profile.display_name for user_id in talk.silenced_by(table, seats)]

    async def table_talk(self, event):
        """A seat's phrase: shown by that seat for a few seconds, unless the viewer muted
        table talk."""
        if self.muted or not talk.is_phrase(event.get("phrase")):
            return
        scene = self.scene
        position = event.get("seat")
        if scene is None or position not in scene.seats:
            return
        with translation.override(self.language):
            text, label = talk.words(event["phrase"])
            html = render_to_string("live/_talk_bubble.html", {
                "number": position + 1, "name": seat_name(scene.seats[position]), "text": text, "label": label,
                "shown_for": talk.SHOWN_FOR})
        await self.send(text_data=html)

    async def table_talk_state(self, event):
        await self.send_talk_panel()

    async def send_talk_panel(self) -> None:
        try:
            html = await _in_thread(self._talk_panel)()
        except Exception:  # the panel waits for the next change; the table goes on
            log.exception("table %s: the table talk panel could not be drawn", self.table_id)
            return
        await self.send(text_data=html)

    def _talk_panel(self) -> str:
        silenced = self._silenced() if not self.muted else []
        table = Table.objects.get(pk=self.table_id)
        seated = self.user_id is not None and table.seats.filter(user_id=self.user_id).exists()
        with translation.override(self.language):
            return render_to_string("live/_talk.html", {
                "seated": seated,
                "signed_in": self.user_id is not None,
                "muted": self.muted,
                "silenced": ", ".join(silenced),
                "mine_off": self.user_id in (table.talk_off_by or []),
                "phrases": [(key, str(text)) for key, text in talk.PHRASES.items()],
                "emotes": [(key, picture, str(label)) for key, (picture, label) in talk.EMOTES.items()],
            })

    async def refuse(self, rule: str, message: str):
        """Answer in words, keeping the socket: drawn from the newest scene this page was
        sent, without a query, so a refusal is answered while the database is away too."""
        self.viewer.message = rule_links(f"{rule}: {message}")
        self.viewer.message_kind = "error"
        try:
            if self.scene is not None:
                # Whole: the same refusal twice is said twice.
                await self.send(text_data=self.regions.remember(self.draw(self.scene)))
            else:
                await self.send_render()
        except Exception:  # nothing more to say; the page keeps its connection
            log.exception("table %s: the refusal could not be drawn", self.table_id)

    def handle(self, data: dict) -> str:
        """Apply one message; returns HTML to send to this page only ("" when the change
        is broadcast to the whole table instead)."""
        if data["action"] == "language":
            # The header's switcher: this page's fragments in the new language from now on
            # (the other pages of the table keep theirs). The choice itself is saved over
            # HTTP (the cookie, the profile).
            self.language = supported_language(data.get("language")) or self.language
            self.viewer.message = ""
        with translation.override(self.language):
            viewer = self.viewer
            action = data["action"]
            viewer.coach = ""
            try:
                if action == "language":
                    if viewer.play_as:  # the offered readings, named in the new language (R3.5)
                        viewer.play_as = [dict(r, name=reading_label(Reading.from_json(r["reading"])))
                                          for r in viewer.play_as]
                        viewer.message = rule_links(_("R3.5: these cards can be played several ways; choose one."))
                    html = self.render()
                    return self._talk_panel() + html if html else ""  # the talk panel's words too
                if action in SORT_ACTIONS:
                    viewer.sort = SORT_ACTIONS[action]
                    viewer.selected = tuple(_card_list(data.get("card")))
                    viewer.message = ""
                    return self.render()
                if action == "clear":
                    viewer.selected, viewer.play_as, viewer.message = (), [], ""
                    return self.render()
                if action == "refresh":
                    return self.render()
                if action in MOVE_ACTIONS or action.startswith("play-as-"):
                    self._move(action, data)
                    return self._done(keep_coach=True)
                table = Table.objects.get(pk=self.table_id)
                user = self._user()
                seat_row = live_selectors.seat_of(table, user)
                if seat_row is None:
                    raise door.PlayError("R10.5", _("you are watching; only seated players act"))
                if action == "take-back":
                    door.take_back_control(table=table, user=user)
                    return self._done()
                if action == "auto-off":
                    door.set_auto_play(table=table, user=user, interval=None)
                    return self._done()
                if action == "auto-on":
                    interval = _interval(data.get("auto_interval", "1"))
                    door.set_auto_play(table=table, user=user, interval=interval)
                    return self._done()
                viewer.selected = tuple(_card_list(data.get("card")))
                if action == "suggest":
                    return self._suggest(table, seat_row.position)
                raise door.PlayError("R9.1", _("%(action)r is not an action") % {"action": action[:30]})
            except _Choose:
                return self.render()  # R3.5: the "play as" buttons are shown first
            except (door.PlayError, RuleError) as exc:
                viewer.message = rule_links(reason_text(str(exc)))
                viewer.message_kind = "error"
                return self.render()

    def _move(self, action: str, data: dict) -> None:
        """A pass, tribute, return or play, through the door (``door.submit_action``).

        The seat and the state the player saw come from the scene this page was last sent
        (no query); the door checks both again under the table's lock, so a page that is
        behind is refused as stale (R9.1) and nothing changes."""
        viewer = self.viewer
        cards = _card_list(data.get("card"))
        viewer.selected = tuple(cards)
        expected_deal = _int(data.get("deal"), "R9.1", _("the deal"))
        expected_seq = _int(data.get("seq"), "R9.1", _("the step"))
        scene = self.scene
        position = scene.position_of(self.user_id) if scene is not None else None
        if position is None:
            seat_row = live_selectors.seat_of(Table(pk=self.table_id), self._user())
            if seat_row is None:
                raise door.PlayError("R10.5", _("you are watching; only seated players act"))
            position = seat_row.position
        common = dict(table_id=self.table_id, seat=position, expected_deal=expected_deal,
                      expected_seq=expected_seq, user=self._user())
        if action == "pass":
            door.submit_action(kind="pass", **common)
        elif action in ("tribute", "return"):
            if len(cards) != 1:
                rule = "R8.3" if action == "tribute" else "R8.4"
                raise door.PlayError(rule, _("select exactly one card to give"))
            door.submit_action(kind=action, cards=cards, **common)
        else:
            if not cards:
                raise door.PlayError("R6.1", _("select the cards to play"))
            if scene is not None and (scene.deal_id, scene.seq) == (expected_deal, expected_seq):
                before, kind = scene.state, scene.kind
            else:
                table = Table.objects.get(pk=self.table_id)
                before, kind = state_from_json(live_selectors.current_deal(table).state), table.kind
            reading = self._chosen_reading(action, before, position, cards)
            if reading is None:
                raise _Choose
            door.submit_action(kind="play", cards=cards, reading=reading or None, **common)
            if kind == Table.Kind.PRACTICE:
                self._coach(before, position, cards, reading or None)

    def _done(self, keep_coach: bool = False) -> str:
        self.viewer.selected, self.viewer.play_as, self.viewer.message = (), [], ""
        if not keep_coach:
            self.viewer.coach = ""
        return ""  # the broadcast of the change re-renders this page too

    def _chosen_reading(self, action: str, state, position: int, cards: list[int]):
        """R3.5: with several legal readings the player chooses; a lone one is automatic.

        Returns a Reading, False to let the engine explain why nothing is legal, or None
        when the player must first choose (the "play as" buttons are then shown)."""
        viewer = self.viewer
        if action.startswith("play-as-"):
            try:
                index = int(action.removeprefix("play-as-"))
                return Reading.from_json(viewer.play_as[index]["reading"])
            except (ValueError, IndexError, KeyError):
                raise door.PlayError("R3.5", _("choose one of the offered readings")) from None
        if not set(cards) <= set(state.hands[position]):
            raise RuleError("R9.1", _("those cards are not in your hand"))
        options = play_as_options(state, cards)
        if len(options) > 1:
            viewer.play_as = [{"name": reading_label(r), "reading": r.to_json()} for r in options]
            viewer.message = rule_links(_("R3.5: these cards can be played several ways; choose one."))
            viewer.message_kind = "hint"
            return None
        return options[0] if options else False

    def _suggest(self, table: Table, position: int) -> str:
        from games.bots import suggest

        if not table.allows_assistance:
            raise door.PlayError("R10.8", _("suggestions are for friend and practice tables; match tables play unassisted"))
        state = state_from_json(live_selectors.current_deal(table).state)
        try:
            suggestion = suggest(view_for(state, position))
        except Exception:  # a suggestion must never break the page
            log.exception("suggestion failed at table %s", table.pk)
            raise door.PlayError("R9.1", _("no suggestion could be found this time; try again")) from None
        self.viewer.selected = tuple(suggestion.action.cards)
        # The hint names what to play, then why (the cards are selected in the hand too).
        self.viewer.message = rule_links(suggestion_text(suggestion.to_json()["name"], suggestion.reason))
        self.viewer.message_kind = "hint"
        return self.render()

    def _coach(self, before, position: int, cards, reading) -> None:
        """Practice tables: after a play clearly worse than the best found, say what was
        better and why, beside the hand; play goes on."""
        from games.bots import coach_review

        try:
            highlight = coach_review(view_for(before, position), EngineAction("play", position, tuple(cards), reading))
        except Exception:  # coaching must never break play
            log.exception("coach review failed")
            return
        if highlight is not None:
            self.viewer.coach = rule_links(coach_text(highlight.message))
