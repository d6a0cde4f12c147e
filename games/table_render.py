"""HTML fragments of a table in play, each rendered for exactly one kind of viewer.

Two families (docs/architecture.md, "Realtime and hidden information"):

- public fragments (``#tbl-seats``, ``#tbl-trick``, ``#tbl-log``): built from the
  spectator's view (``view_for(state, None)``), so they can only hold what everybody may
  see; rendered once per change and sent to every page of the table;
- private fragments (``#tbl-status``, ``#tbl-hand``, ``#tbl-controls``): rendered from
  one seat's own view for that seat's page only.

Every card drawn carries ``data-card="<id>"`` so tests can scan payloads for cards a
viewer may not see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts import career
from accounts.selectors import display_name_of

from .engine.cards import RANK_OF, SUIT_OF, card_strength, is_wild
from .engine.combos import beating_readings, readings_of
from .engine.deal import DealState, team_of
from .engine.reading import Reading, shown_rank
from .engine.replay import state_from_json
from .engine.views import view_for
from .models import Deal, Seat, Table

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
    """What a template needs to draw one physical card."""
    rank = RANK_OF[card_id]
    suit = SUIT_OF[card_id]
    if rank >= 13:
        return {
            "id": card_id, "joker": True, "big": rank == 14, "rank": _("JOKER"),
            "suit": "", "suit_class": "bj" if rank == 14 else "sj", "wild": False,
            "name": card_label(card_id, level),
        }
    return {
        "id": card_id, "joker": False, "rank": shown_rank(rank), "suit": SUIT_SYMBOLS[suit],
        "suit_class": SUIT_CLASSES[suit], "wild": is_wild(card_id, level),
        "name": card_label(card_id, level),
    }


def cards_context(card_ids: Iterable[int], level: int) -> list[dict[str, Any]]:
    return [card_context(c, level) for c in card_ids]


@dataclass
class SeatInfo:
    position: int
    name: str
    is_bot: bool
    autopilot: bool = False
    away: bool = False


def seat_infos(table: Table) -> dict[int, SeatInfo]:
    infos = {}
    for seat in table.seats.select_related("user__profile", "away_user__profile"):
        if seat.is_bot:
            if seat.away_user_id:
                name = _("%(name)s (bot playing)") % {"name": display_name_of(seat.away_user)}
            else:
                name = _("Bot %(number)s") % {"number": seat.position + 1}
            infos[seat.position] = SeatInfo(seat.position, name, True, away=bool(seat.away_user_id))
        else:
            infos[seat.position] = SeatInfo(seat.position, display_name_of(seat.user), False, seat.autopilot)
    return infos


def _move_context(move: dict, level: int, infos: dict[int, SeatInfo]) -> dict[str, Any]:
    reading = move.get("reading")
    return {
        "seat": move["seat"],
        "number": move["seat"] + 1,
        "name": infos[move["seat"]].name if move["seat"] in infos else "",
        "pass": not move["cards"],
        "cards": cards_context(move["cards"], level),
        "reading": Reading.from_json(reading).name if reading else "",
        "actor": move.get("actor", "human"),
    }


# --------------------------------------------------------------------------------------
# Public


def public_context(table: Table, deal: Deal, state: DealState, infos: dict[int, SeatInfo]) -> dict[str, Any]:
    view = view_for(state, None)
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
            "name": info.name,
            "is_bot": info.is_bot,
            "away": info.away,
            "autopilot": bool(view["autopilot"][position]) or info.autopilot,
            "count": view["counts"][position],
            "to_act": position in view["to_act"],
            "place": place,
            "last": _move_context(last, level, infos) if last else None,
        })
    deadline = deal.deadline.isoformat() if deal.deadline and not state.is_over else ""
    top = view["top"]
    gifts = []
    for gift in view["tribute"]["gifts"]:
        gifts.append({
            "from": gift["from"] + 1,
            "to": gift["to"] + 1,
            "rank": gift["rank"],
            "card": card_context(gift["card"], level) if gift["card"] is not None else None,
            "returned": gift["returned_done"],
        })
    result = None
    if state.is_over and deal.result:
        result = {
            "places": [p + 1 for p in deal.result["places"]],
            "explanation": deal.result["explanation"],
            "match_over": deal.result["match_over"],
            "winner": "A" if deal.result["winner_team"] == 0 else "B",
            "points": _winner_points(table, deal.result),
        }
    history = [_move_context(m, level, infos) for m in view["history"][-12:]]
    return {
        "table": table,
        "deal": deal,
        "seq": state.step,
        "seats": seats,
        "deadline": deadline,
        "think_time": table.think_time,
        "phase": state.phase,
        "trick": [_move_context(m, level, infos) for m in view["trick"]],
        "top": _move_context(top, level, infos) if top else None,
        "lead_seat": state.lead_seat + 1,
        "tribute": {"kind": view["tribute"]["kind"], "resisted": view["tribute"]["resisted"], "gifts": gifts},
        "result": result,
        "history": list(reversed(history)),
        "match_status": deal.match.status,
        "match_winner": None if deal.match.winner_team is None else ("A" if deal.match.winner_team == 0 else "B"),
    }


def _winner_points(table: Table, result: dict) -> int:
    """R10.6: what each registered winner earned for this deal (0 off match tables)."""
    if not table.awards_points:
        return 0
    factor = career.tier_factor(table.tier)
    return result["advance"] * factor + (career.MATCH_WIN_BONUS * factor if result["match_over"] else 0)


def render_public(table: Table, deal: Deal, state: DealState | None = None, infos=None) -> str:
    """The public fragments, the same for every viewer of the table."""
    state = state or state_from_json(deal.state)
    infos = infos if infos is not None else seat_infos(table)
    return render_to_string("games/table/_public.html", public_context(table, deal, state, infos))


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
        from .bots.grouping import group_hand

        return group_hand(hand, level)
    return [sorted(hand, key=lambda c: (card_strength(c, level), SUIT_OF[c], c))]


def private_context(table: Table, deal: Deal, state: DealState, seat: int | None, viewer: ViewerState,
                    infos: dict[int, SeatInfo], seat_row: Seat | None = None) -> dict[str, Any]:
    view = view_for(state, seat)
    level = state.level
    to_act = seat is not None and seat in view["to_act"]
    hand_groups = []
    if seat is not None:
        hand_groups = [cards_context(group, level) for group in sorted_hand(view["hand"], level, viewer.sort)]
    partner = None
    if view["partner_hand"]:
        partner = cards_context(view["partner_hand"], level)
    choices = set(view["choices"] or ())
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
        names = ", ".join(infos[s].name if s in infos else str(s + 1) for s in view["to_act"])
        turn_text = _("Waiting for %(names)s.") % {"names": names}
    return {
        "table": table,
        "deal": deal,
        "seq": state.step,
        "seat": seat,
        "seat_number": None if seat is None else seat + 1,
        "team": None if seat is None else ("A" if team_of(seat) == 0 else "B"),
        "levels": levels,
        "level": shown_rank_char(view["level"]),
        "wilds": cards_context(state.wilds, level),
        "deal_number": deal.number,
        "phase": state.phase,
        "phase_label": PHASE_LABELS[state.phase],
        "turn_text": turn_text,
        "to_act": to_act,
        "leading": state.leading,
        "hand_groups": hand_groups,
        "hand_count": len(view["hand"] or ()),
        "selected": set(viewer.selected),
        "choices": choices,
        "partner": partner,
        "viewer": viewer,
        "sort_modes": SORT_MODES,
        "auto_play": None if seat_row is None else seat_row.auto_play,
        "autopilot": bool(seat is not None and view["autopilot"][seat]),
        "auto_intervals": ("0.3", "0.5", "1", "2", "3", "4", "5"),
        "over": state.is_over,
    }


def shown_rank_char(char: str) -> str:
    return "10" if char == "T" else char


def render_private(table: Table, deal: Deal, state: DealState, seat: int | None, viewer: ViewerState,
                   infos=None, seat_row: Seat | None = None) -> str:
    infos = infos if infos is not None else seat_infos(table)
    return render_to_string("games/table/_private.html",
                            private_context(table, deal, state, seat, viewer, infos, seat_row))


def play_as_options(state: DealState, cards: Sequence[int]) -> list[Reading]:
    """R3.5: the readings the selected cards may be played as now (leads: every reading;
    follows: those that beat the top)."""
    top = state.top_reading
    if top is None:
        return readings_of(list(cards), state.level)
    return beating_readings(list(cards), state.level, top)


def now_iso() -> str:
    return timezone.now().isoformat()
