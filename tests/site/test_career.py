"""Career points (R10.1, R10.6, R10.7): awards, the leave penalty, tiers, the ledger and the
leaderboard."""

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts import career, selectors
from accounts import services as account_services
from accounts.models import PointsEntry, Profile
from games.models import Deal
from games.tables import services


def make_deal(match, number=1):
    """Deal ``number`` of the match: the first was dealt when the match started; later
    ones are written here with the fields R11.1 needs."""
    deal, _created = Deal.objects.get_or_create(
        match=match,
        number=number,
        defaults={"ruleset_version": "test", "seed": number, "hands": [[], [], [], []], "active_level": 0,
                  "team_levels_before": [0, 0]},
    )
    return deal


@pytest.fixture
def match_at(make_user, make_table):
    """``match_at(kind="match", tier="junior")``: a started match with two registered humans
    in seats 1 and 3 (team A), a guest-free bot team B; returns ``(match, [seat1, seat3])``."""

    def make(kind="match", tier="junior"):
        points = career.TIERS[tier].opens_at if kind == "match" else 0
        host, partner = make_user(points=points), make_user(points=points)
        table = make_table(host, kind=kind, tier=tier if kind == "match" else "")
        services.take_seat(table=table, user=partner, position=2, invite_code=table.invite_code)
        services.fill_with_bots(table=table, user=host)
        return services.start_match(table=table, user=host), [host, partner]

    return make


def points_of(user):
    return Profile.objects.get(user=user).career_points


@pytest.mark.parametrize(("tier", "factor"), [("junior", 1), ("senior", 2), ("grandmaster", 3)])
def test_deal_winners_earn_levels_times_tier_factor(match_at, tier, factor):
    """R10.6: each winner earns (levels advanced) x (tier factor)."""
    match, winners = match_at(tier=tier)
    before = [points_of(user) for user in winners]
    deal = make_deal(match)
    entries = account_services.award_deal_points(deal=deal, winners=winners, levels_advanced=3, match_won=False)
    assert [points_of(user) - start for user, start in zip(winners, before)] == [3 * factor, 3 * factor]
    assert {(e.reason, e.delta, e.deal_id, e.match_id, e.table_id) for e in entries} == {
        (PointsEntry.Reason.DEAL_WIN, 3 * factor, deal.pk, match.pk, match.table_id)
    }


@pytest.mark.parametrize(("tier", "factor"), [("junior", 1), ("senior", 2), ("grandmaster", 3)])
def test_match_winners_earn_ten_times_the_factor_more(match_at, tier, factor):
    """R10.6: the match winners earn a further 10 x tier factor."""
    match, winners = match_at(tier=tier)
    start = points_of(winners[0])
    deal = make_deal(match)
    account_services.award_deal_points(deal=deal, winners=winners, levels_advanced=2, match_won=True)
    assert points_of(winners[0]) - start == 2 * factor + 10 * factor
    assert PointsEntry.objects.filter(user=winners[0], reason=PointsEntry.Reason.MATCH_WIN, match=match).get().delta == 10 * factor


def test_bots_guests_and_losers_earn_nothing(match_at, make_user, make_guest):
    """R10.1: bots never earn points; guests earn none; losers lose nothing (R10.6)."""
    match, winners = match_at()
    loser = make_user(points=30)
    guest = make_guest()
    deal = make_deal(match)
    entries = account_services.award_deal_points(deal=deal, winners=[None, guest], levels_advanced=3, match_won=True)
    assert entries == []
    assert points_of(guest) == 0 and points_of(loser) == 30
    assert not PointsEntry.objects.filter(user__in=[guest, loser], deal=deal).exists()


@pytest.mark.parametrize("kind", ["friend", "practice"])
def test_friend_and_practice_tables_award_nothing(make_user, make_table, kind):
    """R10.3, R10.4: friend and practice tables award no career points."""
    host = make_user()
    table = make_table(host, kind=kind)
    if kind == "friend":
        services.take_seat(table=table, user=make_user(), position=1, invite_code=table.invite_code)
        services.fill_with_bots(table=table, user=host)
    match = services.start_match(table=table, user=host)
    entries = account_services.award_deal_points(deal=make_deal(match), winners=[host], levels_advanced=3, match_won=True)
    assert entries == [] and points_of(host) == 0


def test_awarding_a_deal_twice_awards_once(match_at):
    match, winners = match_at()
    deal = make_deal(match)
    account_services.award_deal_points(deal=deal, winners=winners, levels_advanced=1, match_won=True)
    again = account_services.award_deal_points(deal=deal, winners=winners, levels_advanced=1, match_won=True)
    assert again == []
    assert points_of(winners[0]) == 11


def test_each_deal_counts_separately(match_at):
    match, winners = match_at()
    for number, advance in [(1, 3), (2, 1), (3, 2)]:
        account_services.award_deal_points(deal=make_deal(match, number), winners=winners, levels_advanced=advance, match_won=False)
    assert points_of(winners[1]) == 6
    assert PointsEntry.objects.filter(user=winners[1]).count() == 3


