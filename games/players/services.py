"""Writes of ``games.players``: what a settled deal does to its players' records and
ratings, and recomputing every rating from the stored deals.

``record_deal`` runs inside the transaction that settles a deal (``games.live.door``),
after the career points (R10.6): the deal's players, its rating changes (R10.10) and
season standings (R10.11) are committed with the deal or not at all.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping

from django.db import transaction
from django.db.models import BooleanField, Case, F, FloatField, Value, When

from games.models import Deal, Participant, Seat, Table
from games.players import rating
from games.players.models import PlayedDeal, Rating, RatingChange, SeasonScore, season_of


def seat_record(seats: Mapping[int, Seat | Participant]) -> list[dict]:
    """Who played each seat at a deal's end, as the deal stores it (R11.1's record of
    the players): ``{"user": id}`` for a person, ``{"bot": level}`` for a bot (also one
    playing for a player who left, R10.7). Seats or a match's participants."""
    out = []
    for position in range(4):
        seat = seats.get(position)
        if seat is None or seat.is_bot or seat.user_id is None:
            out.append({"bot": getattr(seat, "bot_level", "") or "normal"})
        else:
            out.append({"user": seat.user_id})
    return out


def _rated_users(table_kind: str, seats: list[dict], assisted: Iterable[int], excluded: set[int]) -> dict[int, int]:
    """Seat position -> user id of the players a deal rates: people at match tables
    whose deal counted (R10.8: not the mostly automatic), not guests nor bot accounts."""
    if table_kind != Table.Kind.MATCH:
        return {}
    skip = set(assisted)
    return {
        position: seat["user"] for position, seat in enumerate(seats)
        if "user" in seat and position not in skip and seat["user"] not in excluded
    }


def _locked_ratings(user_ids: Iterable[int]) -> dict[int, Rating]:
    """The players' rating rows, created at the start rating when missing, locked in
    user order (every writer locks them in the same order)."""
    ids = sorted(set(user_ids))
    if not ids:
        return {}
    existing = set(Rating.objects.filter(user_id__in=ids).values_list("user_id", flat=True))
    missing = [Rating(user_id=user_id) for user_id in ids if user_id not in existing]
    if missing:
        Rating.objects.bulk_create(missing, ignore_conflicts=True)
    return {row.user_id: row for row in Rating.objects.select_for_update().filter(user_id__in=ids).order_by("user_id")}


def _apply_to_seasons(rows: list[Rating], season: datetime.date) -> None:
    """Each newly rated player's season standing (R10.11): one more rated deal, and the
    rating as it is now. The rows of one deal's players in three statements at most,
    whatever their number (a read of who has a row, one update, one insert)."""
    by_user = {row.user_id: row for row in rows}
    scores = SeasonScore.objects.filter(user_id__in=by_user, season=season)
    existing = set(scores.values_list("user_id", flat=True))
    if existing:
        scores.filter(user_id__in=existing).update(
            rated_deals=F("rated_deals") + 1,
            mu=Case(*[When(user_id=u, then=Value(by_user[u].mu)) for u in existing], output_field=FloatField()),
            provisional=Case(*[When(user_id=u, then=Value(by_user[u].rated_deals < rating.PROVISIONAL_DEALS))
                               for u in existing], output_field=BooleanField()),
        )
    SeasonScore.objects.bulk_create([
        SeasonScore(user_id=u, season=season, rated_deals=1, mu=row.mu,
                    provisional=row.rated_deals < rating.PROVISIONAL_DEALS)
        for u, row in by_user.items() if u not in existing
    ])


