"""HTML fragments of a table in play, each rendered for exactly one kind of viewer.

Both are drawn from a ``Scene``: what a table's pages show at one step, built once per
change and carried by the table's change event (docs/architecture.md, "The live
table"). Two families:

- public fragments (``#tbl-seats``, ``#tbl-trick``, ``#tbl-log``): built from the
  spectator's view (``view_for(state, None)``), so they can only hold what everybody may
  see; rendered once per change and sent to every page of the table;
- private fragments (``#tbl-status``, ``#tbl-hand``, ``#tbl-controls``): rendered from
  one seat's own view for that seat's page only.

Every card drawn carries ``data-card="<id>"`` so tests can scan payloads for cards a
viewer may not see.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, Iterable, Sequence

import orjson
from django.core.exceptions import ObjectDoesNotExist
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy, ngettext, pgettext
from django.utils.translation import gettext as _

from accounts import career
from accounts.selectors import display_name_of
from games.engine.cards import ACE, BIG_JOKER, RANK_OF, SMALL_JOKER, SUIT_OF, card_strength, is_wild
from games.engine.combos import beating_readings, readings_of
from games.engine.deal import DealState, Move, partner_of, team_of
from games.engine.reading import FULL_HOUSE, JOKER_BOMB, RUN_LENGTH, RUN_WIDTH, Reading, shown_rank
from games.engine.replay import state_from_json, state_to_json
from games.engine.views import move_view, view_for
from games.bots.view import Seen
from games.live.selectors import current_deal
from games.templatetags.games_tags import move as move_markup
from games.models import Deal, Seat, Table
from games.players import rating
from games.rules.words import reading_label, settlement_text

SORT_MODES = ("rank", "suit", "combo")
SUIT_CLASSES = ("s", "h", "c", "d")
SUIT_SYMBOLS = ("\u2660", "\u2665", "\u2663", "\u2666")
PHASE_LABELS = {
    "tribute": gettext_lazy("Tribute"),
    "return": gettext_lazy("Return"),
    "play": gettext_lazy("Play"),
    "over": gettext_lazy("Deal over"),
}
RANK_NAMES = {
    "J": gettext_lazy("jack"), "Q": gettext_lazy("queen"), "K": gettext_lazy("king"), "A": gettext_lazy("ace"),
}
SUIT_NAMES = (gettext_lazy("spades"), gettext_lazy("hearts"), gettext_lazy("clubs"), gettext_lazy("diamonds"))


def card_label(card_id: int, level: int) -> str:
    """A card's accessible name, translated: "10 of hearts, wild", "big joker"."""
    return _card_label(card_id, level, get_language())


@lru_cache(maxsize=4096)
def _card_label(card_id: int, level: int, language: str | None) -> str:
    # Kept per language (the active one, which names the entry): each card is named
    # dozens of times a step, and each name costs two or three catalogue lookups.
    rank = RANK_OF[card_id]
    if rank == 14:
        return _("big joker")
    if rank == 13:
        return _("small joker")
    shown = shown_rank(rank)
    name = _("%(rank)s of %(suit)s") % {"rank": RANK_NAMES.get(shown, shown), "suit": SUIT_NAMES[SUIT_OF[card_id]]}
    if is_wild(card_id, level):
        name = _("%(card)s, wild") % {"card": name}
    return name


def card_context(card_id: int, level: int) -> dict[str, Any]:
    """What a template needs to draw one physical card (a dict of the caller's own)."""
    return dict(_card_context(card_id, level, get_language()))


@lru_cache(maxsize=4096)
def _card_context(card_id: int, level: int, language: str | None) -> dict[str, Any]:
    rank = RANK_OF[card_id]
    suit = SUIT_OF[card_id]
    if rank >= 13:
        return {
            # The face: its own words in the corner (大王 / 小王, BJ / SJ) and a filled
            # crown for the big joker, an outlined one for the small, so the two differ by
            # words and shape as well as by colour.
            "id": card_id, "joker": True, "big": rank == 14,
            "rank": pgettext("joker's corner", "BJ") if rank == 14 else pgettext("joker's corner", "SJ"),
            "suit": "\u265b" if rank == 14 else "\u2655", "suit_class": "bj" if rank == 14 else "sj", "wild": False,
            "name": _card_label(card_id, level, language),
        }
    return {
        "id": card_id, "joker": False, "rank": shown_rank(rank), "suit": SUIT_SYMBOLS[suit],
        "suit_class": SUIT_CLASSES[suit], "wild": is_wild(card_id, level),
        "name": _card_label(card_id, level, language),
    }


def cards_context(card_ids: Iterable[int], level: int) -> list[dict[str, Any]]:
    return [card_context(c, level) for c in card_ids]


@dataclass
class SeatInfo:
    """One seat as the pages show it (public: names and flags, never cards)."""

    position: int
    name: str
    is_bot: bool
    autopilot: bool = False
    away: bool = False
    user_id: int | None = None
    auto_play: str | None = None  # the seat's auto-play interval in seconds, or None
    rating: str = ""  # at match tables: the player's rating ("1512", "1500?" provisional, R10.10)


# What a seat's row is read with to draw it: the names, and whether its player is a bot
# account's program (``seat_info``).
SEAT_RELATED = ("user__profile", "user__bot_account", "away_user__profile")


def seat_infos(table: Table) -> dict[int, SeatInfo]:
    infos = {}
    rated = table.kind == Table.Kind.MATCH
    for seat in table.seats.select_related(*SEAT_RELATED):
        infos[seat.position] = seat_info(seat, rated=rated)
    return infos


