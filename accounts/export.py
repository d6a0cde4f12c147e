"""A player's own data, as one JSON document ("download my data").

``export_for(user)`` gathers every section registered here, in order. A section is a
function of the user returning what the site holds about that player under one name;
adding one (ratings, say) is one more function with ``@section("ratings")``.

What a section may hold: the player's own data in full; of others, only what the player
was shown at the table (the names in the seats of the player's matches). A deal still in
play holds no card: its hands are exported once it is finished, as its replay shows them
(hidden information, R9.3).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils import timezone

from accounts.models import BotAccount, PointsEntry, Profile

FORMAT = "guandan-personal-data"
VERSION = 1

SECTIONS: dict[str, Callable[[Any], Any]] = {}


def section(name: str):
    """Register a section of the export under ``name`` (kept in registration order)."""
    def register(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
        SECTIONS[name] = func
        return func
    return register


def export_for(user) -> dict[str, Any]:
    """Everything the site holds about ``user``, section by section."""
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "exported_at": _when(timezone.now())}
    for name, build in SECTIONS.items():
        data[name] = build(user)
    return data


def _when(moment) -> str | None:
    return None if moment is None else moment.isoformat()


@section("account")
def account_section(user) -> dict[str, Any]:
    profile = Profile.objects.get(user=user)
    return {
        "username": user.get_username(),
        "email": user.email,
        "display_name": profile.display_name,
        "guest": profile.is_guest,
        "language": profile.language,
        "joined": _when(user.date_joined),
        "last_login": _when(user.last_login),
        "career_points": profile.career_points,
        "staff": user.is_staff,
    }


@section("career_ledger")
def ledger_section(user) -> list[dict[str, Any]]:
    return [
        {
            "time": _when(entry.created_at), "change": entry.delta, "balance_after": entry.balance_after,
            "reason": entry.reason, "note": entry.note, "table": entry.table_id, "match": entry.match_id,
            "deal": entry.deal_id,
        }
        for entry in PointsEntry.objects.filter(user=user).order_by("created_at", "id")
    ]


def _matches_of(user_ids) -> list[dict[str, Any]]:
    from games.models import Participant
    from games.replays.log import export_deal

    rows = []
    participations = (
        Participant.objects.filter(user_id__in=user_ids)
        .select_related("match__table")
        .prefetch_related("match__participants__user__profile", "match__deals__actions")
        .order_by("match__started_at", "match_id")
    )
    for mine in participations:
        match = mine.match
        seats = []
        for participant in sorted(match.participants.all(), key=lambda p: p.position):
            if participant.user is not None:
                name = participant.user.profile.display_name
            else:
                name = None  # a built-in bot, or a deleted player
            seats.append({"seat": participant.position + 1, "name": name, "bot": participant.is_bot,
                          "bot_level": participant.bot_level or None})
        deals = []
        for deal in sorted(match.deals.all(), key=lambda d: d.number):
            if deal.is_finished:
                deals.append({"finished": True, **export_deal(deal, list(deal.actions.all()))})
            else:
                deals.append({"finished": False, "number": deal.number, "started": _when(deal.started_at),
                              "note": "in play: its cards are exported once it is finished (R9.3)"})
        rows.append({
            "match": match.pk, "table": match.table_id, "table_kind": match.table.kind,
            "tier": match.table.tier or None, "number": match.number, "status": match.status,
            "started": _when(match.started_at), "finished": _when(match.finished_at),
            "your_seat": mine.position + 1, "your_team": "AB"[mine.team],
            "winner_team": None if match.winner_team is None else "AB"[match.winner_team],
            "seats": seats, "deals": deals,
        })
    return rows


@section("matches")
def matches_section(user) -> list[dict[str, Any]]:
    """Every match the player sat in when it started, with every deal of it."""
    return _matches_of([user.pk])


@section("bot_accounts")
def bots_section(user) -> list[dict[str, Any]]:
    """The player's bot accounts (never their tokens: the site has only their hashes) and
    the matches each played."""
    return [
        {
            "name": bot.name, "token_starts_with": bot.token_hint, "approved": bot.approved,
            "revoked": _when(bot.revoked_at), "created": _when(bot.created_at),
            "last_connected": _when(bot.last_seen_at), "matches": _matches_of([bot.user_id]),
        }
        for bot in BotAccount.objects.filter(owner=user).order_by("created_at", "id")
    ]


@section("analyses_requested")
def analyses_section(user) -> list[dict[str, Any]]:
    from games.models import DealAnalysis

    return [
        {"deal": analysis.deal_id, "requested": _when(analysis.requested_at), "status": analysis.status}
        for analysis in DealAnalysis.objects.filter(requested_by=user).order_by("requested_at", "id")
    ]
