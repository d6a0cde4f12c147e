"""Tournament tables (R13.2, R13.5): boards dealt as single deals with no tribute, the
autopilot for absent and away entrants for the rest of the round, no assistance, no
abandoning, nobody else sitting, and each refusal citing its rule and changing nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.engine.deal import TIMEOUT
from games.live import door
from games.live import selectors as live_selectors
from games.models import Action, Deal, Match, Seat, Table
from games.tables import services as table_services
from games.tables.services import TableError
from games.tournaments import services
from games.tournaments.models import Board, Pairing

from .conftest import close_registration

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def round_one(make_tournament):
    """Round 1 of four present pairs under way: (tournament, pairing of table 1, its users by seat)."""
    tournament, _players = make_tournament(pairs=4, rounds=2, boards_per_round=2)
    close_registration(tournament)
    services.advance(tournament_id=tournament.pk)
    pairing = Pairing.objects.filter(round__tournament=tournament).order_by("number").first()
    seats = {s.position: s.user for s in pairing.table.seats.all()}
    return tournament, pairing, seats


def test_a_board_is_dealt_as_stored_with_no_tribute(round_one):
    tournament, pairing, _seats = round_one
    board = Board.objects.get(tournament=tournament, round_number=1, number=1)
    deal = live_selectors.current_deal(pairing.table)
    state = live_selectors.deal_state(deal)
    assert [sorted(h) for h in deal.hands] == [sorted(h) for h in board.hands]
    assert state.tribute.kind == "none" and state.phase == "play"
    assert deal.active_level == board.level and deal.team_levels_before == [board.level, board.level]
    assert state.turn == board.leader
    # Every table of the round plays the same first board.
    seeds = set(Deal.objects.filter(match__table__tournament_pairing__round__tournament=tournament)
                .values_list("seed", flat=True))
    assert seeds == {board.seed}


def test_two_timeouts_give_the_seat_to_the_autopilot_for_the_round(round_one, timers):
    """R13.5 (with R9.2): away for two think times in a row, the entrant's seat is played
    by the autopilot for the rest of the round; taking back control and returning are
    refused, the table plays on."""
    _tournament, pairing, seats = round_one
    table = pairing.table
    for _ in range(40):
        deal = live_selectors.current_deal(table)
        state = live_selectors.deal_state(deal)
        seat = state.to_act[0]
        if Seat.objects.get(table=table, position=seat).away_user_id is not None:
            break
        Deal.objects.filter(pk=deal.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        assert door.run_table_turn(table_id=table.pk, deal_id=deal.pk, seq=deal.seq)
    away = Seat.objects.filter(table=table, away_user__isnull=False).first()
    assert away is not None and away.is_bot
    user = away.away_user
    assert Action.objects.filter(deal__match__table=table, seat=away.position, actor=TIMEOUT).count() >= 2
    with pytest.raises(door.PlayError, match="R13.5"):
        door.take_back_control(table=table, user=user)
    with pytest.raises(TableError, match="R13.5"):
        table_services.return_to_seat(table=table, user=user)
    assert Seat.objects.get(pk=away.pk).away_user_id == user.pk


def test_leaving_hands_the_seat_to_the_autopilot_and_keeps_the_table(round_one):
    _tournament, pairing, seats = round_one
    table = pairing.table
    for position in range(4):
        table_services.leave_seat(table=table, user=seats[position])
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING  # nobody left, the autopilot plays on (R13.5)
    assert Seat.objects.filter(table=table, is_bot=True, away_user__isnull=False).count() == 4
    assert Match.objects.get(table=table).status == Match.Status.PLAYING


def test_no_abandoning_no_assistance_no_other_seat(round_one, make_user, settings):
    _tournament, pairing, seats = round_one
    table = pairing.table
    Table.objects.filter(pk=table.pk).update(human_seen_at=timezone.now() - timedelta(hours=2))
    settings.GUANDAN_ABANDON_AFTER = 60
    door.abandon_tables()
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    with pytest.raises(door.PlayError, match="R10.8"):
        door.set_auto_play(table=table, user=seats[0], interval="1")
    stranger = make_user()
    with pytest.raises(TableError, match="R13.3"):
        table_services.take_seat(table=table, user=stranger, position=0)
    with pytest.raises(TableError, match="R13.2"):
        table_services.close_table(table=table, user=make_user(is_staff=True))
    with pytest.raises(TableError, match="R10.1"):
        table_services.create_table(host=stranger, kind="tournament")


def test_the_last_board_finishes_the_table_and_tells_the_tournament(round_one, timers):
    _tournament, pairing, seats = round_one
    table = pairing.table
    for _ in range(5000):
        table.refresh_from_db()
        if not table.is_open:
            break
        deal = live_selectors.current_deal(table)
        if deal.finished_at is not None:
            door.start_next_deal(table_id=table.pk, deal_id=deal.pk)
            continue
        state = live_selectors.deal_state(deal)
        seat = state.to_act[0]
        from games.bots.registry import get_bot
        from games.engine.views import view_for

        action = get_bot("greedy").choose(view_for(state, seat), rng_seed=deal.seq)
        door.submit_action(table_id=table.pk, seat=seat, kind=action.kind, cards=action.cards,
                           reading=action.reading, expected_deal=deal.pk, expected_seq=deal.seq, user=seats[seat])
    assert table.status == Table.Status.FINISHED
    assert list(Deal.objects.filter(match__table=table).values_list("number", flat=True)) == [1, 2]
    assert timers.names().count("board_finished") == 2
    # No career points for tournament deals (R10.1, R10.10).
    from accounts.models import Profile

    assert set(Profile.objects.filter(user__in=seats.values()).values_list("career_points", flat=True)) == {0}
