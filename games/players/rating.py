"""The match rating (R10.10) as plain numbers: a team rating model from openskill.

Partners are a team; the team whose player finished 1st (R6.6) wins the deal. The model
is openskill's Weng-Lin Plackett-Luce model (a Bayesian approximation of TrueSkill
for teams), on a scale people know from chess sites: a new player starts at 1500 with a
wide uncertainty (sigma 500), and the rating shown is the model's mean, rounded. The
maths is the library's; this module only chooses its scale, holds the bots' fixed
ratings, and says who is on which team.

The size of a win (R7.1) is not weighed: a deal is a win or a loss. openskill's own
margin of victory moves ratings only between teams of unequal strength, and in Guandan
the size of a win owes much to the cards.

No Django here: the recompute command and the tests call the same function as the live
table's settlement, so the numbers are the same however they are reached.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

#: A new player's rating and its uncertainty.
START_MU = 1500.0
START_SIGMA = 500.0
#: A rating is provisional ("1500?") for a player's first rated deals (R10.10).
PROVISIONAL_DEALS = 20

# openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300) scaled by 60.
MODEL = PlackettLuce(mu=START_MU, sigma=START_SIGMA, beta=START_SIGMA / 2, tau=START_SIGMA / 100)

#: Bots sit at a fixed rating per level and never change (R10.10): fitted to the arena's
#: seat-swapped deals between the levels with this same model, normal held at a new
#: player's 1500 (scripts/rate_bot_levels.py; games/bots/README.md, "Ratings").
BOT_MU = {"easy": 1300.0, "normal": 1500.0, "hard": 1547.0}
#: A bot's rating is known, not estimated: a small uncertainty.
BOT_SIGMA = 40.0


@dataclass(frozen=True)
class Skill:
    """One player's rating: the mean and its uncertainty."""

    mu: float = START_MU
    sigma: float = START_SIGMA

    @property
    def shown(self) -> int:
        """The rating people see: the mean, rounded."""
        return round(self.mu)


def bot_skill(level: str) -> Skill:
    """The fixed rating of a bot of ``level`` (easy, normal, hard)."""
    return Skill(BOT_MU.get(level, BOT_MU["normal"]), BOT_SIGMA)


def shown(mu: float, rated_deals: int) -> str:
    """A rating as shown on a seat plate or a leaderboard: "1512", or "1512?" while
    provisional (R10.10).

    >>> shown(1511.6, 20), shown(1500.0, 3)
    ('1512', '1500?')
    """
    text = str(round(mu))
    return text + "?" if rated_deals < PROVISIONAL_DEALS else text


def rate_deal(skills: Sequence[Skill], winner_team: int) -> list[Skill]:
    """Every seat's rating after a deal: ``skills`` by seat position (0-3; seats 0 & 2
    are team A, 1 & 3 team B, R1.1) before it, and the team that took 1st place.

    Returns a rating for all four seats; the caller keeps only the humans' whose
    rating changes (bots never change, nor a player the deal earned no points, R10.8).

    >>> after = rate_deal([Skill()] * 4, 0)
    >>> after[0].mu > 1500 > after[1].mu, after[0] == after[2]
    (True, True)
    """
    if len(skills) != 4 or winner_team not in (0, 1):
        raise ValueError("a deal has four seats and a winning team 0 or 1")
    ratings = [MODEL.rating(mu=skill.mu, sigma=skill.sigma) for skill in skills]
    teams = [[ratings[0], ratings[2]], [ratings[1], ratings[3]]]
    ranks = [0, 1] if winner_team == 0 else [1, 0]
    (a0, a2), (b1, b3) = MODEL.rate(teams, ranks=ranks)
    return [Skill(r.mu, r.sigma) for r in (a0, b1, a2, b3)]


def win_chance(skills: Sequence[Skill]) -> float:
    """Team A's chance of winning a deal by the model, for the seats' ``skills``."""
    ratings = [MODEL.rating(mu=skill.mu, sigma=skill.sigma) for skill in skills]
    return MODEL.predict_win([[ratings[0], ratings[2]], [ratings[1], ratings[3]]])[0]


def seat_skills(seats: Sequence[Mapping], humans: Mapping[int, Skill]) -> list[Skill]:
    """The four seats' skills from a deal's stored seats (``{"user": id}`` or
    ``{"bot": level}``, R11.1's record of who played) and the humans' current ratings by
    user id."""
    out = []
    for seat in seats:
        if "bot" in seat:
            out.append(bot_skill(seat["bot"]))
        else:
            out.append(humans.get(seat["user"], Skill()))
    return out
