"""The players app's sections of a player's own data ("download my data",
``accounts.export``): their rating and its every change, their seasons, and their record
of each finished deal (R10.10, R10.11). Registered when the app is ready."""

from __future__ import annotations

from typing import Any

from accounts.export import section
from games.players.models import PlayedDeal, Rating, RatingChange, SeasonScore


def _when(moment) -> str | None:
    return None if moment is None else moment.isoformat()


@section("rating")
def rating_section(user) -> dict[str, Any] | None:
    row = Rating.objects.filter(user=user).first()
    changes = [
        {"deal": change.deal_id, "seat": change.position + 1, "won": change.won, "when": _when(change.created_at),
         "before": change.mu_before, "after": change.mu_after, "uncertainty_after": change.sigma_after,
         "rated_deals": change.rated_deals}
        for change in RatingChange.objects.filter(user=user).order_by("created_at", "id")
    ]
    return {
        "rating": None if row is None else row.mu,
        "uncertainty": None if row is None else row.sigma,
        "rated_deals": 0 if row is None else row.rated_deals,
        "shown": None if row is None else row.shown,
        "changes": changes,
        "seasons": [
            {"season": score.season.isoformat(), "points": score.points, "rated_deals": score.rated_deals,
             "rating": score.mu}
            for score in SeasonScore.objects.filter(user=user).order_by("season")
        ],
    }


@section("deal_records")
def deal_records_section(user) -> list[dict[str, Any]]:
    return [
        {"deal": played.deal_id, "match": played.match_id, "table_kind": played.table_kind,
         "seat": played.position + 1, "place": played.place, "won": played.won, "level_change": played.advance,
         "partner": played.partner.get_username() if played.partner_id else None,
         "mostly_automatic": played.assisted, "accuracy": played.accuracy, "finished": _when(played.finished_at)}
        for played in PlayedDeal.objects.filter(user=user).select_related("partner").order_by("finished_at", "id")
    ]