def test_no_levels_advanced_no_entry(match_at):
    match, winners = match_at()
    assert account_services.award_deal_points(deal=make_deal(match), winners=winners, levels_advanced=0, match_won=False) == []


@pytest.mark.parametrize(("tier", "points", "expected"), [("junior", 25, 15), ("senior", 125, 105), ("grandmaster", 600, 570), ("junior", 4, 0)])
def test_leave_penalty_is_ten_times_the_factor_never_below_zero(make_user, make_table, tier, points, expected):
    """R10.7: leaving a match in progress costs 10 x tier factor, never below 0."""
    user = make_user(points=points)
    table = make_table(user, kind="match", tier=tier)
    entry = account_services.apply_leave_penalty(user=user, table=table)
    assert points_of(user) == expected
    assert entry.delta == expected - points and entry.balance_after == expected


def test_leave_penalty_at_zero_writes_nothing(make_user, make_table):
    user = make_user()
    table = make_table(user)
    assert account_services.apply_leave_penalty(user=user, table=table) is None
    assert not PointsEntry.objects.exists()


def test_leave_penalty_skips_guests_and_other_tables(make_user, make_guest, make_table):
    guest = make_guest()
    friend = make_table(guest, kind="friend")
    assert account_services.apply_leave_penalty(user=guest, table=friend) is None
    user = make_user(points=50)
    practice = make_table(user, kind="practice")
    assert account_services.apply_leave_penalty(user=user, table=practice) is None
    assert points_of(user) == 50


@pytest.mark.parametrize(
    ("points", "tier", "next_tier"),
    [(0, "junior", "senior"), (99, "junior", "senior"), (100, "senior", "grandmaster"), (499, "senior", "grandmaster"), (500, "grandmaster", None)],
)
def test_tiers_open_by_points(points, tier, next_tier):
    """R10.7: Junior to everyone, Senior from 100 points, Grandmaster from 500."""
    assert career.highest_open_tier(points).key == tier
    assert (career.next_tier(points).key if career.next_tier(points) else None) == next_tier
    assert career.tier_is_open("junior", points)
    assert career.tier_is_open("senior", points) == (points >= 100)
    assert career.tier_is_open("grandmaster", points) == (points >= 500)


def test_tier_factors():
    """R10.6: Junior 1, Senior 2, Grandmaster 3."""
    assert [career.tier_factor(key) for key in ("junior", "senior", "grandmaster")] == [1, 2, 3]


def test_every_change_is_a_ledger_row_with_its_reason(match_at):
    match, winners = match_at()
    user = winners[0]
    deal = make_deal(match)
    account_services.award_deal_points(deal=deal, winners=[user], levels_advanced=3, match_won=False)
    account_services.apply_leave_penalty(user=user, table=match.table, match=match)
    account_services.adjust_points(user=user, delta=5, note="tournament prize")
    rows = list(PointsEntry.objects.filter(user=user).order_by("id").values_list("reason", "delta", "balance_after"))
    assert rows == [("deal_win", 3, 3), ("leave_penalty", -3, 0), ("adjustment", 5, 5)]
    assert selectors.ledger_total(user) == points_of(user) == 5


def test_guests_have_no_points_to_adjust(make_guest):
    with pytest.raises(account_services.AccountError, match="R10.1"):
        account_services.adjust_points(user=make_guest(), delta=5, note="")


def test_leaderboard_orders_registered_players_by_points(make_user, make_guest):
    from games.players.selectors import Board, board_page

    low, high, middle = make_user(points=10), make_user(points=520), make_user(points=130)
    make_guest()
    board = board_page(Board("points", "all"), 1)
    assert [row["user_id"] for row in board] == [high.pk, middle.pk, low.pk]
    assert [row["tier"] for row in board] == ["grandmaster", "senior", "junior"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("award"), st.integers(min_value=0, max_value=3), st.booleans()),
            st.tuples(st.just("leave"), st.just(0), st.just(False)),
            st.tuples(st.just("adjust"), st.integers(min_value=-60, max_value=60).filter(bool), st.just(False)),
        ),
        max_size=12,
    ),
    tier=st.sampled_from(["junior", "senior", "grandmaster"]),
)
def test_points_always_equal_the_ledger_and_never_go_negative(match_at, steps, tier):
    """Whatever happens, career points equal the ledger's sum and stay at 0 or above."""
    with transaction.atomic():
        match, winners = match_at(tier=tier)
        user = winners[0]
        for number, (kind, amount, won) in enumerate(steps, start=1):
            if kind == "award":
                account_services.award_deal_points(deal=make_deal(match, number), winners=[user], levels_advanced=amount, match_won=won)
            elif kind == "leave":
                account_services.apply_leave_penalty(user=user, table=match.table, match=match)
            else:
                account_services.adjust_points(user=user, delta=amount, note="")
            assert points_of(user) == selectors.ledger_total(user) >= 0
        transaction.set_rollback(True)
