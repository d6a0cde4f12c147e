"""Writes about people: sign-up, guests and their claim, display names, career points.

Every function takes keyword arguments only and runs in one transaction. Career points
change only through ``_record`` so ``Profile.career_points`` always equals the ledger's sum.
"""

import hashlib
import secrets
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from . import career
from .models import BotAccount, PointsEntry, Profile, RetiredName


class AccountError(Exception):
    """A refused account change; the message says why and nothing was changed."""


class EmailError(AccountError):
    """A refused email address (not valid, or another account's)."""


def retired_name_hash(username: str) -> str:
    """How a deleted account's username is kept while it is retired (``RetiredName``)."""
    return hashlib.sha256(username.strip().lower().encode("utf-8")).hexdigest()


def _refuse_retired(username: str) -> None:
    if RetiredName.objects.filter(name_hash=retired_name_hash(username), free_at__gt=timezone.now()).exists():
        raise AccountError(_("That username belonged to an account deleted less than 30 days ago; choose another."))


def _clean_email(email: str, *, user=None) -> str:
    """An email address for password resets: empty, or valid and no other account's."""
    email = (email or "").strip()
    if not email:
        return ""
    try:
        validate_email(email)
    except ValidationError:
        raise EmailError(_("Enter a valid email address.")) from None
    others = get_user_model().objects.filter(email__iexact=email)
    if user is not None:
        others = others.exclude(pk=user.pk)
    if others.exists():
        raise EmailError(_("That email address belongs to another account."))
    return email


def sign_up(*, username: str, password: str, display_name: str = "", email: str = ""):
    """Create a registered player. The caller has validated the password. ``email`` (for
    password resets) is optional."""
    User = get_user_model()
    with transaction.atomic():
        if User.objects.filter(username__iexact=username).exists():
            raise AccountError(_("That username is taken."))
        _refuse_retired(username)
        email = _clean_email(email)
        user = User.objects.create_user(username=username, password=password, email=email)
        Profile.objects.filter(user=user).update(display_name=(display_name or username)[:40])
    user.refresh_from_db()
    return user


def create_guest():
    """Create a guest: a real user with no password who may play practice and friend
    tables and earns no career points (R10.1). ``claim_guest`` makes it a registered one."""
    User = get_user_model()
    with transaction.atomic():
        while True:
            username = f"guest-{secrets.token_hex(5)}"
            if not User.objects.filter(username=username).exists():
                break
        user = User(username=username)
        user.set_unusable_password()
        user.save()
        number = int(username[-4:], 16) % 10000
        Profile.objects.filter(user=user).update(is_guest=True, display_name=_("Guest %(number)04d") % {"number": number})
    user.refresh_from_db()
    return user


def claim_guest(*, user, username: str, password: str, display_name: str = "", email: str = ""):
    """Turn a guest into a registered player, keeping the same user and so every seat,
    match and action it already has. The caller has validated the password."""
    User = get_user_model()
    with transaction.atomic():
        profile = Profile.objects.select_for_update().get(user=user)
        if not profile.is_guest:
            raise AccountError(_("This account is already registered."))
        if User.objects.filter(username__iexact=username).exclude(pk=user.pk).exists():
            raise AccountError(_("That username is taken."))
        _refuse_retired(username)
        user.username = username
        user.email = _clean_email(email, user=user)
        user.set_password(password)
        user.save(update_fields=["username", "email", "password"])
        profile.is_guest = False
        if display_name:
            profile.display_name = display_name[:40]
        profile.save(update_fields=["is_guest", "display_name"])
    return user


def rename(*, user, display_name: str) -> Profile:
    """Change the name shown at tables and on the leaderboard."""
    display_name = display_name.strip()
    if not display_name:
        raise AccountError(_("A display name cannot be empty."))
    with transaction.atomic():
        profile = Profile.objects.select_for_update().get(user=user)
        profile.display_name = display_name[:40]
        profile.save(update_fields=["display_name"])
    return profile


def set_email(*, user, email: str):
    """Change the address password resets are sent to ("" removes it)."""
    with transaction.atomic():
        locked = get_user_model().objects.select_for_update().get(pk=user.pk)
        locked.email = _clean_email(email, user=locked)
        locked.save(update_fields=["email"])
    user.email = locked.email
    return locked


def set_language(*, user, language: str) -> Profile:
    """Save the player's language (one of ``settings.LANGUAGES``, or "" to follow the
    browser), so it follows the player to other devices."""
    from django.conf import settings

    if language and language not in dict(settings.LANGUAGES):
        raise AccountError(_("%(language)s is not a language of this site.") % {"language": language[:20]})
    with transaction.atomic():
        profile = Profile.objects.select_for_update().get(user=user)
        if profile.language != language:
            profile.language = language
            profile.save(update_fields=["language"])
    return profile


