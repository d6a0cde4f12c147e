"""Reads about people: profiles, recent matches, the ledger (the leaderboards: ``games.players``)."""

from django.db.models import Max, Q, Sum

from .models import PointsEntry, Profile


def profile_of(user) -> Profile:
    """The user's profile (every user has one: ``accounts.signals``)."""
    return Profile.objects.select_related("user").get(user=user)


def display_name_of(user) -> str:
    """The name to show for a user; falls back to the username."""
    profile = getattr(user, "profile", None)
    return profile.display_name if profile is not None else user.get_username()


def ledger_of(user, *, limit: int = 20):
    """The user's latest points changes, newest first."""
    return PointsEntry.objects.filter(user=user).select_related("table", "match", "deal").order_by("-created_at", "-id")[:limit]


def ledger_total(user) -> int:
    """The sum of the user's ledger: always equal to ``Profile.career_points``."""
    return PointsEntry.objects.filter(user=user).aggregate(total=Sum("delta"))["total"] or 0


def recent_matches(user, *, limit: int = 10) -> list[dict]:
    """The user's latest matches with the seat, result and points each brought.

    Each item: ``match``, ``position``, ``outcome`` ("won", "lost", "playing" or
    "abandoned"), ``points`` (net career points from that match), ``last_deal`` (the
    id of its latest finished deal, for the replay link, or None).
    """
    from games.models import Deal, Match, Participant

    participations = (
        # A tournament's boards have their own pages (and no winner of a match).
        Participant.objects.filter(Q(user=user)).exclude(match__table__kind="tournament")
        .select_related("match__table")
        .order_by("-match__started_at", "-match_id")[:limit]
    )
    points = dict(
        PointsEntry.objects.filter(user=user, match__in=[item.match_id for item in participations])
        .values_list("match")
        .annotate(total=Sum("delta"))
    )
    last_deals = dict(
        Deal.objects.filter(match__in=[item.match_id for item in participations], finished_at__isnull=False)
        .values_list("match").annotate(last=Max("pk"))
    )
    rows = []
    for item in participations:
        match = item.match
        if match.status == Match.Status.PLAYING:
            outcome = "playing"
        elif match.status == Match.Status.ABANDONED:
            outcome = "abandoned"
        else:
            outcome = "won" if match.winner_team == item.team else "lost"
        rows.append({"match": match, "position": item.position, "outcome": outcome, "points": points.get(match.pk, 0),
                     "last_deal": last_deals.get(match.pk)})
    return rows
