"""Career tiers and their numbers (R10.1, R10.6, R10.7), as plain data.

Both apps read these: ``games`` to open match tables of a tier, ``accounts`` to award and
take points. The tier keys are the values of ``games.models.Table.Tier``.
"""

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class TierRule:
    """One tier of match tables.

    ``factor`` multiplies every award and penalty at tables of the tier (R10.6, R10.7);
    ``opens_at`` is the career points a player needs to create or sit at them (R10.7).
    """

    key: str
    label: str
    factor: int
    opens_at: int


JUNIOR = "junior"
SENIOR = "senior"
GRANDMASTER = "grandmaster"

TIERS: dict[str, TierRule] = {
    JUNIOR: TierRule(JUNIOR, _("Junior"), factor=1, opens_at=0),
    SENIOR: TierRule(SENIOR, _("Senior"), factor=2, opens_at=100),
    GRANDMASTER: TierRule(GRANDMASTER, _("Grandmaster"), factor=3, opens_at=500),
}

#: R10.6: match winners earn this many points times the tier factor on top of the deal.
MATCH_WIN_BONUS = 10
#: R10.7: leaving a match in progress costs this many points times the tier factor.
LEAVE_PENALTY = 10


def tier_factor(tier: str) -> int:
    """The factor of a tier: Junior 1, Senior 2, Grandmaster 3 (R10.6)."""
    return TIERS[tier].factor


def tier_is_open(tier: str, points: int) -> bool:
    """Whether a player with ``points`` career points may play at ``tier`` (R10.7).

    >>> tier_is_open("senior", 99), tier_is_open("senior", 100)
    (False, True)
    """
    return points >= TIERS[tier].opens_at


def highest_open_tier(points: int) -> TierRule:
    """The highest tier open to ``points`` career points: the player's tier on profiles."""
    return max((rule for rule in TIERS.values() if points >= rule.opens_at), key=lambda rule: rule.opens_at)


def next_tier(points: int) -> TierRule | None:
    """The next tier still closed to ``points`` career points, or None at the top."""
    closed = [rule for rule in TIERS.values() if points < rule.opens_at]
    return min(closed, key=lambda rule: rule.opens_at) if closed else None