def record_deal(*, table: Table, deal: Deal, seats: Mapping[int, Seat], assisted: Iterable[int] = ()) -> dict:
    """Record a settled deal for its players (call inside the settling transaction, with
    ``deal.result`` written): who played each seat (stored in the result), each human's
    ``PlayedDeal``, and at a match table the rating changes (R10.10). Returns the rating
    changes by seat position, as stored in ``deal.result["ratings"]`` for the settlement
    overlay: ``{"0": {"before": "1500?", "after": "1512?", "delta": 12}}``.

    Idempotent: a deal already recorded for a player changes nothing more for them.
    """
    result = deal.result
    assisted = list(assisted)
    result["seats"] = seat_record(seats)
    places = result["places"]
    winner_team = result["winner_team"]
    finished_at = deal.finished_at
    humans = {position: seat["user"] for position, seat in enumerate(result["seats"]) if "user" in seat}
    recorded = set(PlayedDeal.objects.filter(deal=deal).values_list("user_id", flat=True))
    PlayedDeal.objects.bulk_create([
        PlayedDeal(
            user_id=user_id, deal=deal, match_id=deal.match_id, table_kind=table.kind, position=position,
            place=places.index(position) + 1, won=position % 2 == winner_team,
            advance=result["advance"] if position % 2 == winner_team else -result["advance"],
            partner_id=humans.get((position + 2) % 4), assisted=position in assisted, finished_at=finished_at,
        )
        for position, user_id in humans.items() if user_id not in recorded
    ])
    excluded = _not_rated(humans.values())
    rated = _rated_users(table.kind, result["seats"], assisted, excluded)
    changes = _rate(deal, result["seats"], rated, winner_team, finished_at)
    result["ratings"] = changes
    return changes


def _not_rated(user_ids: Iterable[int]) -> set[int]:
    """Guests and bot accounts never have a rating (R10.1, R10.10)."""
    from accounts.models import BotAccount, Profile

    ids = list(user_ids)
    guests = set(Profile.objects.filter(user_id__in=ids, is_guest=True).values_list("user_id", flat=True))
    return guests | set(BotAccount.objects.filter(user_id__in=ids).values_list("user_id", flat=True))


def _rate(deal: Deal, seats: list[dict], rated: dict[int, int], winner_team: int, when) -> dict:
    if not rated:
        return {}
    done = set(RatingChange.objects.filter(deal=deal).values_list("user_id", flat=True))
    rated = {position: user_id for position, user_id in rated.items() if user_id not in done}
    humans = [seat["user"] for seat in seats if "user" in seat]
    rows = _locked_ratings(humans)
    skills = rating.seat_skills(seats, {user_id: row.skill for user_id, row in rows.items()})
    after = rating.rate_deal(skills, winner_team)
    changes, updated, history = {}, [], []
    for position, user_id in sorted(rated.items()):
        row = rows[user_id]
        before = row.skill
        row.mu, row.sigma = after[position].mu, after[position].sigma
        row.rated_deals += 1
        row.rated_at = when
        updated.append(row)
        history.append(RatingChange(
            user_id=user_id, deal=deal, position=position, won=position % 2 == winner_team,
            mu_before=before.mu, sigma_before=before.sigma, mu_after=row.mu, sigma_after=row.sigma,
            rated_deals=row.rated_deals, created_at=when,
        ))
        changes[str(position)] = {
            "before": rating.shown(before.mu, row.rated_deals - 1),
            "after": rating.shown(row.mu, row.rated_deals),
            "delta": round(row.mu) - round(before.mu),
        }
    if updated:
        # The players' rows in one statement each, not one per player: a settlement's
        # writes are most of its cost, and it holds the table's lock meanwhile.
        Rating.objects.bulk_update(updated, ["mu", "sigma", "rated_deals", "rated_at"])
        RatingChange.objects.bulk_create(history)
        _apply_to_seasons(updated, season_of(when))
    return changes


def record_accuracy(*, deal: Deal, accuracy: list) -> int:
    """A deal's analysis (复盘) is done: each human's accuracy goes on their record of
    it. Returns how many records changed."""
    changed = 0
    for played in PlayedDeal.objects.filter(deal=deal):
        value = accuracy[played.position] if played.position < len(accuracy) else None
        if played.accuracy != value:
            played.accuracy = value
            played.save(update_fields=["accuracy"])
            changed += 1
    return changed


def add_season_points(*, user_id: int, delta: int, when) -> None:
    """A career points change (R10.6, R10.7) counts toward its season (R10.11)."""
    season = season_of(when)
    if not SeasonScore.objects.filter(user_id=user_id, season=season).update(points=F("points") + delta):
        SeasonScore.objects.create(user_id=user_id, season=season, points=delta)


# ----------------------------------------------------------------------------------------
# Recomputing from the stored deals


def _forget_leaderboards() -> None:
    from games.players.selectors import forget_cached  # a read module: no import circle

    forget_cached()


def deal_seats(deal: Deal) -> list[dict]:
    """Who played each seat of a finished deal: as stored at its settlement, or, for a
    deal settled before seats were stored, who sat down when its match started."""
    stored = (deal.result or {}).get("seats")
    if stored:
        return stored
    return seat_record({p.position: p for p in deal.match.participants.all()})


