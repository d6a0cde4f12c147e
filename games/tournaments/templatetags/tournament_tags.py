"""Template filters of the tournament pages."""

from django import template

from games.tournaments.present import pair_name as _pair_name

register = template.Library()


@register.filter(name="pair_name")
def pair_name(entrant) -> str:
    """A pair as the pages name it ("Mei & Li", "Bot pair")."""
    return _pair_name(entrant)
