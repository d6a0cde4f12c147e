"""Helpers for the engine tests: write hands and plays as R1.4 faces."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Sequence

import pytest

# The engine is plain Python and needs no settings: make the project importable when
# pytest runs from its own entry point without a project configuration.
_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from games.engine.cards import NUM_CARDS, card_strength, ids_of_face, parse_faces, rank_index
from games.engine.deal import PASS, PLAY, Action, DealState, start_play


def table_ids(*hands: Sequence[str]) -> list[list[int]]:
    """Faces to physical ids for a whole table: the two copies of a face go to whoever
    names it first and second (R1.3)."""
    ids = parse_faces([f for hand in hands for f in hand])
    out, start = [], 0
    for hand in hands:
        out.append(ids[start:start + len(hand)])
        start += len(hand)
    return out


def held(state: DealState, seat: int, *faces: str) -> tuple[int, ...]:
    """The physical ids of these faces in ``seat``'s hand."""
    chosen: list[int] = []
    for text in faces:
        card = next(c for c in ids_of_face(text) if c in state.hands[seat] and c not in chosen)
        chosen.append(card)
    return tuple(chosen)


def endgame(level: str, hands: Sequence[Sequence[str]], leader: int = 0) -> DealState:
    return start_play(hands=table_ids(*hands), level=rank_index(level), leader=leader)


def play(state: DealState, seat: int, *faces: str, reading=None, actor: str = "human") -> Action:
    return Action(PLAY, seat, held(state, seat, *faces), reading, actor)


def pass_(seat: int, actor: str = "human") -> Action:
    return Action(PASS, seat, actor=actor)


def full_table(level: str, fixed: dict[int, Sequence[str]], low: Sequence[int] = (),
               high: Sequence[int] = ()) -> list[list[int]]:
    """Four 27-card hands holding the ``fixed`` faces; the rest of the deck is shared out
    so that ``low`` seats get the weakest remaining cards (R2.3 at ``level``) and ``high``
    seats the strongest, the others what is left. Lets a test say "the donor's best card
    is this" without writing 108 faces."""
    lvl = rank_index(level)
    hands = table_ids(*(fixed.get(s, ()) for s in range(4)))
    used = {c for h in hands for c in h}
    pool = sorted((c for c in range(NUM_CARDS) if c not in used),
                  key=lambda c: (card_strength(c, lvl), c))
    for seat in low:
        need = 27 - len(hands[seat])
        hands[seat] += pool[:need]
        pool = pool[need:]
    for seat in high:
        need = 27 - len(hands[seat])
        hands[seat] += pool[len(pool) - need:]
        pool = pool[:len(pool) - need]
    for seat in range(4):
        if seat not in low and seat not in high:
            need = 27 - len(hands[seat])
            hands[seat] += pool[:need]
            pool = pool[need:]
    assert not pool and all(len(h) == 27 for h in hands)
    return hands


@pytest.fixture
def kit() -> SimpleNamespace:
    """The helpers above as one namespace (tests take them as a fixture rather than
    importing this conftest, which other test folders may shadow)."""
    return SimpleNamespace(table_ids=table_ids, held=held, endgame=endgame, play=play,
                           pass_=pass_, full_table=full_table)
