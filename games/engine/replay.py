"""Replays and storage: states and actions to JSON and back, and folding a log (R11.1).

A deal is fully determined by its first state (ruleset version, dealt hands, levels,
previous places, seed) and its ordered action log. ``fold`` replays the log through
``deal.apply``; ``states`` keeps every intermediate state. Actions carry their actor
(human, bot, timeout, autopilot) because the timeout counters are part of the state
(R9.2). The JSON forms are lossless: ``state_from_json(state_to_json(s)) == s``.

>>> from games.engine.simulate import play_out
>>> from games.engine.deal import new_deal, deal_hands
>>> import json, random
>>> first = new_deal(hands=deal_hands(2), level=0, team_levels=(0, 0), prev_places=None, seed=2)
>>> final, log = play_out(first, random.Random(2))
>>> fold(first, log) == final
True
>>> state_from_json(json.loads(json.dumps(state_to_json(final)))) == final
True
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from .deal import (
    ACTION_KINDS, ACTORS, Action, DealResult, DealState, Gift, Move, Settlement, Tribute,
    apply,
)
from .errors import RuleError
from .match import Match
from .reading import Reading

__all__ = [
    "fold", "states", "state_to_json", "state_from_json", "action_to_json",
    "action_from_json", "log_to_json", "log_from_json", "match_to_json",
    "match_from_json", "settlement_to_json", "settlement_from_json",
]


def fold(initial: DealState, actions: Iterable[Action]) -> DealState:
    """Replay ``actions`` from ``initial``; the result equals the live state."""
    state = initial
    for action in actions:
        state = apply(state, action)
    return state


def states(initial: DealState, actions: Iterable[Action]) -> list[DealState]:
    """Every state of the replay: ``initial`` first, then one after each action."""
    out = [initial]
    for action in actions:
        out.append(apply(out[-1], action))
    return out


# --------------------------------------------------------------------------------------
# Readings and moves


def _reading_to_json(reading: Reading | None) -> dict[str, Any] | None:
    return None if reading is None else reading.to_json()


def _reading_from_json(data: Any) -> Reading | None:
    return None if data is None else Reading.from_json(data)


def _move_to_json(move: Move) -> dict[str, Any]:
    return {"seat": move.seat, "cards": list(move.cards),
            "reading": _reading_to_json(move.reading), "trick": move.trick,
            "actor": move.actor}


def _move_from_json(data: dict[str, Any]) -> Move:
    return Move(int(data["seat"]), _ids(data["cards"]), _reading_from_json(data["reading"]),
                int(data["trick"]), str(data["actor"]))


def _ids(values: Any) -> tuple[int, ...]:
    if not isinstance(values, (list, tuple)):
        raise ValueError("a card list must be a list of ids")
    out = []
    for value in values:
        if type(value) is not int or not 0 <= value < 108:
            raise ValueError(f"R1.4: {value!r} is not a card id (0-107)")
        out.append(value)
    return tuple(out)


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


# --------------------------------------------------------------------------------------
# Actions


def action_to_json(action: Action) -> dict[str, Any]:
    """An action as stored in the log: kind, seat, card ids, declared reading, actor."""
    return {"kind": action.kind, "seat": action.seat, "cards": list(action.cards),
            "reading": _reading_to_json(action.reading), "actor": action.actor}


def action_from_json(data: Any) -> Action:
    """Parse a stored or submitted action; malformed input raises ``RuleError`` (R9.1)."""
    if not isinstance(data, dict):
        raise RuleError("R9.1", "an action must be an object")
    kind = data.get("kind")
    if kind not in ACTION_KINDS:
        raise RuleError("R9.1", f"{kind!r} is not an action ({', '.join(ACTION_KINDS)})")
    seat = data.get("seat")
    if type(seat) is not int or not 0 <= seat <= 3:
        raise RuleError("R1.1", f"{seat!r} is not a seat (0-3)")
    actor = data.get("actor", "human")
    if actor not in ACTORS:
        raise RuleError("R9.2", f"{actor!r} is not an actor ({', '.join(ACTORS)})")
    try:
        cards = _ids(data.get("cards", []))
        reading = _reading_from_json(data.get("reading"))
    except ValueError as exc:
        raise RuleError.from_reason(str(exc)) from None
    return Action(kind, seat, cards, reading, actor)


def log_to_json(actions: Sequence[Action]) -> list[dict[str, Any]]:
    return [action_to_json(a) for a in actions]


def log_from_json(data: Sequence[Any]) -> list[Action]:
    return [action_from_json(a) for a in data]


# --------------------------------------------------------------------------------------
# Settlements and states


def settlement_to_json(s: Settlement) -> dict[str, Any]:
    return {"levels_before": list(s.levels_before), "active": s.active,
            "places": list(s.places), "levels": list(s.levels),
            "winner_team": s.winner_team, "advance": s.advance,
            "match_over": s.match_over, "explanation": s.explanation}


def settlement_from_json(data: dict[str, Any]) -> Settlement:
    return Settlement(
        levels_before=tuple(int(x) for x in data["levels_before"]),  # type: ignore[arg-type]
        active=int(data["active"]), places=tuple(int(x) for x in data["places"]),  # type: ignore[arg-type]
        levels=tuple(int(x) for x in data["levels"]),  # type: ignore[arg-type]
        winner_team=int(data["winner_team"]), advance=int(data["advance"]),
        match_over=bool(data["match_over"]), explanation=str(data["explanation"]),
    )


def _result_to_json(result: DealResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {"places": list(result.places), "settlement": settlement_to_json(result.settlement)}


def _result_from_json(data: Any) -> DealResult | None:
    if data is None:
        return None
    return DealResult(tuple(int(x) for x in data["places"]),  # type: ignore[arg-type]
                      settlement_from_json(data["settlement"]))


def _gift_to_json(g: Gift) -> dict[str, Any]:
    return {"donor": g.donor, "recipient": g.recipient, "rank": g.rank, "card": g.card,
            "returned": g.returned}


def _gift_from_json(data: dict[str, Any]) -> Gift:
    return Gift(int(data["donor"]), int(data["recipient"]), int(data["rank"]),
                _opt_int(data["card"]), _opt_int(data["returned"]))


def state_to_json(state: DealState, *, since: tuple[DealState, dict[str, Any]] | None = None) -> dict[str, Any]:
    """A deal state as plain JSON (lists, numbers, strings), lossless.

    ``since`` is an earlier state of the same deal and its JSON: the moves both
    histories share are taken from that JSON (the history is most of a late state's
    JSON, and a step adds one move to it). The lists are shared, not copied: treat the
    result as read-only, as it is everywhere it is stored or sent.
    """
    return {
        "version": state.version,
        "seed": state.seed,
        "level": state.level,
        "team_levels": list(state.team_levels),
        "prev_places": None if state.prev_places is None else list(state.prev_places),
        "dealt": [list(h) for h in state.dealt],
        "hands": [list(h) for h in state.hands],
        "phase": state.phase,
        "tribute": {"kind": state.tribute.kind, "resisted": state.tribute.resisted,
                    "gifts": [_gift_to_json(g) for g in state.tribute.gifts]},
        "lead_seat": state.lead_seat,
        "turn": state.turn,
        "top": None if state.top is None else _move_to_json(state.top),
        "passes": state.passes,
        "trick": [_move_to_json(m) for m in state.trick],
        "trick_no": state.trick_no,
        "history": _history_to_json(state.history, since),
        "finished": list(state.finished),
        "timeouts": list(state.timeouts),
        "autopilot": list(state.autopilot),
        "step": state.step,
        "result": _result_to_json(state.result),
    }


def _history_to_json(history: tuple[Move, ...], since: tuple[DealState, dict[str, Any]] | None) -> list:
    if since is not None:
        before, before_json = since
        shared = len(before.history)
        # A later state's history extends the earlier one (apply appends the same moves).
        if shared <= len(history) and all(a is b for a, b in zip(before.history, history)):
            return before_json["history"] + [_move_to_json(m) for m in history[shared:]]
    return [_move_to_json(m) for m in history]


def state_from_json(data: dict[str, Any], *, since: DealState | None = None) -> DealState:
    """The inverse of ``state_to_json``.

    ``since``: a state the reader holds of the same deal at an earlier step. A deal's
    history only grows, so its moves are taken for the first moves of ``data``'s history
    instead of being read again, once its last move reads the same in ``data``; its
    dealt hands are taken when they equal ``data``'s. Anything else is read from
    ``data``."""
    prev = data["prev_places"]
    tribute = data["tribute"]
    history = data["history"]
    moves: tuple[Move, ...] = ()
    if since is not None and 0 < len(since.history) <= len(history) \
            and _move_from_json(history[len(since.history) - 1]) == since.history[-1]:
        moves = since.history
    if since is not None and tuple(map(tuple, data["dealt"])) == since.dealt:
        dealt = since.dealt
    else:
        dealt = tuple(_ids(h) for h in data["dealt"])
    return DealState(
        version=str(data["version"]),
        seed=_opt_int(data["seed"]),
        level=int(data["level"]),
        team_levels=tuple(int(x) for x in data["team_levels"]),  # type: ignore[arg-type]
        prev_places=None if prev is None else tuple(int(x) for x in prev),  # type: ignore[arg-type]
        dealt=dealt,  # type: ignore[arg-type]
        hands=tuple(_ids(h) for h in data["hands"]),  # type: ignore[arg-type]
        phase=str(data["phase"]),
        tribute=Tribute(str(tribute["kind"]), bool(tribute["resisted"]),
                        tuple(_gift_from_json(g) for g in tribute["gifts"])),
        lead_seat=int(data["lead_seat"]),
        turn=_opt_int(data["turn"]),
        top=None if data["top"] is None else _move_from_json(data["top"]),
        passes=int(data["passes"]),
        trick=tuple(_move_from_json(m) for m in data["trick"]),
        trick_no=int(data["trick_no"]),
        history=moves + tuple(_move_from_json(m) for m in history[len(moves):]),
        finished=tuple(int(x) for x in data["finished"]),
        timeouts=tuple(int(x) for x in data["timeouts"]),  # type: ignore[arg-type]
        autopilot=tuple(bool(x) for x in data["autopilot"]),  # type: ignore[arg-type]
        step=int(data["step"]),
        result=_result_from_json(data["result"]),
    )


# --------------------------------------------------------------------------------------
# Matches


def match_to_json(match: Match) -> dict[str, Any]:
    return {"seed": match.seed, "team_levels": list(match.team_levels),
            "results": [_result_to_json(r) for r in match.results],
            "active_level": match.active_level,
            "prev_places": None if match.prev_places is None else list(match.prev_places),
            "winner": match.winner}


def match_from_json(data: dict[str, Any]) -> Match:
    prev = data["prev_places"]
    return Match(
        seed=int(data["seed"]),
        team_levels=tuple(int(x) for x in data["team_levels"]),  # type: ignore[arg-type]
        results=tuple(_result_from_json(r) for r in data["results"]),  # type: ignore[misc]
        active_level=int(data["active_level"]),
        prev_places=None if prev is None else tuple(int(x) for x in prev),  # type: ignore[arg-type]
        winner=_opt_int(data["winner"]),
    )