def seat_info(seat: Seat, *, rated: bool = False) -> SeatInfo:
    """``rated``: a match table, where the plates show ratings (R10.10); a bot's is the
    fixed rating of its level."""
    # A bot's name is worded when drawn (``seat_name``), in each viewer's language; the
    # scene keeps only the away player's own name.
    if seat.is_bot:
        name = display_name_of(seat.away_user) if seat.away_user_id else ""
        shown = str(rating.bot_skill(seat.bot_level).shown) if rated else ""
        return SeatInfo(seat.position, name, True, away=bool(seat.away_user_id), rating=shown)
    # A bot account's program that went away is played by the site (``door.
    # bot_program_connected``): the table shows it on autopilot (R9.2).
    program_away = seat.auto_play is not None and hasattr(seat.user, "bot_account")
    return SeatInfo(seat.position, display_name_of(seat.user), False, seat.autopilot or program_away,
                    user_id=seat.user_id, auto_play=None if seat.auto_play is None else str(seat.auto_play),
                    rating=player_rating(seat.user) if rated else "")


def player_rating(user) -> str:
    """A player's rating as shown ("1500?" before any rated deal), from the user's
    rating row when it was read with the seat."""
    try:
        row = user.rating
    except ObjectDoesNotExist:
        return rating.shown(rating.START_MU, 0)
    return row.shown


def seat_name(info: SeatInfo) -> str:
    """The name a seat is shown by, in the viewer's language ("Bot 2", "Mei (bot playing)")."""
    if not info.is_bot:
        return info.name
    if info.away:
        return _("%(name)s (bot playing)") % {"name": info.name}
    return _("Bot %(number)s") % {"number": info.position + 1}


@dataclass
class Scene:
    """Everything a table page's fragments are drawn from at one step.

    Built from the database once per change (``scene_for``) and carried in the table's
    change event as JSON (``to_event``/``from_event``), so each open page renders its
    viewer's part without a query. It holds the whole deal state: only the render
    functions below, through ``view_for``, decide what a viewer sees.
    """

    table_id: int
    kind: str
    think_time: int
    awards_points: bool
    tier: str
    deal_id: int
    deal_number: int
    match_id: int
    match_status: str
    match_winner: int | None
    deadline: datetime | None
    result: dict | None
    state: DealState
    seats: dict[int, SeatInfo]
    # The state's JSON when the builder holds it already (the door just wrote it), and
    # its text (the door wrote that to the database; the event carries the same).
    state_json: dict | None = field(default=None, compare=False, repr=False)
    state_text: str | None = field(default=None, compare=False, repr=False)
    # R10.8: the table offers the card counter (``Table.has_card_counter``).
    card_counter: bool = False

    @property
    def seq(self) -> int:
        return self.state.step

    def position_of(self, user_id: int | None) -> int | None:
        """The seat ``user_id`` sits in at this table, or None (a spectator)."""
        if user_id is None:
            return None
        for info in self.seats.values():
            if info.user_id == user_id:
                return info.position
        return None

    def to_event(self) -> str:
        """The scene as one JSON string: the channel layer packs a string for each page
        it delivers to far faster than the nested state."""
        data = {f: getattr(self, f) for f in self.__dataclass_fields__
                if f not in ("state", "seats", "deadline", "state_json", "state_text")}
        data["deadline"] = self.deadline.isoformat() if self.deadline else None
        # A seat's fields are plain values: its own attribute dict is what ``asdict``
        # would copy, at a tenth of the cost.
        data["seats"] = [vars(info) for info in self.seats.values()]
        rest = orjson.dumps(data).decode()
        state = self.state_text
        if state is None:
            state = orjson.dumps(self.state_json if self.state_json is not None else state_to_json(self.state)).decode()
        # The state's text as it was written (the door dumps it once for the database and
        # the event alike), spliced in before the other fields.
        return '{"state":' + state + "," + rest[1:]

    def event_text(self) -> str:
        """``to_event``, the scene kept as the table's newest in this process
        (``scene_from_event``): the event comes back to this process's own pages through
        the channel layer, and they take this scene instead of parsing it back."""
        text = self.to_event()
        _keep_scene(self.table_id, text, self)
        return text

    @classmethod
    def from_event(cls, text: str, earlier: Scene | None = None) -> Scene:
        """The scene ``text`` carries; ``earlier``, a scene of the same table read before,
        lends its moves when it shows the same deal (``state_from_json``)."""
        data = orjson.loads(text)
        data["deadline"] = datetime.fromisoformat(data["deadline"]) if data["deadline"] else None
        data["state_json"] = data["state"]
        same_deal = earlier is not None and earlier.deal_id == data["deal_id"]
        data["state"] = state_from_json(data["state"], since=earlier.state if same_deal else None)
        data["seats"] = {info["position"]: SeatInfo(**info) for info in data["seats"]}
        return cls(**data)


# The newest scene of each table's events in this process, with the text it travels as:
# every page of the table open here receives the same text and only reads the scene, so
# it is parsed once per process, and not at all in the process that sent it.
_scenes: dict[int, tuple[str, Scene]] = {}
_scenes_lock = threading.Lock()
SCENE_TABLES = 1000


def _keep_scene(table_id: int, text: str, scene: Scene) -> None:
    with _scenes_lock:
        _scenes.pop(table_id, None)
        _scenes[table_id] = (text, scene)  # newest last: the oldest go first when full
        while len(_scenes) > SCENE_TABLES:
            del _scenes[next(iter(_scenes))]


def forget_scenes() -> None:
    """Drop the scenes this process keeps: for a deal's rows changed outside the door
    (a test rigging a deal), whose steps the kept scenes would otherwise stand for."""
    with _scenes_lock:
        _scenes.clear()


def kept_step(table_id: int, deal_id: int) -> tuple[DealState, dict | None] | None:
    """The state (and its JSON, when held) of deal ``deal_id`` at the newest step of
    table ``table_id`` this process has sent or received, if any: every step is
    committed before its event is sent, so the door may take it for the deal's
    snapshot when the deal is still at that step (``selectors.lock_step`` checks)."""
    with _scenes_lock:
        kept = _scenes.get(table_id)
    if kept is None or kept[1].deal_id != deal_id:
        return None
    return kept[1].state, kept[1].state_json


