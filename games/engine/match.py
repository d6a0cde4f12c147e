"""A match as a value: team levels, deals played, the next deal's level (R2, R7, R8).

Both teams start at 2 (R2.1); the first deal plays 2; each later deal plays the level of
the team that took 1st in the previous deal (R2.2), after its promotion. The previous
deal's places carry the tribute into the next deal (R8). The match ends when a team
wins a deal at its own A with its partner 2nd or 3rd (R7.3).

>>> from games.engine.simulate import play_out
>>> import random
>>> match = start_match(11)
>>> state = next_deal(match)
>>> state.level, state.tribute.kind
(0, 'none')
>>> final, _ = play_out(state, random.Random(1))
>>> match = record(match, final)
>>> len(match.results), match.active_level == match.team_levels[final.result.winner_team]
(1, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .deal import DealResult, DealState, deal_hands, new_deal, team_of

__all__ = ["Match", "start_match", "next_deal", "record", "deal_seed"]

_START_LEVEL = 0  # R2.1: both teams start at 2 (rank index 0)


@dataclass(frozen=True, slots=True)
class Match:
    """A match so far.

    - ``seed``: the match's seed; deal seeds derive from it unless given.
    - ``team_levels``: team 0 (seats 0 and 2) and team 1 levels now.
    - ``results``: every finished deal's places and settlement, in order.
    - ``active_level``: the level the next deal plays (R2.2).
    - ``prev_places``: the last deal's places, for the next tribute (R8); None before
      the first deal.
    - ``winner``: the team that won the match (R7.3), None while it goes on.
    """

    seed: int
    team_levels: tuple[int, int] = (_START_LEVEL, _START_LEVEL)
    results: tuple[DealResult, ...] = ()
    active_level: int = _START_LEVEL
    prev_places: tuple[int, int, int, int] | None = None
    winner: int | None = None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def deals_played(self) -> int:
        return len(self.results)


def start_match(seed: int) -> Match:
    """A new match: both teams at 2, the first deal plays 2 (R2.1, R2.2)."""
    return Match(seed=seed)


def deal_seed(match: Match, index: int | None = None) -> int:
    """The seed of a match's deal number ``index`` (0-based; default the next one),
    derived from the match seed so a whole match is reproducible from one number."""
    number = match.deals_played if index is None else index
    return random.Random(f"{match.seed}:{number}").getrandbits(63)


def next_deal(match: Match, seed: int | None = None) -> DealState:
    """Deal the next deal of the match: hands from ``seed`` (derived from the match seed
    when left out), the active level (R2.2), and tribute from the previous places (R8).
    """
    if match.is_over:
        raise ValueError("R7.3: the match is over")
    if seed is None:
        seed = deal_seed(match)
    return new_deal(hands=deal_hands(seed), level=match.active_level,
                    team_levels=match.team_levels, prev_places=match.prev_places, seed=seed)


def record(match: Match, deal: DealState) -> Match:
    """Take a finished deal into the match (R7, R2.2).

    The winning team's new level becomes the next deal's active level; the places carry
    the tribute into the next deal; a match win (R7.3) ends the match.
    """
    if match.is_over:
        raise ValueError("R7.3: the match is over")
    if not deal.is_over or deal.result is None:
        raise ValueError("R6.6: only a finished deal can be recorded")
    if (deal.level != match.active_level or deal.team_levels != match.team_levels
            or deal.prev_places != match.prev_places):
        raise ValueError("R2.2: this deal was not dealt for this point of the match")
    settlement = deal.result.settlement
    winner_team = team_of(deal.result.places[0])
    return Match(
        seed=match.seed,
        team_levels=settlement.levels,
        results=match.results + (deal.result,),
        active_level=settlement.levels[winner_team],
        prev_places=deal.result.places,
        winner=winner_team if settlement.match_over else None,
    )
