"""Reads of ``games.players``: leaderboards (R10.11), a player's rank, rating history and
figures for the player page.

The leaderboards read pages of 50 through indexes (best first, ties by the older
account), and cache each page, its row count and each viewer's rank for a minute, so a
page costs a handful of queries however many players there are (README, "Leaderboards":
the figures at 100,000 players).
"""

from __future__ import annotations

import datetime
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db.models import Avg, Count, Q, QuerySet
from django.utils import timezone

from accounts import career
from accounts.models import Profile
from games.models import Table
from games.players import rating
from games.players.models import PlayedDeal, Rating, RatingChange, SeasonScore
from games.players.models import season_of

PAGE_SIZE = 50
BY = ("rating", "points")
PERIODS = ("season", "all")


@dataclass(frozen=True)
class Board:
    """One leaderboard: by rating or career points, this season or all time; ratings
    established, or provisional ones apart (R10.11)."""

    by: str = "rating"
    period: str = "all"
    provisional: bool = False
    season: datetime.date | None = None

    @classmethod
    def from_query(cls, params, now=None) -> Board:
        by = params.get("by") if params.get("by") in BY else "rating"
        period = params.get("period") if params.get("period") in PERIODS else "all"
        provisional = by == "rating" and params.get("provisional") == "1"
        season = season_of(now or timezone.now()) if period == "season" else None
        return cls(by, period, provisional, season)

    @property
    def key(self) -> str:
        return f"{self.by}:{self.period}:{int(self.provisional)}:{self.season or ''}"

    def query(self) -> dict[str, str]:
        params = {"by": self.by, "period": self.period}
        if self.provisional:
            params["provisional"] = "1"
        return params

    def rows(self) -> QuerySet:
        """The board's rows, best first: each with ``user_id`` and ``value`` (the sort key)."""
        if self.by == "rating" and self.period == "all":
            if self.provisional:
                base = Rating.objects.filter(rated_deals__gt=0, rated_deals__lt=rating.PROVISIONAL_DEALS)
            else:
                base = Rating.objects.filter(rated_deals__gte=rating.PROVISIONAL_DEALS)
            return base.order_by("-mu", "user_id")
        if self.by == "rating":
            return SeasonScore.objects.filter(season=self.season, rated_deals__gt=0,
                                              provisional=self.provisional).order_by("-mu", "user_id")
        if self.period == "all":
            return Profile.objects.filter(is_guest=False, career_points__gt=0).order_by("-career_points", "user_id")
        return SeasonScore.objects.filter(season=self.season, points__gt=0).order_by("-points", "user_id")

    @property
    def value_field(self) -> str:
        if self.by == "rating":
            return "mu"
        return "career_points" if self.period == "all" else "points"

    def ahead_of(self, value) -> Q:
        """The rows ranked before a row with sort value ``value`` (ties: lower user id)."""
        return Q(**{f"{self.value_field}__gt": value})


def _names(board: Board, user_ids: list[int]) -> dict[int, tuple[str, str]]:
    """username and display name of the players on a page (one query for 50)."""
    from accounts.models import Profile as AccountProfile

    return {
        user_id: (username, name) for user_id, username, name in
        AccountProfile.objects.filter(user_id__in=user_ids).values_list("user_id", "user__username", "display_name")
    }


def _row(board: Board, item: dict, rank: int, names: dict[int, tuple[str, str]]) -> dict:
    username, name = names.get(item["user_id"], ("", ""))
    row = {"rank": rank, "user_id": item["user_id"], "username": username, "name": name}
    if board.by == "rating":
        row["value"] = rating.shown(item["mu"], rating.PROVISIONAL_DEALS if not board.provisional else 0)
        row["deals"] = item.get("rated_deals", 0)
    else:
        row["value"] = item[board.value_field]
    if board.by == "points" and board.period == "all":
        row["tier"] = career.highest_open_tier(item["career_points"]).key  # worded when drawn
    return row


def _fields(board: Board) -> list[str]:
    fields = ["user_id", board.value_field]
    if board.by == "rating":
        fields.append("rated_deals")
    return fields


GENERATION_KEY = "lb:generation"


def _key(*parts) -> str:
    """A cache key of the leaderboards' current generation (``forget_cached``)."""
    generation = cache.get(GENERATION_KEY)
    if generation is None:
        cache.add(GENERATION_KEY, uuid.uuid4().hex, None)
        generation = cache.get(GENERATION_KEY, "")
    return ":".join(["lb", generation, *map(str, parts)])


def _cached(key: str, compute):
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, settings.GUANDAN_LEADERBOARD_CACHE_SECONDS)
    return value