def scene_from_event(table_id: int, text: str) -> Scene:
    """The scene an event's ``text`` carries: the one kept for the table when it is the
    same text, else parsed (and kept)."""
    with _scenes_lock:
        kept = _scenes.get(table_id)
    if kept is not None and (kept[0] is text or kept[0] == text):
        return kept[1]
    scene = Scene.from_event(text, kept[1] if kept is not None else None)
    _keep_scene(table_id, text, scene)
    return scene


def scene_for(table: Table, deal: Deal | None = None, seats: Iterable[Seat] | None = None, *,
              state: DealState | None = None, state_json: dict | None = None,
              state_text: str | None = None) -> Scene | None:
    """The scene of the table's current deal (None before the first deal). ``deal`` (with
    its match loaded), ``seats`` (with users and profiles) and the deal's ``state`` (its
    JSON, its text) save their queries, parsing and writing when the caller holds them
    already."""
    if deal is None:
        deal = current_deal(table)
        if deal is None:
            return None
    if seats is None:
        infos = seat_infos(table)
    else:
        infos = {seat.position: seat_info(seat, rated=table.kind == Table.Kind.MATCH) for seat in seats}
    if Deal.match.is_cached(deal) or not hasattr(deal, "match_status"):
        match_status, match_winner = deal.match.status, deal.match.winner_team
    else:  # read with the deal, without loading the match (``selectors.lock_step``)
        match_status, match_winner = deal.match_status, deal.match_winner
    return Scene(
        table_id=table.pk, kind=table.kind, think_time=table.think_time, awards_points=table.awards_points, tier=table.tier,
        deal_id=deal.pk, deal_number=deal.number, match_id=deal.match_id, match_status=match_status,
        match_winner=match_winner, deadline=deal.deadline, result=deal.result,
        state=state if state is not None else state_from_json(deal.state), seats=infos,
        state_json=state_json if state is not None else deal.state,
        state_text=state_text if state is not None else None, card_counter=table.has_card_counter,
    )


def reading_order(cards: Sequence[int], reading: Reading | None, level: int) -> list[int]:
    """A play's cards as people read it (R3.5): straights and runs ascending, each wild
    where it stands in (A low in A-5); a full house's triple then its pair; everything
    else by strength, suits together, wilds last, so a bomb or a pair reads as one block.
    """
    def plain(card_id: int) -> tuple:
        return (is_wild(card_id, level), card_strength(card_id, level), SUIT_OF[card_id], card_id)

    cards = list(cards)
    if reading is None:
        return sorted(cards, key=plain)
    if reading.shape == JOKER_BOMB:
        return sorted(cards, key=lambda c: (RANK_OF[c], c))
    wilds = sorted((c for c in cards if is_wild(c, level)), key=plain)
    naturals = sorted((c for c in cards if not is_wild(c, level)), key=plain)
    if reading.shape in RUN_LENGTH:
        length, width = RUN_LENGTH[reading.shape], RUN_WIDTH[reading.shape]
        low = reading.key - length + 1
        slots: dict[int, list[int]] = {rank: [] for rank in range(low, reading.key + 1)}
        spare = []
        for c in naturals:
            rank = RANK_OF[c]
            if rank == ACE and low < 0 and ACE not in slots:
                rank = -1  # the ace stands low in A-2-3-4-5 (R2.4)
            if rank in slots and len(slots[rank]) < width:
                slots[rank].append(c)
            else:
                spare.append(c)
        spare += wilds
        for rank in slots:
            while len(slots[rank]) < width and spare:
                slots[rank].append(spare.pop(0))
        return [c for rank in slots for c in slots[rank]] + spare
    if reading.shape == FULL_HOUSE:
        triple = [c for c in naturals if RANK_OF[c] == reading.key][:3]
        rest = [c for c in naturals if c not in triple]
        while len(triple) < 3 and wilds:
            triple.append(wilds.pop(0))
        return triple + rest + wilds
    return naturals + wilds


def _move_context(move: dict, level: int, infos: dict[int, SeatInfo]) -> dict[str, Any]:
    reading = move.get("reading")
    parsed = Reading.from_json(reading) if reading else None
    return {
        "seat": move["seat"],
        "number": move["seat"] + 1,
        "name": seat_name(infos[move["seat"]]) if move["seat"] in infos else "",
        "pass": not move["cards"],
        "cards": cards_context(reading_order(move["cards"], parsed, level), level),
        "reading": reading_label(parsed) if parsed else "",
        "bomb": bool(parsed and parsed.is_bomb),
        "actor": move.get("actor", "human"),
    }


# --------------------------------------------------------------------------------------
# Public


LOG_LENGTH = 12  # plays in the log as drawn whole (the page shows as many, newest on top)