def rated_deals_in_order():
    """Every finished deal of a match table, in the order they were settled."""
    return (
        Deal.objects.filter(finished_at__isnull=False, match__table__kind=Table.Kind.MATCH)
        .select_related("match")
        .prefetch_related(_participants())
        .order_by("finished_at", "pk")
    )


def _participants():
    from django.db.models import Prefetch

    return Prefetch("match__participants", queryset=Participant.objects.all())


def replay_ratings(deals: Iterable[Deal], excluded: set[int]) -> tuple[dict[int, rating.Skill], dict[int, int], list[dict]]:
    """Fold the rating model over ``deals`` (in settlement order) from the start rating:
    every player's final rating and count of rated deals, and every change (as
    ``RatingChange`` fields). Pure over the deals' stored results and seats."""
    skills: dict[int, rating.Skill] = {}
    counts: dict[int, int] = {}
    changes = []
    for deal in deals:
        result = deal.result or {}
        seats = deal_seats(deal)
        rated = _rated_users(Table.Kind.MATCH, seats, result.get("no_points_r10_8", []), excluded)
        if not rated:
            continue
        winner_team = result["winner_team"]
        before = rating.seat_skills(seats, skills)
        after = rating.rate_deal(before, winner_team)
        for position, user_id in sorted(rated.items()):
            skills[user_id] = after[position]
            counts[user_id] = counts.get(user_id, 0) + 1
            changes.append({
                "user_id": user_id, "deal_id": deal.pk, "position": position, "won": position % 2 == winner_team,
                "mu_before": before[position].mu, "sigma_before": before[position].sigma,
                "mu_after": after[position].mu, "sigma_after": after[position].sigma,
                "rated_deals": counts[user_id], "created_at": deal.finished_at,
            })
    return skills, counts, changes


def recompute_ratings(*, batch_size: int = 2000) -> dict:
    """Recompute every rating, rating change and season rating from the stored deals, in
    one transaction, and say how many ratings differ from what was stored before (0 when
    the live settlements and the stored deals agree). Season points are summed again
    from the career ledger."""
    from accounts.models import PointsEntry

    with transaction.atomic():
        before = {row.user_id: (row.mu, row.sigma, row.rated_deals) for row in Rating.objects.all()}
        deals = list(rated_deals_in_order())
        all_users = {seat["user"] for deal in deals for seat in deal_seats(deal) if "user" in seat}
        skills, counts, changes = replay_ratings(deals, _not_rated(all_users))
        RatingChange.objects.all().delete()
        RatingChange.objects.bulk_create([RatingChange(**change) for change in changes], batch_size=batch_size)
        Rating.objects.all().delete()
        last = {change["user_id"]: change["created_at"] for change in changes}
        Rating.objects.bulk_create(
            [Rating(user_id=user_id, mu=skill.mu, sigma=skill.sigma, rated_deals=counts[user_id], rated_at=last[user_id])
             for user_id, skill in skills.items()],
            batch_size=batch_size,
        )
        seasons: dict[tuple[int, datetime.date], SeasonScore] = {}
        for change in changes:
            key = (change["user_id"], season_of(change["created_at"]))
            score = seasons.setdefault(key, SeasonScore(user_id=key[0], season=key[1], points=0, rated_deals=0))
            score.rated_deals += 1
            score.mu = change["mu_after"]
            score.provisional = change["rated_deals"] < rating.PROVISIONAL_DEALS
        for user_id, delta, created_at in PointsEntry.objects.values_list("user_id", "delta", "created_at"):
            key = (user_id, season_of(created_at))
            score = seasons.setdefault(key, SeasonScore(user_id=user_id, season=key[1], points=0, rated_deals=0))
            score.points += delta
        SeasonScore.objects.all().delete()
        SeasonScore.objects.bulk_create(list(seasons.values()), batch_size=batch_size)
        after = {user_id: (skill.mu, skill.sigma, counts[user_id]) for user_id, skill in skills.items()}
    transaction.on_commit(_forget_leaderboards)
    differ = sum(1 for user_id in set(before) | set(after) if before.get(user_id) != after.get(user_id)
                 and (before.get(user_id) or (0, 0, 0))[2] + (after.get(user_id) or (0, 0, 0))[2] > 0)
    return {"deals": len(deals), "changes": len(changes), "players": len(after), "differ": differ}
