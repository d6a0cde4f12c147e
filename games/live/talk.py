"""Table talk (快捷语): a short list of preset phrases and emotes a seated player may show
by their seat for a few seconds. No free text, so nothing to moderate.

At most one phrase every ``EVERY`` seconds per player (counted in the cache, so across
processes). A player who mutes table talk (``Profile.mute_talk``) sees none and is
offered none; any seated player may switch talk off for the whole table
(``Table.talk_off_by``), and it stays off until every seated player who switched it off
switches it on again.
"""

from __future__ import annotations

from django.core.cache import cache
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from accounts import services as account_services
from games.models import Seat, Table

EVERY = 3  # seconds between two phrases of one player
SHOWN_FOR = 4  # seconds a phrase stays by its seat (static/live/talk.js)

#: The phrases, in the order the panel offers them.
PHRASES: dict[str, object] = {
    "hurry": _("Hurry up!"),
    "well-played": _("Well played, partner!"),
    "nice": _("Nice play!"),
    "sorry": _("Sorry!"),
    "thanks": _("Thanks!"),
    "oops": _("Oops, my mistake."),
    "wait": _("Let me think…"),
    "good-game": _("Good game!"),
}
#: Emotes: a picture and the words a screen reader says for it.
EMOTES: dict[str, tuple[str, object]] = {
    "thumbs-up": ("👍", _("thumbs up")),
    "laugh": ("😄", _("laughs")),
    "wow": ("😮", _("is amazed")),
    "sweat": ("😅", _("sweats")),
    "clap": ("👏", _("applauds")),
    "please": ("🙏", _("pleads")),
}


def is_phrase(key) -> bool:
    return isinstance(key, str) and (key in PHRASES or key in EMOTES)


def words(key: str) -> tuple[str, str]:
    """(what the bubble shows, what it says to a screen reader) for a phrase, in the
    active language."""
    if key in EMOTES:
        picture, label = EMOTES[key]
        return picture, str(label)
    text = str(PHRASES[key])
    return text, text


def may_speak_now(user_id: int) -> bool:
    """One phrase every ``EVERY`` seconds per player. When the cache is away the
    phrase is let through rather than silencing everybody."""
    try:
        return cache.add(f"talk:{user_id}", 1, timeout=EVERY)
    except Exception:
        return True


def silenced_by(table: Table, seated_user_ids) -> list[int]:
    """The seated players who switched table talk off at ``table`` (those who left no
    longer count)."""
    seated = set(seated_user_ids)
    return [user_id for user_id in table.talk_off_by or [] if user_id in seated]


def set_table_talk(*, table_id: int, user, on: bool) -> Table:
    """A seated player switches table talk on or off for the table (their own vote)."""
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table_id)
        seated = set(Seat.objects.filter(table=table, user__isnull=False).values_list("user_id", flat=True))
        votes = [user_id for user_id in table.talk_off_by or [] if user_id in seated and user_id != user.pk]
        if not on:
            votes.append(user.pk)
        table.talk_off_by = votes
        table.save(update_fields=["talk_off_by"])  # not the version: no seat changed
    return table


def set_muted(*, user, muted: bool) -> None:
    """The player's own setting: see no table talk anywhere, and be offered none."""
    account_services.set_mute_talk(user=user, muted=muted)