def public_context(scene: Scene) -> dict[str, Any]:
    state, infos = scene.state, scene.seats
    view = view_for(state, None, history=False)  # the log shows the newest moves only (below)
    level = state.level
    last_by_seat: dict[int, dict] = {}
    for move in view["trick"]:
        last_by_seat[move["seat"]] = move
    seats = []
    for position in range(4):
        info = infos.get(position) or SeatInfo(position, _("Empty"), False)
        place = state.finished.index(position) + 1 if position in state.finished else None
        last = last_by_seat.get(position)
        seats.append({
            "position": position,
            "number": position + 1,
            "team": "A" if team_of(position) == 0 else "B",
            "name": seat_name(info),
            "is_bot": info.is_bot,
            "away": info.away,
            "rating": info.rating,
            "autopilot": bool(view["autopilot"][position]) or info.autopilot,
            "count": view["counts"][position],
            "to_act": position in view["to_act"],
            "place": place,
            "last": _move_context(last, level, infos) if last else None,
            "is_top": bool(view["top"] and last and last["cards"]
                           and view["top"]["seat"] == position and last["cards"] == view["top"]["cards"]),
        })
    deadline = scene.deadline.isoformat() if scene.deadline and not state.is_over else ""
    top = view["top"]
    gifts = []
    for gift in view["tribute"]["gifts"]:
        gifts.append({
            "from": gift["from"] + 1,
            "to": gift["to"] + 1,
            "from_name": seats[gift["from"]]["name"],
            "to_name": seats[gift["to"]]["name"],
            "rank": gift["rank"],
            "card": card_context(gift["card"], level) if gift["card"] is not None else None,
            "returned": gift["returned_done"],
        })
    result = None
    if state.is_over and scene.result:
        result = settlement_context(scene, [s["name"] for s in seats])
    # The deal's newest plays, oldest first, each with its place in the deal's history (the
    # id of its line in the log, to which a page appends the plays that follow).
    start = max(0, len(state.history) - LOG_LENGTH)
    history = [_log_lines.line(scene.deal_id, index, move, level, infos)
               for index, move in enumerate(state.history[start:], start)]
    return {
        "table_id": scene.table_id,
        "deal_id": scene.deal_id,
        "match_id": scene.match_id,
        "seq": state.step,
        "seats": seats,
        "deadline": deadline,
        "think_time": scene.think_time,
        "phase": state.phase,
        "top": _move_context(top, level, infos) if top else None,
        "lead_seat": state.lead_seat + 1,
        "lead_name": seats[state.lead_seat]["name"],
        "tribute": {"kind": view["tribute"]["kind"], "resisted": view["tribute"]["resisted"], "gifts": gifts},
        "result": result,
        "history": history,
        "match_status": scene.match_status,
        "match_winner": None if scene.match_winner is None else ("A" if scene.match_winner == 0 else "B"),
        "table_kind": scene.kind,
    }


class _DrawnOnce:
    """Fragments drawn once per process, kept by what they show (bounded: emptied when
    full, so a long-running process keeps only what recent steps drew)."""

    def __init__(self, size: int):
        self.size = size
        self._drawn: dict[tuple, str] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple, draw) -> str:
        with self._lock:
            html = self._drawn.get(key)
        if html is None:
            html = draw()
            with self._lock:
                if len(self._drawn) >= self.size:
                    self._drawn.clear()
                self._drawn[key] = html
        return html


class _LogLines:
    """The log's lines (``<li>``, one per move), each drawn once per process: a move of a
    deal never changes once played, so a line is kept by the deal, the move's place in
    its history, the player's shown name and the language. Twelve lines were drawn from
    the template at every step."""

    def __init__(self):
        self._drawn = _DrawnOnce(8192)

    def line(self, deal_id: int, index: int, move: Move, level: int, infos: dict[int, SeatInfo]) -> str:
        seat = move.seat
        name = seat_name(infos[seat]) if seat in infos else ""
        return self._drawn.get(
            (get_language(), deal_id, index, name),
            lambda: format_html('<li id="tbl-log-{}-{}"><span class="log-seat">{}</span> {}</li>',
                                deal_id, index, name, move_markup(_move_context(move_view(move), level, infos))))


_log_lines = _LogLines()


PLACE_LABELS = (gettext_lazy("1st"), gettext_lazy("2nd"), gettext_lazy("3rd"), gettext_lazy("4th"))


def settlement_context(scene: Scene, names: list[str]) -> dict[str, Any]:
    """The settlement overlay (R7, R9.6): who finished where, each team's level before and
    after with the rule in words, the points earned (R10.6) and the next deal's tribute (R8).

    Public, so the same for every viewer: teams are named by their players; the page
    marks which one is "Us" from the viewer's seat.
    """
    result = scene.result
    places = list(result["places"])
    winner = result["winner_team"]
    before = tuple(scene.state.team_levels)
    after = tuple(result.get("levels") or before)
    active = scene.state.level
    first = places[0]
    partner_place = places.index(partner_of(first)) + 1
    teams = []
    for team in (0, 1):
        members = [p for p in range(4) if team_of(p) == team]
        teams.append({
            "team": "a" if team == 0 else "b",
            "names": _("%(first)s and %(second)s") % {"first": names[members[0]], "second": names[members[1]]},
            "before": level_char(before[team]),
            "after": level_char(after[team]),
            "won": team == winner,
            # R13.4: a board's result, signed from this team's side.
            "board_score": f"+{result['advance']}" if team == winner else f"-{result['advance']}",
        })
    old, new = level_char(before[winner]), level_char(after[winner])
    advance = result["advance"]
    finish = {2: _("1st and 2nd"), 3: _("1st and 3rd"), 4: _("1st and 4th")}[partner_place]
    if result["match_over"]:
        rule = _("Finished %(finish)s in a deal played at their own A: the match is won (R7.3).") % {"finish": finish}
    elif before[winner] == ACE and active == ACE:
        rule = _("1st and 4th at A wins the deal only: they stay on A and play A again (R7.3).")
    elif before[winner] == ACE:
        rule = _("Already at A, but this deal was played at %(level)s: they stay on A, not a match win (R7.3).") % {
            "level": level_char(active)}
    elif after[winner] == ACE:
        rule = _("Finished %(finish)s: %(old)s +%(advance)s reaches A, which is not yet a match win (R7.1, R7.2).") % {
            "finish": finish, "old": old, "advance": advance}
    else:
        rule = _("Finished %(finish)s: up %(advance)s, %(old)s to %(new)s (R7.1).") % {
            "finish": finish, "advance": advance, "old": old, "new": new}
    tribute = ""
    board = scene.kind == "tournament"
    if board:
        # R13.4: a board's result is R7.1's level change, signed from each side.
        losers = teams[1 - winner]["names"]
        rule = _("Finished %(finish)s: %(winners)s score +%(advance)s on this board, %(losers)s -%(advance)s "
                 "(R13.4).") % {"finish": finish, "winners": teams[winner]["names"], "advance": advance,
                                "losers": losers}
    elif not result["match_over"]:
        if partner_place == 2:
            tribute = _("Next deal: %(a)s and %(b)s each give their highest card as tribute, unless they hold "
                        "both big jokers (R8.2, R8.5).") % {"a": names[places[2]], "b": names[places[3]]}
        else:
            tribute = _("Next deal: %(donor)s gives %(to)s the highest card as tribute, unless %(donor)s holds "
                        "both big jokers (R8.1, R8.5).") % {"donor": names[places[3]], "to": names[first]}
    return {
        "places": [{"number": p + 1, "name": names[p], "label": PLACE_LABELS[i], "team": "a" if team_of(p) == 0 else "b"}
                   for i, p in enumerate(places)],
        "teams": teams,
        "winner_names": teams[winner]["names"],
        "winner": "a" if winner == 0 else "b",
        "rule": rule,
        "tribute": tribute,
        "explanation": settlement_text(result["explanation"]),
        "match_over": result["match_over"] and not board,
        "board": board,
        "points": _winner_points(scene),
        # R10.8: players the autopilot played for through most of the deal earn nothing.
        "no_points": [names[p] for p in result.get("no_points_r10_8", [])],
        # R10.10: each rated player's rating before and after the deal.
        "ratings": [
            {"name": names[int(position)], "team": "a" if int(position) % 2 == 0 else "b", **change}
            for position, change in sorted((result.get("ratings") or {}).items())
        ],
    }


