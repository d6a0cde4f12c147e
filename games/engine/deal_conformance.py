"""The deal-level ops of the rules conformance interface (rules/CONFORMANCE.md).

``games.engine.conformance`` hands the ``tribute``, ``returns``, ``settle`` and ``deal``
requests to these functions. Faces are in R1.4 notation, levels are rank characters,
seats are 0-3. Each function answers through the same engine functions the site uses:
``plan_tribute``, ``return_candidates``, ``settle``, ``start_play`` and ``apply``.

>>> op_settle({"levels": ["K", "5"], "active": "K", "places": [0, 2, 1, 3]})
{'levels': ['A', '5'], 'winner_team': 0, 'advance': 3, 'match_over': False}
>>> op_returns({"level": "5", "hand": ["JS", "QC", "KD", "AS", "5S", "BJ"]})
{'eligible': ['JS']}
>>> op_deal({"level": "2", "hands": [["3S"], ["4S", "5D"], ["6S"], ["8S", "TD"]], "leader": 0,
...          "actions": [{"seat": 0, "play": ["3S"]}, {"seat": 1, "pass": True},
...                      {"seat": 2, "pass": True}]})
{'ok': True, 'over': False, 'places': [0], 'turn': 3, 'leading': False}
"""

from __future__ import annotations

from typing import Any, Sequence

from .cards import FACE_OF, ids_of_face, parse_faces, rank_char, rank_index
from .deal import (
    PASS, PLAY, Action, DealState, apply, plan_tribute, return_candidates, settle,
    start_play,
)
from .errors import RuleError
from .reading import Reading

__all__ = ["op_tribute", "op_returns", "op_settle", "op_deal"]


def _level(value: Any, field: str = "level") -> int:
    if not isinstance(value, str):
        raise ValueError(f"R2.1: {field} must be a rank character such as '7' or 'T'")
    level = rank_index(value)
    if level > 12:
        raise ValueError(f"R2.1: {value!r} is not a level")
    return level


def _faces(value: Any, field: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(f, str) for f in value):
        raise ValueError(f"{field!r} must be a list of card faces")
    return value


def _seat(value: Any, field: str) -> int:
    if type(value) is not int or not 0 <= value <= 3:
        raise ValueError(f"R1.1: {field} {value!r} is not a seat (0-3)")
    return value


def _places(value: Any, field: str) -> tuple[int, int, int, int]:
    if not isinstance(value, list) or len(value) != 4:
        raise ValueError(f"R6.5: {field} must list the four seats, 1st to 4th")
    places = tuple(_seat(s, field) for s in value)
    if sorted(places) != [0, 1, 2, 3]:
        raise ValueError(f"R6.5: {field} must list each seat once")
    return places  # type: ignore[return-value]


def _hands(value: Any) -> list[list[int]]:
    """Four hands of faces as distinct physical ids: across the whole table a face is
    at most two physical cards (R1.3), so the ids are assigned jointly."""
    if not isinstance(value, list) or len(value) != 4:
        raise ValueError("R1.1: 'hands' must hold four hands")
    hands = [_faces(h, "hands") for h in value]
    ids = parse_faces([f for h in hands for f in h])
    out, start = [], 0
    for hand in hands:
        out.append(ids[start:start + len(hand)])
        start += len(hand)
    return out


def op_tribute(req: dict[str, Any]) -> dict[str, Any]:
    """R8.1, R8.2, R8.5, R8.6: gifts (donor, recipient, rank), resistance, first lead."""
    level = _level(req.get("level"))
    places = _places(req.get("prev_places"), "prev_places")
    tribute, lead = plan_tribute(_hands(req.get("hands")), level, places)
    return {
        "resist": tribute.resisted,
        "gifts": [{"from": g.donor, "to": g.recipient, "rank": rank_char(g.rank)}
                  for g in tribute.gifts],
        "lead": lead,
    }


def op_returns(req: dict[str, Any]) -> dict[str, Any]:
    """R8.4: the distinct faces a recipient may return (the gift not in ``hand``)."""
    level = _level(req.get("level"))
    hand = parse_faces(_faces(req.get("hand"), "hand"))
    faces = sorted({FACE_OF[c] for c in return_candidates(hand, level)})
    return {"eligible": faces}


def op_settle(req: dict[str, Any]) -> dict[str, Any]:
    """R7: levels after the deal, winning team, advance, match over."""
    levels = req.get("levels")
    if not isinstance(levels, list) or len(levels) != 2:
        raise ValueError("R2.1: 'levels' must hold the two teams' levels")
    before = (_level(levels[0], "levels"), _level(levels[1], "levels"))
    result = settle(before, _level(req.get("active"), "active"), _places(req.get("places"), "places"))
    return {
        "levels": [rank_char(x) for x in result.levels],
        "winner_team": result.winner_team,
        "advance": result.advance,
        "match_over": result.match_over,
    }


def _cards_from_hand(state: DealState, seat: int, faces: Sequence[str]) -> tuple[int, ...]:
    """The physical ids in ``seat``'s hand for these faces (R9.1: only cards held)."""
    hand = state.hands[seat]
    chosen: list[int] = []
    for text in faces:
        try:
            copies = ids_of_face(text)
        except ValueError as exc:
            raise RuleError.from_reason(str(exc)) from None
        card = next((c for c in copies if c in hand and c not in chosen), None)
        if card is None:
            raise RuleError("R9.1", f"{text} is not in seat {seat + 1}'s hand")
        chosen.append(card)
    return tuple(chosen)


def _action(state: DealState, data: Any) -> Action:
    if not isinstance(data, dict):
        raise RuleError("R9.1", "an action must be an object")
    seat = data.get("seat")
    if type(seat) is not int or not 0 <= seat <= 3:
        raise RuleError("R1.1", f"{seat!r} is not a seat (0-3)")
    if data.get("pass") is True:
        if "play" in data:
            raise RuleError("R6.2", "an action either plays or passes")
        return Action(PASS, seat)
    faces = data.get("play")
    if not isinstance(faces, list) or not all(isinstance(f, str) for f in faces):
        raise RuleError("R9.1", "an action is a pass or a play of a list of faces")
    reading = None
    if data.get("as") is not None:
        try:
            reading = Reading.from_json(data["as"])
        except ValueError as exc:
            raise RuleError.from_reason(str(exc)) from None
    return Action(PLAY, seat, _cards_from_hand(state, seat, faces), reading)


def op_deal(req: dict[str, Any]) -> dict[str, Any]:
    """R6: play the actions from the first lead; stop at the first illegal one."""
    actions = req.get("actions")
    if not isinstance(actions, list):
        raise ValueError("'actions' must be a list")
    state = start_play(hands=_hands(req.get("hands")), level=_level(req.get("level")),
                       leader=_seat(req.get("leader"), "leader"))
    for index, data in enumerate(actions):
        try:
            state = apply(state, _action(state, data))
        except RuleError as exc:
            return {"ok": False, "index": index, "error": str(exc)}
    return {
        "ok": True,
        "over": state.is_over,
        "places": list(state.finished),
        "turn": state.turn,
        "leading": state.leading,
    }
