"""Template helpers for tables."""

from functools import lru_cache

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

register = template.Library()


@register.filter(name="rule_links")
def rule_links_filter(text):
    """Escape ``text`` and make every rule id in it (R4.2) a link to the rules page."""
    from games.rules.words import rule_links

    return rule_links(text)

LEVEL_LABELS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


@register.simple_tag
def colon() -> str:
    """The separator after a label ("Sort: rank"), as the reader's language writes it: a
    full-width colon in Chinese (理牌：点数), a colon and a space in English."""
    from django.utils.translation import gettext

    # The same entry as Django's forms' label suffix ("用户名：").
    sign = gettext(":")
    return sign + " " if sign == ":" else sign


@register.simple_tag
def sentence_gap() -> str:
    """What goes between two sentences drawn from two messages: a space in English,
    nothing in Chinese, whose full stop (。) already ends the sentence."""
    from django.utils.translation import get_language

    return "" if (get_language() or "").startswith("zh") else " "


@register.filter
def level_label(level) -> str:
    """A level as people say it (R2.1): rank index 0 is "2", 8 is "10", 12 is "A"."""
    try:
        return LEVEL_LABELS[int(level)]
    except (TypeError, ValueError, IndexError):
        return ""


# Cards and moves are drawn by these tags rather than by included templates: a table page
# draws a hundred cards per change, and an ``{% include %}`` per card cost more than the
# rest of the page (scripts/bench_live.md).


@lru_cache(maxsize=8192)
def _card_markup(card_id, suit_class: str, wild: bool, rank: str, suit: str, name: str, small: bool, face: bool) -> str:
    classes = f"card card-{suit_class}{' card-wild' if wild else ''}{' card-small' if small else ''}{_rank_class(rank)}"
    data = "" if face or card_id is None else f' data-card="{int(card_id)}"'
    # A role="img" is one picture to assistive technology: its label is all it says, and
    # what it holds is presentational (no aria-hidden needed on the rank, suit and star).
    mark = '<span class="card-wild-mark"></span>' if wild else ""  # the star: site.css
    return (f'<span class="{classes}"{data} role="img" aria-label="{escape(name)}">'
            f'<span class="card-rank">{escape(rank)}</span><span class="card-suit">{escape(suit)}</span>'
            f"{mark}</span>")


def _rank_class(rank: str) -> str:
    """Two-character ranks are drawn condensed, so "10" stays whole in an overlapped strip."""
    return " card-10" if rank == "10" else ""


def card_markup(c: dict, small: bool = False, face: bool = False) -> str:
    return _card_markup(c["id"], c["suit_class"], bool(c["wild"]), str(c["rank"]), str(c["suit"]), str(c["name"]),
                        bool(small), bool(face))


@register.simple_tag
def card(c: dict, small: bool = False, face: bool = False):
    """One physical card (a ``table_render.card_context`` dict), drawn by the site.

    ``data-card`` carries its id: tests scan every payload for it. With ``face=True`` it
    stands for a kind of card, not one in somebody's hand (the deal's wild cards, R3.1),
    and carries no id, so a scan for hidden cards never counts it.
    """
    return mark_safe(card_markup(c, small, face))  # noqa: S308 (every field is escaped above)


@register.simple_tag
def move(m: dict):
    """One play or pass (a ``_move_context`` dict): its cards, its declared reading (R3.5),
    and who chose it when the player did not (R9.2)."""
    if m["pass"]:
        # (Words are looked up outside the f-strings: xgettext does not read inside them.)
        word = escape(_("Pass"))
        body = f'<span class="move move-pass">{word}</span>'
    else:
        cards = "".join(card_markup(c, small=True) for c in m["cards"])
        body = (f'<span class="move{" move-bomb" if m.get("bomb") else ""}"><span class="move-cards">{cards}</span>'
                f'<span class="move-reading">{escape(m["reading"])}</span></span>')
    actor = m.get("actor")
    if actor == "timeout":
        word = escape(_("timeout"))
        body += f'<span class="badge badge-muted">{word}</span>'
    elif actor == "autopilot":
        word = escape(_("autopilot"))
        body += f'<span class="badge badge-muted">{word}</span>'
    return mark_safe(body)  # noqa: S308 (every field is escaped above)


@lru_cache(maxsize=8192)
def _hand_card_markup(card_id: int, suit_class: str, wild: bool, rank: str, suit: str, name: str, checked: bool,
                      disabled: bool) -> str:
    state = (" checked" if checked else "") + (" disabled" if disabled else "")
    mark = '<span class="card-wild-mark"></span>' if wild else ""
    return (f'<input type="checkbox" class="hand-check" id="hc-{card_id}" name="card" value="{card_id}" '
            f'form="play-form" aria-label="{escape(name)}"{state}>'
            f'<label for="hc-{card_id}" id="hl-{card_id}" class="card card-{suit_class}{" card-wild" if wild else ""}{_rank_class(rank)}" '
            f'data-card="{card_id}" aria-hidden="true"><span class="card-face"></span><span class="card-rank">{escape(rank)}</span>'
            f'<span class="card-suit">{escape(suit)}</span>{mark}</label>')


@register.simple_tag
def hand_group(group: list, selected, choices):
    """One group of the viewer's own hand: a checkbox per card (its accessible name says
    the card, "10 of hearts, wild") and the card drawn as its label; cards that cannot be
    chosen now (R8.3, R8.4) are disabled."""
    return mark_safe("".join(  # noqa: S308 (every field is escaped above)
        _hand_card_markup(int(c["id"]), str(c["suit_class"]), bool(c["wild"]), str(c["rank"]), str(c["suit"]),
                          str(c["name"]), c["id"] in selected, bool(choices) and c["id"] not in choices)
        for c in group))
