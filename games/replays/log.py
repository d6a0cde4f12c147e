"""Deal rows to engine values and back: the replay's one source of truth (R11.1).

A deal is fully determined by its ruleset version, the four dealt hands, the active
level, the team levels (and the previous places that decide the tribute, R8), its seed
(which draws the first lead of a match, R8.6) and its ordered action log. This module
rebuilds the engine's first state from the ``Deal`` row, turns the ``Action`` rows into
engine actions, and folds them with the same ``games.engine.deal.apply`` the live table
uses, so a replay can never disagree with the game that was played.

It also checks that the stored snapshot (``Deal.state`` and ``Deal.seq``) equals the fold
of the log (``check_deal``, used by ``manage.py replay_check``), and writes and reads the
JSON export of a deal (``export_deal`` / ``import_export``).

Nothing here renders or decides who may see what: the pages (``games.replays.views``)
do that with the engine's ``view_for``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Sequence

from games.engine.cards import FACE_OF, ids_of_face, rank_char, rank_index
from games.engine.deal import (
    ACTION_KINDS,
    ACTORS,
    PASS,
    PLAY,
    RULESET_VERSION,
    TIMEOUT,
    DealState,
    apply,
    new_deal,
    timeout_action,
)
from games.engine.deal import (
    Action as EngineAction,
)
from games.engine.errors import RuleError
from games.engine.reading import Reading
from games.engine.replay import state_from_json, state_to_json

__all__ = [
    "EXPORT_FORMAT", "EXPORT_FORMAT_VERSION", "ReplayError", "initial_state",
    "engine_actions", "action_of_row", "replay_states", "check_deal", "export_deal",
    "import_export", "trick_starts", "tribute_step",
]

EXPORT_FORMAT = "guandan-deal"
EXPORT_FORMAT_VERSION = 1


class ReplayError(ValueError):
    """The stored rows of a deal cannot be replayed (a gap in the log, an unknown ruleset
    version, an action the engine refuses). The message says which and why."""


# --------------------------------------------------------------------------------------
# Rows to engine values


def initial_state(deal) -> DealState:
    """The deal's first state, rebuilt from its row exactly as the live table dealt it.

    ``games.live.door`` stores ``new_deal(...)`` of the match's next deal as the first snapshot:
    the dealt hands, the active level (R2.2), both team levels, the previous places (which
    fix tribute, resistance and the first lead, R8) and the seed (the first lead of a
    match is drawn from it, R8.6). Tributes and returns that leave no choice are already
    made in that state (R8.3, R8.4), just as at the table.

    Raises ``ReplayError`` when the row was written under another ruleset version: this
    engine would play it by different rules.
    """
    if deal.ruleset_version != RULESET_VERSION:
        raise ReplayError(
            f"R11.1: the deal was played under ruleset {deal.ruleset_version!r}; "
            f"this engine plays {RULESET_VERSION!r}"
        )
    try:
        return new_deal(
            hands=deal.hands,
            level=int(deal.active_level),
            team_levels=tuple(int(x) for x in deal.team_levels_before),
            prev_places=None if deal.prev_places is None else tuple(int(x) for x in deal.prev_places),
            seed=deal.seed,
        )
    except (TypeError, ValueError) as exc:
        raise ReplayError(f"the stored deal cannot be dealt again: {exc}") from None


def action_of_row(row) -> EngineAction:
    """One ``Action`` row as the engine action it recorded (cards, declared reading,
    actor: R3.5 keeps the reading, R9.2 the actor, both in the log)."""
    reading = None if row.reading is None else Reading.from_json(row.reading)
    return EngineAction(row.kind, int(row.seat), tuple(int(c) for c in row.cards), reading, row.actor)


def _log_rows(deal) -> list:
    """The deal's action rows in log order (prefetched rows are used when present)."""
    return sorted(deal.actions.all(), key=lambda row: row.seq)


def engine_actions(deal, rows: Sequence | None = None) -> list[EngineAction]:
    """The deal's action log as engine actions, in ``seq`` order.

    The log is append-only and numbered from 1 without gaps (R11.1: the ordered log is the
    truth); a gap or a duplicate raises ``ReplayError``.
    """
    rows = _log_rows(deal) if rows is None else sorted(rows, key=lambda row: row.seq)
    actions = []
    for expected, row in enumerate(rows, start=1):
        if row.seq != expected:
            raise ReplayError(f"R11.1: the action log has no action #{expected} (found #{row.seq} there)")
        try:
            actions.append(action_of_row(row))
        except (TypeError, ValueError, KeyError) as exc:
            raise ReplayError(f"action #{row.seq} is malformed: {exc}") from None
    return actions


