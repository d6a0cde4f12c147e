"""What one viewer may see of a deal (R9.3-R9.5), as a JSON-able dict.

``view_for(state, seat)`` is the only way the rest of the site learns about a deal in
progress, so it holds exactly what that viewer may know and no more:

- the viewer's own hand (physical ids, shown in strength order);
- each seat's card count, exact once it is 10 or fewer, else None for "more than 10"
  (R9.3);
- once the viewer has finished, its partner's remaining hand (R9.4);
- the current trick and the deal's whole play history (plays are public);
- tribute gifts once given (public); a returned card only to its two seats;
- levels from the viewer's side, "us" and "them" (R9.5); a spectator (``seat`` None)
  sees teams A and B; the active level and the two wild cards;
- places, the phase, who acts, and the result once the deal is over.

A tribute's donor, recipient and rank are shown from the start of the deal, before the
card is handed over (R8.1, R8.2): the rules fix them when the deal starts, the card itself
is public the moment it is given, and until then only the donors act, whose one choice
left is the suit (R8.3). So no seat can act on them before they are public anyway.

Once the deal is over everything is public (the replay is), so the view then also holds
every hand. Card ids appear only under the keys in ``CARD_FIELDS``; ``cards_in_view``
collects them (tests use it to prove that no hidden card leaks).

>>> from games.engine.deal import new_deal, deal_hands
>>> state = new_deal(hands=deal_hands(5), level=0, team_levels=(0, 0), prev_places=None, seed=5)
>>> view = view_for(state, 1)
>>> sorted(view["hand"]) == sorted(state.hands[1]), view["counts"], view["levels"]
(True, [None, None, None, None], {'us': '2', 'them': '2'})
>>> cards_in_view(view_for(state, None))
set()
"""

from __future__ import annotations

from typing import Any, Iterable

from .cards import FACE_OF, rank_char, sort_key
from .deal import (
    DealState, Gift, Move, Settlement, partner_of, team_name, team_of, legal_actions,
)

__all__ = ["view_for", "cards_in_view", "CARD_FIELDS", "visible_hands", "public_count",
           "move_view", "settlement_view", "PUBLIC_COUNT_LIMIT"]

# R9.3: counts are shown exactly from this many cards down.
PUBLIC_COUNT_LIMIT = 10

# Every key under which a view holds physical card ids (lists, or one id).
CARD_FIELDS = frozenset({"hand", "partner_hand", "hands", "dealt", "cards", "card",
                         "returned", "choices"})


def public_count(count: int) -> int | None:
    """R9.3: the card count the table shows: exact at 10 or fewer, else None."""
    return count if count <= PUBLIC_COUNT_LIMIT else None


def _sorted_hand(cards: Iterable[int], level: int) -> list[int]:
    return sorted(cards, key=lambda c: sort_key(c, level))


def visible_hands(state: DealState, seat: int | None) -> dict[int, tuple[int, ...]]:
    """The hands (seat -> cards) the viewer may see now: its own; its partner's once the
    viewer has finished (R9.4); all of them once the deal is over."""
    if state.is_over:
        return dict(enumerate(state.hands))
    if seat is None:
        return {}
    out = {seat: state.hands[seat]}
    if seat in state.finished:
        out[partner_of(seat)] = state.hands[partner_of(seat)]
    return out


def move_view(move: Move) -> dict[str, Any]:
    """One play or pass, as the table shows it."""
    if move.reading is None:
        return {"seat": move.seat, "pass": True, "cards": [], "reading": None, "name": "pass",
                "trick": move.trick, "actor": move.actor}
    return {"seat": move.seat, "pass": False, "cards": list(move.cards),
            "reading": move.reading.to_json(), "name": move.reading.name,
            "trick": move.trick, "actor": move.actor}


def settlement_view(settlement: Settlement, seat: int | None) -> dict[str, Any]:
    """R7 and R9.6: the promotion explained, with levels from the viewer's side."""
    return {
        "places": list(settlement.places),
        "winner_team": team_name(settlement.winner_team),
        "winner_is_us": None if seat is None else team_of(seat) == settlement.winner_team,
        "advance": settlement.advance,
        "levels": _levels(settlement.levels, seat),
        "levels_before": _levels(settlement.levels_before, seat),
        "match_over": settlement.match_over,
        "explanation": settlement.explanation,
    }