def level_char(level: int) -> str:
    return shown_rank(level) if 0 <= level <= ACE else ""


def _winner_points(scene: Scene) -> int:
    """R10.6: what each registered winner earned for this deal (0 off match tables)."""
    if not scene.awards_points:
        return 0
    result = scene.result
    factor = career.tier_factor(scene.tier)
    return result["advance"] * factor + (career.MATCH_WIN_BONUS * factor if result["match_over"] else 0)


_LAYOUT_SPACE = re.compile(r"\n\s+")
# Where each region of the table's fragments begins (templates/live/): the page's socket
# sends only the regions that changed (games.live.consumer._Regions).
REGION_MARK = re.compile(r"<!--tbl:([a-z0-9-]+)-->")
MARK_OPENING = "<!--tbl:"


def regions_of(html: str) -> tuple[tuple[str, str], ...]:
    """``html``'s regions as (name, text) pairs, in order (what comes before the first
    mark is in none)."""
    if html.startswith(MARK_OPENING) and html.find(MARK_OPENING, 1) < 0:
        # One region (the hand, the counter): no need to scan the text for marks.
        end = html.find("-->")
        name = html[len(MARK_OPENING):end]
        if REGION_MARK.fullmatch(html, 0, end + 3):
            return ((name, html[end + 3:]),)
    parts = REGION_MARK.split(html)
    return tuple(zip(parts[1::2], parts[2::2]))


def compact(html: str) -> str:
    """The templates' indentation out of a fragment: every run of white space that starts
    with a line break becomes one line break, which a browser shows exactly as it did
    (the live templates hold no <pre> nor <textarea>). A tenth of what a step sends; this
    pattern costs a tenth of one that also looked behind the line break."""
    return _LAYOUT_SPACE.sub("\n", html)


def render_public(scene: Scene) -> str:
    """The public fragments, the same for every viewer of the table: drawn from the
    spectator's view only, so they cannot hold a hidden card.

    The frame (``live/_public.html``) is drawn once per language, with marks where the
    seats, the trick and the log go; the seats and the log's lines are kept per process
    (``_SeatShells``, ``_LogLines``), the trick by what it shows (``_trick_html``). So
    at a step the template engine draws at most the trick, and only when it shows
    something new (a new top play): drawing the whole frame at every step was about
    two fifths of the public fragments' cost."""
    context = public_context(scene)
    log = "".join(context["history"])
    before_seats, before_trick, before_log, end = _public_frame(get_language(), bool(log))
    return compact("".join((
        before_seats, *(_seats.render(seat, context["deadline"], context["think_time"]) for seat in context["seats"]),
        before_trick, _trick_html(context), before_log, log, end)))


# Where the frame's pieces go when it is drawn: characters no template holds.
_SEATS_MARK, _TRICK_MARK, _LOG_MARK = "\x00seats\x00", "\x00trick\x00", "\x00log\x00"


@lru_cache(maxsize=32)
def _public_frame(language: str, has_log: bool) -> tuple[str, str, str, str]:
    """``live/_public.html`` in ``language`` (the active one, passed for the cache's
    key), cut where its pieces go: the text before the seats, before the trick, before
    the log's lines, and after them. The pieces are joined in between, so nothing in a
    piece (a player's name, say) is ever searched for a mark."""
    frame = render_to_string("live/_public.html", {
        "seats_html": mark_safe(_SEATS_MARK), "trick_html": mark_safe(_TRICK_MARK),  # noqa: S308 (marks)
        "log_html": mark_safe(_LOG_MARK) if has_log else "",  # noqa: S308 (a mark)
    })
    before_seats, rest = frame.split(_SEATS_MARK)
    before_trick, rest = rest.split(_TRICK_MARK)
    before_log, end = rest.split(_LOG_MARK) if has_log else (rest, "")
    return before_seats, before_trick, before_log, end


_tricks = _DrawnOnce(4096)


def _trick_html(context: dict[str, Any]) -> str:
    """The table's middle (``live/_trick.html``) for the public ``context``. Outside a
    settlement it shows only the phase, the tribute, the top play, whether the deal has
    any plays yet and who leads after the returns, so it is drawn once per process for
    each combination of those (in one fixed order of plain values: their repr names
    them); a settlement, once a deal, is drawn from the template."""
    if context["result"]:
        return render_to_string("live/_trick.html", context)
    key = (get_language(), context["phase"], repr(context["tribute"]), repr(context["top"]),
           bool(context["history"]), context["lead_name"])
    return _tricks.get(key, lambda: render_to_string("live/_trick.html", context))