def replay_states(deal, rows: Sequence | None = None) -> list[DealState]:
    """Every state of the deal: step 0 as dealt, then one after each logged action.

    ``replay_states(deal)[-1]`` is the deal as it stands now. Raises ``ReplayError``
    when an action is refused by the engine (the log then is not a game the rules allow).
    """
    out = [initial_state(deal)]
    for number, action in enumerate(engine_actions(deal, rows), start=1):
        try:
            out.append(apply(out[-1], action))
        except RuleError as exc:
            raise ReplayError(f"action #{number} ({action.kind} by seat {action.seat + 1}) is refused: {exc}") from None
    return out


# --------------------------------------------------------------------------------------
# Jump targets


def trick_starts(replay: Sequence[DealState]) -> list[tuple[int, int, int]]:
    """Where each trick begins: ``(trick number from 1, step of its lead, leading seat)``.

    The step is the one that shows the lead already on the table (the state before it
    looks the same as the end of the trick before).
    """
    out = []
    for step in range(1, len(replay)):
        before, after = replay[step - 1], replay[step]
        if before.leading and len(after.history) > len(before.history):
            out.append((before.trick_no + 1, step, after.history[-1].seat))
    return out


def tribute_step(replay: Sequence[DealState], actions: Sequence[EngineAction]) -> int | None:
    """The step that shows the tribute (R8): the first tribute or return choice, else the
    deal's first state when the gifts were automatic or resisted; None without tribute
    (a match's first deal)."""
    if replay[0].tribute.kind == "none":
        return None
    for number, action in enumerate(actions, start=1):
        if action.kind in ("tribute", "return"):
            return number
    return 0


# --------------------------------------------------------------------------------------
# Checking a stored deal against its log


def _differing_fields(stored: dict[str, Any], folded: dict[str, Any], limit: int = 4) -> str:
    """The snapshot fields whose values differ, named for the report."""
    keys = [key for key in folded if stored.get(key) != folded[key]]
    keys += [key for key in stored if key not in folded]
    if not keys:
        return "its values"
    return ", ".join(keys[:limit]) + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


def check_deal(deal, rows: Sequence | None = None) -> str | None:
    """None when the deal's stored snapshot and ``seq`` equal the fold of its action log
    (ARCHITECTURE: the snapshot MUST equal the fold of the log); otherwise one line that
    says what differs."""
    try:
        replay = replay_states(deal, rows)
    except ReplayError as exc:
        return str(exc)
    folded = replay[-1]
    problems = []
    if deal.seq != folded.step:
        problems.append(f"seq is {deal.seq} but the log holds {folded.step} actions")
    if not deal.state:
        problems.append("no state snapshot is stored")
    else:
        try:
            stored = state_from_json(deal.state)
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(f"the stored snapshot is unreadable ({exc})")
        else:
            if stored != folded:
                differing = _differing_fields(deal.state, state_to_json(folded))
                problems.append(f"the snapshot differs from the fold of the log in {differing}")
    finished = deal.finished_at is not None
    if finished and not folded.is_over:
        problems.append("the deal is marked finished but its log does not end it")
    elif folded.is_over and not finished:
        problems.append("the log ends the deal but it is not marked finished")
    if folded.is_over and deal.result:
        places = deal.result.get("places")
        if places is not None and list(places) != list(folded.result.places):
            problems.append(f"the stored places {places} differ from the replayed {list(folded.result.places)}")
        explanation = deal.result.get("explanation")
        if explanation is not None and explanation != folded.result.settlement.explanation:
            problems.append("the stored settlement differs from the replayed one")
    return "; ".join(problems) or None


# --------------------------------------------------------------------------------------
# Export and import


def _faces(cards: Iterable[int]) -> list[str]:
    return [FACE_OF[c] for c in cards]