def _record(*, profile: Profile, delta: int, reason: str, table=None, match=None, deal=None, note: str = ""):
    """Append one ledger row and move the profile's points with it (inside a transaction,
    with the profile row locked). Points never go below 0."""
    delta = max(delta, -profile.career_points)
    if delta == 0:
        return None
    profile.career_points += delta
    profile.save(update_fields=["career_points"])
    return PointsEntry.objects.create(
        user_id=profile.user_id,
        delta=delta,
        balance_after=profile.career_points,
        reason=reason,
        table=table,
        match=match,
        deal=deal,
        note=note,
    )


def _locked_profile(user) -> Profile:
    return Profile.objects.select_for_update().get(user=user)


def set_mute_talk(*, user, muted: bool) -> None:
    """The player's own table-talk setting: with it on, no quick phrases or emotes of
    other players show at any table, and none are offered (games/live/talk.py)."""
    Profile.objects.filter(user=user).update(mute_talk=muted)


def award_deal_points(*, deal, winners: Iterable, levels_advanced: int, match_won: bool) -> list[PointsEntry]:
    """Award career points for a settled deal (R10.6); the live table calls this at every
    settlement.

    ``winners`` are the users in the winning team's seats at settlement (``None`` for a seat
    a bot plays). At a match table each registered winner earns ``levels_advanced`` x the
    tier factor (Junior 1, Senior 2, Grandmaster 3), and when the deal won the match a
    further 10 x the tier factor. Bots and guests earn nothing (R10.1); friend and practice
    tables award nothing (R10.3, R10.4); losers lose nothing. Calling it again for the same
    deal awards nothing more.
    """
    table = deal.match.table
    if not table.awards_points:
        return []
    factor = career.tier_factor(table.tier)
    people = {winner.pk for winner in winners if winner is not None}
    if not people:
        return []
    entries = []
    with transaction.atomic():
        # The winners' profiles locked in one statement, in user order; what they have
        # earned for this deal and match already, in one more.
        profiles = Profile.objects.select_for_update().filter(user_id__in=people).order_by("user_id")
        bots = set(BotAccount.objects.filter(user_id__in=people).values_list("user_id", flat=True))
        earning = [p for p in profiles if not p.is_guest and p.user_id not in bots]  # R10.1
        done = set(PointsEntry.objects.filter(
            Q(deal=deal, reason=PointsEntry.Reason.DEAL_WIN) | Q(match=deal.match, reason=PointsEntry.Reason.MATCH_WIN),
            user_id__in=[p.user_id for p in earning],
        ).values_list("user_id", "reason"))
        for profile in earning:
            if levels_advanced > 0 and (profile.user_id, PointsEntry.Reason.DEAL_WIN) not in done:
                entries.append(_record(
                    profile=profile, delta=levels_advanced * factor, reason=PointsEntry.Reason.DEAL_WIN,
                    table=table, match=deal.match, deal=deal,
                ))
            if match_won and (profile.user_id, PointsEntry.Reason.MATCH_WIN) not in done:
                entries.append(_record(
                    profile=profile, delta=career.MATCH_WIN_BONUS * factor, reason=PointsEntry.Reason.MATCH_WIN,
                    table=table, match=deal.match, deal=deal,
                ))
    return [entry for entry in entries if entry is not None]


def apply_leave_penalty(*, user, table, match=None) -> PointsEntry | None:
    """Take 10 x the tier factor points from a player who leaves a match table while its
    match is in progress, never going below 0 (R10.7). Other tables and guests: nothing.
    Returns the ledger row, or None when nothing changed."""
    if not table.awards_points:
        return None
    with transaction.atomic():
        profile = _locked_profile(user)
        if profile.is_guest:
            return None
        return _record(
            profile=profile,
            delta=-career.LEAVE_PENALTY * career.tier_factor(table.tier),
            reason=PointsEntry.Reason.LEAVE_PENALTY,
            table=table,
            match=match,
        )


def adjust_points(*, user, delta: int, note: str) -> PointsEntry | None:
    """A staff correction of a player's points, recorded in the ledger like any other change."""
    with transaction.atomic():
        profile = _locked_profile(user)
        if profile.is_guest:
            raise AccountError(_("Guests have no career points (R10.1)."))
        return _record(profile=profile, delta=delta, reason=PointsEntry.Reason.ADJUSTMENT, note=note)