class _SeatShells:
    """Each seat's fragment from three pieces, each drawn once per process for each
    combination of what it shows and the language: the seat's box (its number and team,
    the same all table long), its plate (name, badges, count; the deadline and think
    time only while its countdown shows) and its last play. From one step to the next
    most seats look the same, and a turn passing on changes plates only: drawing whole
    seats from the template was most of the public fragments' cost."""

    PLATE, LAST = "\x00plate\x00", "\x00last\x00"

    def __init__(self):
        self._drawn = _DrawnOnce(4096)

    def render(self, seat: dict[str, Any], deadline: str, think_time: int) -> str:
        counting = seat["to_act"] and deadline and not seat["is_bot"] and not seat["autopilot"]
        language = get_language()
        number = seat["number"]
        # The seat's context is built in one fixed order of plain values (names, numbers,
        # the cards' contexts), so the repr of its parts names what they show; far
        # cheaper than JSON.
        plate_key = (language, "plate", repr([v for k, v in seat.items() if k not in ("last", "is_top")]),
                     deadline if counting else "", think_time if counting else 0)
        last_key = (language, "last", number, repr(seat["last"]), seat["is_top"])
        box_key = (language, "box", number, seat["team"])
        plate = self._drawn.get(plate_key, lambda: seat_plate_html(seat, deadline if counting else "", think_time))
        last = self._drawn.get(last_key, lambda: seat_last_html(seat))
        box = self._drawn.get(box_key, lambda: compact(render_to_string(
            "live/_seat.html", {"s": seat, "plate": self.PLATE, "last": self.LAST})))
        return mark_safe(box.replace(self.PLATE, plate).replace(self.LAST, last))  # noqa: S308 (our own templates, fields escaped)


def seat_plate_html(seat: dict[str, Any], deadline: str, think_time: int) -> str:
    """A seat's plate (inside its box, templates/live/_seat.html): its name, rating,
    badges, card count and, with ``deadline``, its countdown. Written here rather than
    in a template, as the cards and the log's lines are: a plate changes at most steps
    (the turn, a card count), and a template took several times as long to draw it.
    (Words are looked up outside the f-strings: xgettext does not read inside them.)"""
    number = seat["number"]
    classes = "seat-plate" + (" is-turn" if seat["to_act"] else "") + (" is-finished" if seat["place"] else "")
    name = escape(seat["name"])
    parts = [f'<!--tbl:plate-{number}--><div id="tbl-plate-{number}" class="{classes}">\n'
             f'<span class="seat-name">{name}</span>']
    if seat["rating"]:
        title, word, rating = escape(_("Rating (R10.10); ? while provisional")), escape(_("rating")), escape(seat["rating"])
        parts.append(f' <span class="seat-rating" title="{title}"><span class="visually-hidden">{word} </span>'
                     f'{rating}</span>')
    badges = []
    if seat["is_bot"]:
        word = escape(_("away") if seat["away"] else _("bot"))
        badges.append(f'<span class="badge">{word}</span>')
    if seat["autopilot"]:
        word = escape(_("autopilot"))
        badges.append(f'<span class="badge badge-warn">{word}</span>')
    place = seat["place"]
    if place:
        word = escape(str(PLACE_LABELS[min(place, 4) - 1]))
        badges.append(f'<span class="badge badge-place place-{place}">{word}</span>')
    count = seat["count"]
    if count is None:
        word = escape(_("more than 10 cards"))
        shown = f'<span aria-hidden="true">10+</span><span class="visually-hidden">{word}</span>'
    else:
        shown = ngettext("%(n)s card", "%(n)s cards", count) % {"n": count}
    title = escape(_("Cards in hand (R9.3)"))
    parts.append(f'\n<span class="seat-badges">{"".join(badges)}</span>\n'
                 f'<span class="seat-count" title="{title}">{shown}</span>\n')
    if deadline:
        seconds = escape(_("{n} s"))
        parts.append(f'<span class="timer" data-deadline="{escape(deadline)}" data-total="{think_time}" '
                     f'data-format="{seconds}" aria-hidden="true"></span>\n')
    parts.append("</div>\n")
    return "".join(parts)


def seat_last_html(seat: dict[str, Any]) -> str:
    """A seat's last play in the trick, marked when it is the top (inside its box)."""
    number = seat["number"]
    top = seat["is_top"]
    inner = ""
    if seat["last"]:
        if top:
            word = escape(_("Top"))
            inner = f'<span class="top-mark">{word}</span>'
        inner += move_markup(seat["last"])
    return f'<!--tbl:last-{number}--><div id="tbl-last-{number}" class="seat-last{" has-top" if top else ""}">{inner}</div>\n'


_seats = _SeatShells()


# --------------------------------------------------------------------------------------
# Private


@dataclass
class ViewerState:
    """What one page remembers between renders (not stored: a reload starts afresh)."""

    sort: str = "rank"
    selected: tuple[int, ...] = ()
    message: str = ""
    message_kind: str = "info"  # info | error | hint
    play_as: list[dict[str, Any]] = field(default_factory=list)
    coach: str = ""


def sorted_hand(hand: Sequence[int], level: int, mode: str) -> list[list[int]]:
    """The hand in groups for display: one group for rank and suit order; the bots'
    split into plays for ``combo`` (bombs and straight flushes kept whole)."""
    if mode == "suit":
        return [sorted(hand, key=lambda c: (SUIT_OF[c] if SUIT_OF[c] >= 0 else 9, card_strength(c, level), c))]
    if mode == "combo":
        from games.bots.grouping import group_hand

        return group_hand(hand, level)
    return [sorted(hand, key=lambda c: (card_strength(c, level), SUIT_OF[c], c))]