def export_deal(deal, rows: Sequence | None = None) -> dict[str, Any]:
    """The deal as a self-contained JSON document (R11.1): everything needed to play it
    again, in the notation of the rules (R1.4 faces, rank characters for levels, readings
    as declared, R3.5), plus the physical card ids so that a re-import is exact.

    Seats are 0-3 in this file (the site shows seats 1-4, R1.1). ``result`` is the
    engine's settlement of the replayed log (R7, R9.6), or None while the deal is open.
    """
    rows = _log_rows(deal) if rows is None else sorted(rows, key=lambda row: row.seq)
    replay = replay_states(deal, rows)
    final = replay[-1]
    actions = []
    for row, after in zip(rows, replay[1:]):
        entry: dict[str, Any] = {
            "seq": row.seq,
            "seat": row.seat,
            "kind": row.kind,
            "cards": _faces(row.cards),
            "card_ids": [int(c) for c in row.cards],
            "reading": None,
            "actor": row.actor,
        }
        if row.kind == PLAY:
            # The reading the play was made as (R3.5), resolved when it was the only one.
            entry["reading"] = after.history[-1].reading.to_json()
            entry["name"] = after.history[-1].reading.name
        actions.append(entry)
    result = None
    if final.result is not None:
        settlement = final.result.settlement
        result = {
            "places": list(final.result.places),
            "levels": [rank_char(x) for x in settlement.levels],
            "winner_team": settlement.winner_team,
            "advance": settlement.advance,
            "match_over": settlement.match_over,
            "explanation": settlement.explanation,
        }
    return {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_FORMAT_VERSION,
        "ruleset_version": deal.ruleset_version,
        "deal": {"id": deal.pk, "match": deal.match_id, "number": deal.number},
        "seats": "0-3 (the site shows seats 1-4); team A is seats 0 and 2, team B seats 1 and 3",
        "seed": deal.seed,
        "active_level": rank_char(deal.active_level),
        "team_levels_before": [rank_char(int(x)) for x in deal.team_levels_before],
        "prev_places": None if deal.prev_places is None else [int(x) for x in deal.prev_places],
        "hands": [_faces(hand) for hand in deal.hands],
        "hand_ids": [[int(c) for c in hand] for hand in deal.hands],
        "actions": actions,
        "result": result,
    }


def _need(data: dict, key: str) -> Any:
    if key not in data:
        raise ValueError(f"the export has no {key!r}")
    return data[key]


def _level(value: Any, what: str) -> int:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a rank character such as '2', 'T' or 'A' (R2.1)")
    level = rank_index(value)
    if level > 12:
        raise ValueError(f"{what}: a joker is not a level (R2.1)")
    return level


def _ids_matching_faces(ids: Any, faces: Any, what: str) -> tuple[int, ...]:
    if not isinstance(ids, list) or any(type(c) is not int or not 0 <= c < 108 for c in ids):
        raise ValueError(f"{what}: card ids must be a list of numbers 0-107 (R1.4)")
    if faces is not None and _faces(ids) != list(faces):
        raise ValueError(f"{what}: the card ids {ids} are not the faces {faces}")
    return tuple(ids)


def _hands_from_faces(hands: Any) -> list[tuple[int, ...]]:
    """Faces to physical ids: the two copies of a face (R1.3) are handed out in seat order,
    so each face gets an id nobody else holds."""
    if not isinstance(hands, list) or len(hands) != 4:
        raise ValueError("hands must be four lists of faces (R1.3)")
    used: Counter[int] = Counter()
    out = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list):
            raise ValueError(f"the hand of seat {seat + 1} must be a list of faces")
        ids = []
        for text in hand:
            pair = ids_of_face(str(text))
            copy = used[pair[0]]
            if copy >= 2:
                raise ValueError(f"R1.3: {text} is dealt more than twice")
            used[pair[0]] += 1
            ids.append(pair[copy])
        out.append(tuple(sorted(ids)))
    return out


def _cards_in_hand(faces: Any, hand: Sequence[int], number: int) -> tuple[int, ...]:
    """Faces of an action to the physical cards the acting seat holds (either copy of a
    face is the same card to play)."""
    if not isinstance(faces, list):
        raise ValueError(f"action #{number}: cards must be a list of faces")
    free = list(hand)
    ids = []
    for text in faces:
        pair = ids_of_face(str(text))
        held = [c for c in pair if c in free]
        if not held:
            raise ValueError(f"action #{number}: R9.1: {text} is not in the seat's hand")
        free.remove(held[0])
        ids.append(held[0])
    return tuple(ids)


