"""Database constraints that make illegal rows impossible, whatever code writes them."""

import pytest
from django.db import IntegrityError, transaction

from accounts.models import PointsEntry, Profile
from games.models import Action, Deal, Match, Seat, Table
from games.tables import services


def violates(**create):
    model = create.pop("model")
    with pytest.raises(IntegrityError), transaction.atomic():
        model.objects.create(**create)


@pytest.fixture
def table(make_user, make_table):
    return make_table(make_user())


@pytest.fixture
def deal(full_table):
    table, users = full_table
    match = services.start_match(table=table, user=users[0])
    return Deal.objects.get(match=match, number=1)  # starting the match deals the first deal


def test_one_player_per_seat(table, make_user):
    violates(model=Seat, table=table, position=0, user=make_user())


def test_one_seat_per_player_at_a_table(table):
    violates(model=Seat, table=table, position=1, user=table.host)


def test_a_seat_is_a_human_or_a_bot_never_both(table, make_user):
    violates(model=Seat, table=table, position=1, user=make_user(), is_bot=True, bot_level="easy")


def test_an_occupied_seat_has_a_human_or_a_bot(table):
    violates(model=Seat, table=table, position=1)


def test_a_bot_has_a_level_and_a_human_none(table, make_user):
    violates(model=Seat, table=table, position=1, is_bot=True, bot_level="")
    violates(model=Seat, table=table, position=2, user=make_user(), bot_level="hard")


def test_only_a_bot_seat_keeps_an_away_player(table, make_user):
    violates(model=Seat, table=table, position=1, user=make_user(), away_user=make_user())
    Seat.objects.create(table=table, position=2, is_bot=True, bot_level="easy", away_user=make_user())


def test_seat_positions_are_0_to_3(table):
    violates(model=Seat, table=table, position=4, is_bot=True, bot_level="easy")


def test_unique_action_seq_per_deal(deal):
    Action.objects.create(deal=deal, seq=1, seat=0, kind="play", cards=[5], actor="human")
    violates(model=Action, deal=deal, seq=1, seat=1, kind="pass", cards=[], actor="bot")


def test_action_seq_starts_at_one_and_passes_carry_no_cards(deal):
    violates(model=Action, deal=deal, seq=0, seat=0, kind="pass", actor="bot")
    violates(model=Action, deal=deal, seq=1, seat=0, kind="pass", cards=[3], actor="bot")
    violates(model=Action, deal=deal, seq=1, seat=4, kind="play", cards=[3], actor="bot")


def test_actions_are_ordered_by_seq(deal):
    for seq in (3, 1, 2):
        Action.objects.create(deal=deal, seq=seq, seat=0, kind="play", cards=[seq], actor="bot")
    assert list(deal.actions.values_list("seq", flat=True)) == [1, 2, 3]


def test_unique_deal_number_per_match(deal):
    violates(
        model=Deal, match=deal.match, number=1, ruleset_version="t", seed=2, hands=[], active_level=0, team_levels_before=[0, 0]
    )


def test_a_finished_deal_has_a_result(deal):
    from django.utils import timezone

    deal.finished_at = timezone.now()
    with pytest.raises(IntegrityError), transaction.atomic():
        deal.save()


def test_one_match_in_progress_per_table(deal):
    violates(model=Match, table=deal.match.table, number=2, seed=3)


def test_match_levels_stay_within_2_to_a(table):
    violates(model=Match, table=table, number=1, seed=1, level_a=13)


def test_tier_only_on_match_tables(make_user):
    host = make_user()
    violates(model=Table, kind="practice", tier="junior", host=host)
    violates(model=Table, kind="match", tier="", host=host)


def test_invitation_code_only_on_friend_tables(make_user):
    host = make_user()
    violates(model=Table, kind="friend", tier="", host=host)
    violates(model=Table, kind="practice", tier="", host=host, invite_code="ABCDEFGH")


def test_guests_hold_no_points(make_guest):
    guest = make_guest()
    with pytest.raises(IntegrityError), transaction.atomic():
        Profile.objects.filter(user=guest).update(career_points=5)


def test_ledger_rows_change_something_once_per_deal(deal, make_user):
    user = make_user()
    violates(model=PointsEntry, user=user, delta=0, balance_after=0, reason="adjustment")
    PointsEntry.objects.create(user=user, delta=2, balance_after=2, reason="deal_win", deal=deal)
    violates(model=PointsEntry, user=user, delta=2, balance_after=4, reason="deal_win", deal=deal)