def private_context(scene: Scene, seat: int | None, viewer: ViewerState, *, with_hand: bool = True) -> dict[str, Any]:
    """What the viewer's own fragments are drawn from; without ``with_hand``, the hand's
    cards are left out (only its key is computed)."""
    state, infos = scene.state, scene.seats
    view = view_for(state, seat, history=False)  # the log is public: render_public draws it
    level = state.level
    to_act = seat is not None and seat in view["to_act"]
    choices = set(view["choices"] or ())
    if choices:
        # The engine offers one card per face (R8.3: the two copies are the same card);
        # either copy in the hand may be chosen, so neither looks refused.
        faces = {(RANK_OF[c], SUIT_OF[c]) for c in choices}
        choices |= {c for c in view["hand"] or () if (RANK_OF[c], SUIT_OF[c]) in faces}
    if seat is None:
        levels = {"first": _("Team A %(level)s") % {"level": shown_rank_char(view["levels"]["A"])},
                  "second": _("Team B %(level)s") % {"level": shown_rank_char(view["levels"]["B"])}}
    else:
        levels = {"first": _("Us %(level)s") % {"level": shown_rank_char(view["levels"]["us"])},
                  "second": _("Them %(level)s") % {"level": shown_rank_char(view["levels"]["them"])}}
    if state.is_over:
        turn_text = _("The deal is over.")
    elif to_act:
        turn_text = {
            "tribute": _("Your turn: choose the card to give as tribute."),
            "return": _("Your turn: choose the card to give back."),
        }.get(state.phase, _("Your turn to lead.") if state.leading else _("Your turn."))
    else:
        names = _(", ").join(seat_name(infos[s]) if s in infos else str(s + 1) for s in view["to_act"])
        turn_text = _("Waiting for %(names)s.") % {"names": names}
    info = infos.get(seat) if seat is not None else None
    # R8.4: the card given back to this seat for its tribute, which only its two seats
    # know, shown to its donor until the first lead (as the public notice of the tribute).
    returned_to_me = []
    if seat is not None and not state.history:
        for gift in view["tribute"]["gifts"]:
            if gift["from"] == seat and gift.get("returned") is not None:
                returned_to_me.append({"card": card_context(gift["returned"], level),
                                       "name": seat_name(infos[gift["to"]]) if gift["to"] in infos else ""})
    context = {
        "deal_id": scene.deal_id,
        "seq": state.step,
        "seat": seat,
        "seat_number": None if seat is None else seat + 1,
        "team": None if seat is None else ("A" if team_of(seat) == 0 else "B"),
        "levels": levels,
        "level": shown_rank_char(view["level"]),
        "wilds": cards_context(state.wilds, level),
        "wild_ids": tuple(state.wilds),
        "deal_number": scene.deal_number,
        "is_board": scene.kind == "tournament",  # R13.2: a tournament table plays boards
        "phase": state.phase,
        "phase_label": PHASE_LABELS[state.phase],
        "turn_text": turn_text,
        "to_act": to_act,
        "leading": state.leading,
        "hand_groups": [],
        "hand_count": len(view["hand"] or ()),
        "has_cards": bool(view["hand"]),
        "selected": set(viewer.selected),
        "choices": choices,
        "partner": None,
        "viewer": viewer,
        "sort_modes": SORT_MODES,
        "auto_play": None if info is None else info.auto_play,
        "returned_to_me": returned_to_me,
        "autopilot": bool(seat is not None and view["autopilot"][seat]),
        "auto_intervals": ("0.3", "0.5", "1", "2", "3", "4", "5"),
        # R10.8: suggestions and auto play are offered at friend and practice tables only.
        "assisted": scene.kind in ("friend", "practice"),  # R10.8
        "over": state.is_over,
        # What the hand fragment is drawn from: equal keys draw equal hands (see PrivateParts).
        "hand_key": (scene.deal_id, seat, tuple(view["hand"] or ()), tuple(view["partner_hand"] or ()),
                     viewer.sort, tuple(sorted(viewer.selected)), tuple(sorted(choices)), level),
    }
    if with_hand:
        _add_hand(context, view["hand"] or (), view["partner_hand"], level, viewer.sort)
    return context


def _add_hand(context: dict[str, Any], hand: Sequence[int], partner_hand: Sequence[int] | None,
              level: int, sort: str) -> None:
    """The seat's cards in ``context`` (grouped by ``sort``; none for a spectator), and
    its partner's after R9.4."""
    if context["seat"] is not None:
        context["hand_groups"] = [cards_context(group, level) for group in sorted_hand(hand, level, sort)]
    if partner_hand:
        context["partner"] = cards_context(partner_hand, level)


def shown_rank_char(char: str) -> str:
    return "10" if char == "T" else char


def counter_context(view: dict[str, Any]) -> dict[str, Any]:
    """The card counter (记牌器): how many cards of each rank are still out, from the
    seat's own knowledge only: its view's hand and the deal's public plays (the same
    unseen cards a bot reasons from, ``games.bots.view.Seen``). Strongest first: the big
    and small jokers, the level rank's naturals and its wild hearts, then A down to 2."""
    seen = Seen.from_view(view)
    naturals, wilds = seen.unseen_counts()
    level = seen.level
    cells = [{"rank": "BJ", "label": _("big joker"), "short": pgettext("card counter", "BJ"),
              "count": naturals[BIG_JOKER], "of": 2, "joker": "bj"},
             {"rank": "SJ", "label": _("small joker"), "short": pgettext("card counter", "SJ"),
              "count": naturals[SMALL_JOKER], "of": 2, "joker": "sj"}]
    shown = shown_rank_char(shown_rank(level))
    cells.append({"rank": shown, "label": _("%(rank)s (level, not wild)") % {"rank": shown}, "short": shown,
                  "count": naturals[level], "of": 6, "level": True})
    cells.append({"rank": "wild", "label": _("wild hearts"), "short": "\u2665" + shown,
                  "count": wilds, "of": 2, "wild": True})
    for rank in range(ACE, -1, -1):
        if rank != level:
            shown = shown_rank_char(shown_rank(rank))
            cells.append({"rank": shown, "label": shown, "short": shown, "count": naturals[rank], "of": 8})
    return {"cells": cells, "total": sum(naturals) + wilds}