def _levels(levels: tuple[int, int], seat: int | None) -> dict[str, str]:
    """R9.5: "us" and "them" for a seat; teams A and B for a spectator."""
    if seat is None:
        return {"A": rank_char(levels[0]), "B": rank_char(levels[1])}
    us = team_of(seat)
    return {"us": rank_char(levels[us]), "them": rank_char(levels[1 - us])}


def _gift_view(gift: Gift, seat: int | None, over: bool) -> dict[str, Any]:
    # R8: a tribute gift is shown to the whole table; the card given back is seen only
    # by the two seats involved until the deal is over.
    sees_return = over or seat in (gift.donor, gift.recipient)
    return {
        "from": gift.donor,
        "to": gift.recipient,
        "rank": rank_char(gift.rank),
        "given": gift.card is not None,
        "card": gift.card,
        "returned_done": gift.returned is not None,
        "returned": gift.returned if sees_return else None,
    }


def view_for(state: DealState, seat: int | None, *, history: bool = True) -> dict[str, Any]:
    """Everything ``seat`` may see of ``state`` (a spectator when ``seat`` is None).

    ``history=False`` leaves the public history out (``"history": None``), for a caller
    that does not read it: it is the one part of a view that grows with the deal."""
    if seat is not None and seat not in (0, 1, 2, 3):
        raise ValueError(f"R1.1: {seat!r} is not a seat")
    over = state.is_over
    level = state.level
    hands = visible_hands(state, seat)
    counts = [len(h) if over else public_count(len(h)) for h in state.hands]
    partner_hand = None
    if seat is not None and not over and partner_of(seat) in hands:
        partner_hand = _sorted_hand(hands[partner_of(seat)], level)
    to_act = list(state.to_act)
    choices = None
    if seat is not None and seat in to_act and state.phase in ("tribute", "return"):
        # The cards the viewer may give now: all from its own hand.
        choices = [a.cards[0] for a in legal_actions(state, seat)]
    view: dict[str, Any] = {
        "version": state.version,
        "step": state.step,
        "viewer": seat,
        "team": None if seat is None else team_name(team_of(seat)),
        "phase": state.phase,
        "level": rank_char(level),
        "wilds": [FACE_OF[c] for c in state.wilds],
        "levels": _levels(state.team_levels, seat),
        "hand": None if seat is None else _sorted_hand(state.hands[seat], level),
        "partner_hand": partner_hand,
        "counts": counts,
        "to_act": to_act,
        "turn": state.turn,
        "leading": state.leading,
        "lead_seat": state.lead_seat,
        "top": None if state.top is None else move_view(state.top),
        "trick": [move_view(m) for m in state.trick],
        "history": [move_view(m) for m in state.history] if history else None,
        "finished": list(state.finished),
        "tribute": {
            "kind": state.tribute.kind,
            "resisted": state.tribute.resisted,
            "gifts": [_gift_view(g, seat, over) for g in state.tribute.gifts],
        },
        "choices": choices,
        "autopilot": list(state.autopilot),
        "result": None,
    }
    if over and state.result is not None:
        view["result"] = settlement_view(state.result.settlement, seat)
        view["hands"] = [_sorted_hand(h, level) for h in state.hands]
        view["dealt"] = [_sorted_hand(h, level) for h in state.dealt]
    return view


def cards_in_view(view: Any) -> set[int]:
    """Every physical card id a view holds (under the keys of ``CARD_FIELDS``)."""
    found: set[int] = set()

    def walk(node: Any, card_field: bool) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, key in CARD_FIELDS)
        elif isinstance(node, (list, tuple)):
            for value in node:
                walk(value, card_field)
        elif card_field and isinstance(node, int) and not isinstance(node, bool):
            found.add(node)

    walk(view, False)
    return found