def forget_cached() -> None:
    """Every process draws the leaderboards afresh from now on (after recomputing the
    ratings, say), rather than when their cached pages expire."""
    cache.set(GENERATION_KEY, uuid.uuid4().hex, None)


def board_count(board: Board) -> int:
    return _cached(_key("count", board.key), lambda: board.rows().count())


def board_page(board: Board, page: int) -> list[dict]:
    """Page ``page`` (from 1) of the board: up to 50 rows with their ranks. Nothing in a
    row depends on the reader's language (the pages are cached for every reader)."""

    def rows():
        # The page is read from the board's own index alone (a deep page skips index
        # entries, not joined rows), then its 50 players' names.
        start = (page - 1) * PAGE_SIZE
        items = list(board.rows().values(*_fields(board))[start:start + PAGE_SIZE])
        names = _names(board, [item["user_id"] for item in items])
        return [_row(board, item, start + index + 1, names) for index, item in enumerate(items)]

    return _cached(_key("page", board.key, page), rows)


def rank_of(board: Board, user) -> int | None:
    """The viewer's rank on the board (None when not on it)."""
    if user is None or not user.is_authenticated:
        return None
    return _cached(_key("rank", board.key, user.pk), lambda: _rank(board, user)) or None


def _rank(board: Board, user) -> int:
    """1 + the rows ahead of the user's (0 when not on the board: cached as such)."""
    mine = board.rows().filter(user_id=user.pk).values_list(board.value_field, flat=True).first()
    if mine is None:
        return 0
    # Two range counts on the board's index (an OR of the two would scan it all).
    above = board.rows().filter(board.ahead_of(mine)).count()
    tied_before = board.rows().filter(**{board.value_field: mine}, user_id__lt=user.pk).count()
    return above + tied_before + 1


def pages_of(count: int) -> int:
    return max(1, -(-count // PAGE_SIZE))


def page_of_rank(rank: int) -> int:
    return (rank - 1) // PAGE_SIZE + 1


# ----------------------------------------------------------------------------------------
# A player


def rating_of(user) -> Rating | None:
    return Rating.objects.filter(user=user).first()


def rating_history(user, *, limit: int = 400) -> list[tuple[datetime.datetime, float]]:
    """The player's rating after each of their latest rated deals, oldest first, preceded
    by where the first of them started."""
    changes = list(
        RatingChange.objects.filter(user=user).order_by("-created_at", "-id")
        .values_list("created_at", "mu_before", "mu_after")[:limit]
    )
    changes.reverse()
    if not changes:
        return []
    points = [(changes[0][0], changes[0][1])]
    points += [(when, after) for when, _before, after in changes]
    return points


KINDS = (Table.Kind.MATCH, Table.Kind.FRIEND, Table.Kind.PRACTICE)


def deal_figures(user, *, kinds=KINDS) -> list[dict]:
    """The player's deals by table kind: deals, matches, deal wins, 头游 (1st places),
    their rates, and the mean accuracy of the analysed ones (复盘)."""
    rows = {
        item["table_kind"]: item for item in
        PlayedDeal.objects.filter(user=user, table_kind__in=kinds).values("table_kind").annotate(
            deals=Count("id"), matches=Count("match", distinct=True), wins=Count("id", filter=Q(won=True)),
            firsts=Count("id", filter=Q(place=1)), analysed=Count("accuracy"), accuracy=Avg("accuracy"),
        )
    }
    out = []
    for kind in kinds:
        item = rows.get(kind)
        if item is None:
            continue
        deals = item["deals"]
        out.append({
            "kind": kind,
            "label": Table.Kind(kind).label,
            "deals": deals,
            "matches": item["matches"],
            "wins": item["wins"],
            "firsts": item["firsts"],
            "win_rate": round(100 * item["wins"] / deals) if deals else None,
            "first_rate": round(100 * item["firsts"] / deals) if deals else None,
            "analysed": item["analysed"],
            "accuracy": None if item["accuracy"] is None else round(item["accuracy"]),
        })
    return out


def favourite_partners(user, *, kinds=KINDS, limit: int = 5) -> list[dict]:
    """The people the player partnered most often, with their deals together and wins."""
    return list(
        PlayedDeal.objects.filter(user=user, partner__isnull=False, table_kind__in=kinds)
        .values("partner__username", "partner__profile__display_name")
        .annotate(deals=Count("id"), wins=Count("id", filter=Q(won=True)))
        .order_by("-deals", "partner__username")[:limit]
    )


def season_score(user, now=None) -> SeasonScore | None:
    return SeasonScore.objects.filter(user=user, season=season_of(now or timezone.now())).first()