def render_counter(scene: Scene, seat: int | None) -> str:
    """``#tbl-counter`` for a seated viewer at a table that offers it (R10.8), else ""."""
    if seat is None or not scene.card_counter:
        return ""
    return compact(render_to_string("live/_counter.html", counter_context(view_for(scene.state, seat))))


@dataclass(frozen=True)
class PrivateParts:
    """A viewer's own fragments: ``#tbl-status``, ``#tbl-hand``, ``#tbl-controls`` and,
    where the table offers it, the card counter ``#tbl-counter``.

    ``hand_key`` says what the hand was drawn from (deal, seat, cards, partner's cards
    after R9.4, sort, selection, choices), so a page can leave its hand alone when another
    seat's move did not change it: the hand is most of a page's HTML, and not redrawing
    it keeps a selection the player is still making in the browser.
    """

    status: str
    hand: str
    controls: str
    hand_key: tuple
    counter: str = ""
    # The status's and the controls' regions as their shells give them (``_Shells``).
    status_regions: tuple = ()
    controls_regions: tuple = ()

    def html(self, *, with_hand: bool = True) -> str:
        return self.status + (self.hand if with_hand else "") + self.controls + self.counter

    def regions(self) -> tuple[tuple[str, str], ...]:
        """The regions of ``html()`` (``regions_of``), without scanning it again."""
        return (self.status_regions + (regions_of(self.hand) if self.hand else ())
                + self.controls_regions + (regions_of(self.counter) if self.counter else ()))


def render_private_parts(scene: Scene, seat: int | None, viewer: ViewerState, *, skip_hand: tuple | None = None
                         ) -> PrivateParts:
    """The viewer's own fragments, from that seat's view only (a spectator's with
    ``seat=None``). With ``skip_hand`` equal to the new hand key, the hand is not drawn
    (``hand`` is "")."""
    context = private_context(scene, seat, viewer, with_hand=False)
    key = context["hand_key"]
    hand = ""
    if skip_hand != key:
        # The key holds the seat's cards and its partner's (R9.4) as the view gave them.
        _add_hand(context, key[2], key[3], scene.state.level, viewer.sort)
        hand = compact(render_to_string("live/_hand.html", context))
    language = get_language()
    status, status_regions = _shells.draw("live/_status.html", context, STATUS_KEYS, language)
    controls, controls_regions = _shells.draw("live/_controls.html", context, CONTROLS_KEYS, language)
    return PrivateParts(status, hand, controls, key, render_counter(scene, seat), status_regions, controls_regions)


# What the status and controls fragments show, besides the step they belong to: equal
# values draw equal fragments but for the step (see _Shells). The phase's label is the
# phase's in the key's language: the phase stands for it (hashing the lazy label
# translated it at every page).
STATUS_KEYS = ("levels", "level", "wild_ids", "deal_number", "is_board", "turn_text", "to_act", "phase", "leading")
# Not ``leading``, and in the play phase not ``to_act`` either: the pass, suggestion and
# play buttons are drawn disabled and the page enables them by the status's ``data-turn``
# (static/live/table.js), so the controls are not sent again each time the turn moves.
CONTROLS_KEYS = ("seat", "over", "phase", "to_act", "autopilot", "auto_play", "has_cards", "assisted", "returned_to_me")


class _Shells:
    """The status and controls fragments drawn once per process for each combination of
    what they show, with the step (deal and sequence number) filled in per page.

    Of a table's four pages, three only wait at each step, and the fragments they are
    shown repeat: drawing them again from the templates was most of a page's work.
    The viewer's own message, "play as" offers, coach's note and sort mode are part of
    the key; so is the language.
    """

    SIZE = 4096
    DEAL, SEQ = "\x00deal\x00", "\x00seq\x00"

    def __init__(self):
        self._drawn: dict[tuple, str] = {}
        self._lock = threading.Lock()

    def draw(self, template: str, context: dict[str, Any], keys: tuple[str, ...], language: str | None = None
             ) -> tuple[str, tuple[tuple[str, str], ...]]:
        """``template`` drawn from ``context`` in ``language`` (the active one, which the
        caller may have read already), and its regions (``regions_of``), split once per
        shell."""
        viewer = context["viewer"]
        key = (template, language or get_language(), tuple(_frozen(context[k]) for k in keys), viewer.message,
               viewer.message_kind, viewer.coach, viewer.sort, tuple(r["name"] for r in viewer.play_as))
        with self._lock:
            drawn = self._drawn.get(key)
        if drawn is None:
            shell = compact(render_to_string(template, dict(context, deal_id=self.DEAL, seq=self.SEQ)))
            drawn = (shell, tuple((name, part, self.DEAL in part or self.SEQ in part) for name, part in regions_of(shell)))
            with self._lock:
                if len(self._drawn) >= self.SIZE:
                    self._drawn.clear()
                self._drawn[key] = drawn
        shell, regions = drawn
        deal, seq = str(context["deal_id"]), str(context["seq"])
        return (shell.replace(self.DEAL, deal).replace(self.SEQ, seq),
                tuple((name, part.replace(self.DEAL, deal).replace(self.SEQ, seq) if filled else part)
                      for name, part, filled in regions))


def _frozen(value):
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


_shells = _Shells()


def render_private(scene: Scene, seat: int | None, viewer: ViewerState) -> str:
    """The viewer's own fragments as one piece of HTML."""
    return render_private_parts(scene, seat, viewer).html()


def play_as_options(state: DealState, cards: Sequence[int]) -> list[Reading]:
    """R3.5: the readings the selected cards may be played as now (leads: every reading;
    follows: those that beat the top)."""
    top = state.top_reading
    if top is None:
        return readings_of(list(cards), state.level)
    return beating_readings(list(cards), state.level, top)


def now_iso() -> str:
    return timezone.now().isoformat()
