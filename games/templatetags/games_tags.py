"""Template helpers for tables."""

from django import template

register = template.Library()

LEVEL_LABELS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


@register.filter
def level_label(level) -> str:
    """A level as people say it (R2.1): rank index 0 is "2", 8 is "10", 12 is "A"."""
    try:
        return LEVEL_LABELS[int(level)]
    except (TypeError, ValueError, IndexError):
        return ""
