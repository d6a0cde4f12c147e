"""Shared helpers for the bot tests: play positions from seeded deals."""

from __future__ import annotations

import random

from games.engine.deal import apply, deal_hands, new_deal


def deal_state(seed: int, *, tribute: bool = False):
    """A fresh deal from ``seed``; with ``tribute`` a later deal of a match (R8)."""
    rng = random.Random(seed)
    level = rng.randrange(13)
    prev = None
    if tribute:
        prev = [0, 1, 2, 3]
        rng.shuffle(prev)
    return new_deal(hands=deal_hands(seed), level=level, team_levels=(level, level),
                    prev_places=prev, seed=seed)
