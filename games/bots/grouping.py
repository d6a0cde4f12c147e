"""A hand grouped into the plays the heuristic would make of it ("sort by combinations").

``group_hand(hand, level)`` splits the hand as the heuristic does (``model.split_hand``:
the fewest weighted plays, rank bombs R4.8, straight flushes R4.9 and the joker bomb
R4.10 kept whole) and returns the physical card ids of each play:

- ordinary plays first, by shape (singles, pairs, triples, full houses, straights, pair
  runs, triple runs), each shape from weakest to strongest (R2.3 strength; runs by their
  natural top, R2.4);
- then bombs, from the lowest to the highest on the ladder (R5.2);
- last, wilds (R3.1) the split keeps as themselves, in a group of their own; a wild the
  split uses to complete a play sits in that play's group.

Inside a group, cards of a run follow the run's order (A2345 starts with the ace), other
groups go from weakest to strongest; wilds come last. Every card appears exactly once,
and the result depends only on the set of cards and the level.

>>> from games.engine.cards import faces_of, parse_faces, rank_index as r
>>> hand = parse_faces("9S 9H 9C 8D 8S 3S 4H 5C 6D 7S KD".split())
>>> [" ".join(faces_of(g)) for g in group_hand(hand, r("2"))]
['KD', '9S 9H 9C 8S 8D', '3S 4H 5C 6D 7S']
"""

from __future__ import annotations

from typing import Sequence

from games.engine.cards import HEARTS, RANK_OF, SUIT_OF, card_strength
from games.engine.combos import run_ranks
from games.engine.reading import (
    FULL_HOUSE, PAIR, PAIR_RUN, RUN_LENGTH, RUN_SHAPES, SINGLE, STRAIGHT, TRIPLE, TRIPLE_RUN,
    bomb_rung,
)

from .model import Hand, Move, order_key, physical_cards, split_hand

__all__ = ["group_hand"]

_SHAPE_ORDER = {SINGLE: 0, PAIR: 1, TRIPLE: 2, FULL_HOUSE: 3, STRAIGHT: 4, PAIR_RUN: 5,
                TRIPLE_RUN: 6}


def _is_wild(card: int, level: int) -> bool:
    return RANK_OF[card] == level and SUIT_OF[card] == HEARTS


def _group_order(move: Move, level: int) -> tuple[int, int, int, int]:
    """Ordinary plays by shape then strength; bombs after them on the ladder; plays made
    of wilds alone last."""
    reading = move.reading
    if not move.ids and not move.take and move.wilds:
        return (2, 0, 0, reading.size)
    if reading.is_bomb:
        return (1, bomb_rung(reading), order_key(reading, level), 0)
    return (0, _SHAPE_ORDER[reading.shape], order_key(reading, level), 0)


def _display(cards: Sequence[int], move: Move, level: int) -> list[int]:
    """A group's cards in reading order: a run along its ranks (R2.4), anything else
    weakest first (R2.3; a full house's triple before its pair); wilds at the end; the
    id breaks ties."""
    reading = move.reading
    if reading.shape in RUN_SHAPES:
        position = {r: i for i, r in enumerate(run_ranks(reading.key, RUN_LENGTH[reading.shape]))}

        def key(card: int) -> tuple[int, int, int]:
            wild = _is_wild(card, level) and not move.ids
            return (1 if wild else 0, position.get(RANK_OF[card], 99), card)
    else:
        # A full house shows its triple before its pair.
        triple = reading.key if reading.shape == FULL_HOUSE else None

        def key(card: int) -> tuple[int, int, int]:
            wild = _is_wild(card, level) and move.take != ()
            pair_part = triple is not None and RANK_OF[card] != triple
            return (1 if wild else 0, 1 if pair_part else 0, card_strength(card, level), card)
    return sorted(cards, key=key)


def group_hand(hand: Sequence[int], level: int) -> list[list[int]]:
    """The hand's card ids grouped into the heuristic's split (module doc)."""
    ids = sorted(hand)
    if not ids:
        return []
    model = Hand.from_cards(ids, level)
    moves = sorted(split_hand(model).moves, key=lambda m: _group_order(m, level))
    kept_aside = [c for m in model.flushes for c in m.ids]
    left = list(ids)
    # Straight flushes first: their exact cards are fixed, the other plays take what is
    # left (never a card of a kept flush while another copy will do).
    ordered = [m for m in moves if m.ids] + [m for m in moves if not m.ids]
    placed: dict[int, list[int]] = {}
    for move in ordered:
        avoid = [c for c in kept_aside if c in left]
        cards = physical_cards(move, left, level, avoid)
        if cards is None:
            continue
        for c in cards:
            left.remove(c)
        placed[id(move)] = _display(cards, move, level)
    out = [placed[id(m)] for m in moves if placed.get(id(m))]
    if left:
        # Cannot happen for a split of this very hand; kept so no card is ever lost.
        out.append(sorted(left, key=lambda c: (card_strength(c, level), c)))
    return out
