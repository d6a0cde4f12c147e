"""Reads of quick play: the waiting counts by tier and one player's place (R10.9)."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from accounts import career
from accounts.models import Profile
from games.models import Table
from games.quickplay.models import QueueEntry


def waiting_counts() -> dict[str, int]:
    """How many players wait in each tier's queue (every tier, 0 when none)."""
    counts = dict(
        QueueEntry.objects.filter(status=QueueEntry.Status.WAITING).values_list("tier").annotate(n=Count("id"))
    )
    return {tier: counts.get(tier, 0) for tier in career.TIERS}


def entry_of(user) -> QueueEntry | None:
    if user is None or not user.is_authenticated:
        return None
    return QueueEntry.objects.filter(user=user).select_related("table").first()


def open_tiers(profile: Profile | None) -> list[career.TierRule]:
    """The tiers a player may queue for (R10.7); none for guests and visitors."""
    if profile is None or profile.is_guest:
        return []
    return [rule for rule in career.TIERS.values() if career.tier_is_open(rule.key, profile.career_points)]


def state_of(user, counts: dict[str, int] | None = None) -> dict:
    """What a player's quick-play panel shows: waiting (the tier, since when, how many
    wait there, the partner and the invitation code), seated (the table to go to), or
    neither (the tiers open to them)."""
    entry = entry_of(user)
    profile = Profile.objects.filter(user=user).first() if user is not None and user.is_authenticated else None
    state = {"entry": None, "tiers": [], "partner": None, "goto": None,
             "fill_after": round(settings.GUANDAN_QUICKPLAY_BOT_FILL_AFTER)}
    if entry is None or entry.status != QueueEntry.Status.WAITING:
        tiers = open_tiers(profile)
        if tiers:
            counts = counts if counts is not None else waiting_counts()
            state["tiers"] = [{"key": rule.key, "label": rule.label, "count": counts.get(rule.key, 0)} for rule in tiers]
    if entry is None:
        return state
    if entry.status == QueueEntry.Status.SEATED:
        if entry.table is not None and entry.table.status in (Table.Status.WAITING, Table.Status.PLAYING):
            state["goto"] = entry.table
        return state
    counts = counts if counts is not None else waiting_counts()
    partner = (
        QueueEntry.objects.filter(party=entry.party, status=QueueEntry.Status.WAITING).exclude(pk=entry.pk)
        .select_related("user__profile").first()
    )
    state.update({
        "entry": entry,
        "waiting": counts.get(entry.tier, 0),
        "waited": max(0, int((timezone.now() - entry.joined_at).total_seconds())),
        "tier": career.TIERS[entry.tier],
        "partner": partner.user if partner is not None else None,
    })
    return state