def _timeout_cards(state: DealState, seat: int, faces: Any, number: int) -> tuple[int, ...]:
    """A timeout is the engine's automatic choice (R9.2). Among tribute cards of one rank
    that choice follows physical ids (R8.3), so with faces alone it is taken from the
    engine and must show the faces the file records."""
    try:
        automatic = timeout_action(state, seat)
    except RuleError as exc:
        raise ValueError(f"action #{number} is refused: {exc}") from None
    if sorted(_faces(automatic.cards)) != sorted(str(f) for f in faces or ()):
        raise ValueError(
            f"action #{number}: R9.2: on this timeout the engine gives {_faces(automatic.cards)}, "
            f"the file says {list(faces or ())}; which copy of a card a seat holds decides it, "
            "so give card_ids"
        )
    return automatic.cards


def import_export(data: Any) -> tuple[DealState, list[EngineAction]]:
    """Read a document written by ``export_deal`` back into the engine: the first state
    and the action log, ready for ``games.engine.replay.fold``.

    With ``hand_ids`` and ``card_ids`` present the physical cards are exactly the exported
    ones (they must agree with the faces). A hand-written file may give faces only; the
    copies of a face are then assigned in seat order and each action takes the copy its
    seat holds, which plays the same game face for face. One thing follows the physical
    copies rather than the faces: the automatic tribute on a timeout (R8.3, R9.2) picks by
    id, so a faces-only timeout that the engine would make with another face is refused.
    Every action is checked by the engine on the way in; anything malformed or illegal
    raises ``ValueError`` naming the rule.
    """
    if not isinstance(data, dict):
        raise ValueError("an export is a JSON object")
    if data.get("format") != EXPORT_FORMAT:
        raise ValueError(f"not a {EXPORT_FORMAT} export")
    if data.get("format_version") != EXPORT_FORMAT_VERSION:
        raise ValueError(f"unknown export format version {data.get('format_version')!r}")
    version = _need(data, "ruleset_version")
    if version != RULESET_VERSION:
        raise ValueError(f"R11.1: the deal was played under ruleset {version!r}; this engine plays {RULESET_VERSION!r}")
    face_hands = _need(data, "hands")
    if data.get("hand_ids") is not None:
        id_hands = data["hand_ids"]
        if not isinstance(id_hands, list) or len(id_hands) != 4 or not isinstance(face_hands, list) or len(face_hands) != 4:
            raise ValueError("hands must be four lists (R1.3)")
        hands = [_ids_matching_faces(ids, faces, f"hand of seat {seat + 1}")
                 for seat, (ids, faces) in enumerate(zip(id_hands, face_hands))]
    else:
        hands = _hands_from_faces(face_hands)
    prev = data.get("prev_places")
    team_levels = _need(data, "team_levels_before")
    if not isinstance(team_levels, list) or len(team_levels) != 2:
        raise ValueError("team_levels_before must list team A's and team B's levels (R2.1)")
    seed = data.get("seed")
    if seed is not None and type(seed) is not int:
        raise ValueError("the seed must be a whole number")
    first = new_deal(
        hands=hands,
        level=_level(_need(data, "active_level"), "active_level"),
        team_levels=(_level(team_levels[0], "team A's level"), _level(team_levels[1], "team B's level")),
        prev_places=None if prev is None else tuple(int(x) for x in prev),
        seed=seed,
    )
    entries = _need(data, "actions")
    if not isinstance(entries, list):
        raise ValueError("actions must be a list")
    state = first
    actions = []
    for number, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise ValueError(f"action #{number} must be an object")
        kind, seat, actor = entry.get("kind"), entry.get("seat"), entry.get("actor", "human")
        if kind not in ACTION_KINDS:
            raise ValueError(f"action #{number}: {kind!r} is not an action ({', '.join(ACTION_KINDS)})")
        if type(seat) is not int or not 0 <= seat <= 3:
            raise ValueError(f"action #{number}: R1.1: {seat!r} is not a seat (0-3)")
        if actor not in ACTORS:
            raise ValueError(f"action #{number}: R9.2: {actor!r} is not an actor ({', '.join(ACTORS)})")
        if entry.get("card_ids") is not None:
            cards = _ids_matching_faces(entry["card_ids"], entry.get("cards"), f"action #{number}")
        elif actor == TIMEOUT:
            cards = _timeout_cards(state, seat, entry.get("cards", []), number)
        else:
            cards = () if kind == PASS else _cards_in_hand(entry.get("cards", []), state.hands[seat], number)
        reading = None
        if entry.get("reading") is not None:
            reading = Reading.from_json(entry["reading"])
        action = EngineAction(kind, seat, cards, reading, actor)
        try:
            state = apply(state, action)
        except RuleError as exc:
            raise ValueError(f"action #{number} is refused: {exc}") from None
        actions.append(action)
    return first, actions
