"""The heuristic bot (table level "normal").

It splits its hand into the fewest weighted plays (``model.split_hand``: rank counts,
wild placement, bombs and straight flushes kept whole) and leads and follows from that
split with the policy of ``policy`` (never tops its partner, feeds a partner close to
finishing, plans the wind, bombs to take control or to stop an opponent near the end).
Tribute and return choices keep the split as good as possible (R8).
"""

from __future__ import annotations

import random

from games.engine.cards import FACE_OF, card_strength
from games.engine.deal import Action

from .base import Bot, _choices, move_to_action
from .model import Hand, split_hand
from .policy import choose, full_cost
from .view import Seen

__all__ = ["HeuristicBot", "hand_cost_without", "best_return"]


def hand_cost_without(seen: Seen, card: int) -> float:
    """The split cost of the seat's hand once ``card`` has left it."""
    rest = [c for c in seen.hand if c != card]
    return full_cost(Hand.from_cards(rest, seen.level))


def best_return(seen: Seen) -> int:
    """R8.4: the return that costs the split least.

    Among equal costs: to an opponent, the weakest card (a low card feeds no run or pair
    of theirs as much as a middle one); to a partner (single tribute from 1st's partner,
    R8.1), the strongest eligible card.
    """
    gift = next((g for g in seen.gifts if g["to"] == seen.seat), None)
    donor = gift["from"] if gift else None
    to_partner = donor == seen.partner
    faces: dict[str, int] = {}
    for c in sorted(_choices(seen)):
        faces.setdefault(FACE_OF[c], c)

    def score(card: int) -> tuple[float, int]:
        s = card_strength(card, seen.level)
        bias = -0.03 * s if to_partner else 0.03 * s
        return (round(hand_cost_without(seen, card) + bias, 6), card)

    return min(faces.values(), key=score)


class HeuristicBot(Bot):
    name = "heuristic"

    def tribute_card(self, seen: Seen, rng: random.Random) -> int:
        """R8.3: of the highest cards offered, the one whose loss hurts the split least
        (for example not the card of a straight flush)."""
        return min(sorted(_choices(seen)), key=lambda c: (round(hand_cost_without(seen, c), 6), c))

    def return_card(self, seen: Seen, rng: random.Random) -> int:
        return best_return(seen)

    def play(self, seen: Seen, rng: random.Random) -> Action:
        hand = Hand.from_cards(seen.hand, seen.level)
        split = split_hand(hand)
        move = choose(hand, split, seen.table())
        return move_to_action(seen, move, hand)
