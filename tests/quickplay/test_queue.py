"""Quick play (R10.9): joining and leaving a tier's queue, partners, the matcher (four at a
time, longest wait first, bots after the wait, nobody who left, nobody twice)."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Match, Participant, Seat, Table
from games.quickplay import services
from games.quickplay.models import QueueEntry
from games.quickplay.services import QueueError, _four, _Unit, match_tier, seating
from games.tables import services as table_services

pytestmark = pytest.mark.django_db(transaction=True)


def waiting(tier="junior"):
    return list(QueueEntry.objects.filter(status="waiting", tier=tier).values_list("user_id", flat=True))


def age(*users, seconds):
    """Make the players' places ``seconds`` older (joined and last seen)."""
    for user in users:
        entry = QueueEntry.objects.get(user=user)
        QueueEntry.objects.filter(pk=entry.pk).update(joined_at=entry.joined_at - timedelta(seconds=seconds))


def humans_at(table):
    return {seat.position: seat.user for seat in table.seats.all() if seat.user_id}


def test_joining_waits_in_the_tier_and_asking_twice_keeps_the_place(make_user, timers):
    player = make_user()
    first = services.join(user=player, tier="junior")
    assert (first.status, first.tier) == ("waiting", "junior")
    again = services.join(user=player, tier="junior")  # a double click
    assert (again.pk, again.joined_at, again.invite_code) == (first.pk, first.joined_at, first.invite_code)
    assert waiting() == [player.pk]
    assert "quickplay_match" in timers.names()  # the matcher runs at once, and after the bot-fill wait
    assert [delay for name, _args, delay in timers.pending if name == "quickplay_match"] == [0, 20.2]


def test_one_queue_at_a_time_another_tier_moves_the_player(make_user):
    player = make_user(points=150)
    services.join(user=player, tier="junior")
    services.join(user=player, tier="senior")
    assert waiting("junior") == [] and waiting("senior") == [player.pk]


@pytest.mark.parametrize(("maker", "tier", "rule"), [("guest", "junior", "R10.9"), ("user", "senior", "R10.7"),
                                                    ("user", "legend", "R10.1")])
def test_refusals_name_their_rule_and_change_nothing(make_user, make_guest, maker, tier, rule):
    player = make_guest() if maker == "guest" else make_user(points=10)
    with pytest.raises(QueueError, match=rule):
        services.join(user=player, tier=tier)
    assert not QueueEntry.objects.exists()


def test_a_player_at_a_match_in_progress_is_sent_back_to_it(playing_table):
    table, users = playing_table
    with pytest.raises(QueueError, match="R10.9") as refused:
        services.join(user=users[1], tier="junior")
    assert refused.value.table == table and not QueueEntry.objects.exists()


def test_a_player_seated_at_another_table_must_leave_it_first(make_user, make_table):
    player = make_user()
    make_table(player, kind="practice")
    with pytest.raises(QueueError, match="R10.5"):
        services.join(user=player, tier="junior")


def test_leaving_the_queue(make_user):
    player = make_user()
    services.join(user=player, tier="junior")
    assert services.leave(user=player) is True
    assert services.leave(user=player) is False
    assert not QueueEntry.objects.exists()


# ----------------------------------------------------------------------------------------
# The matcher


def test_four_waiting_players_are_seated_at_a_new_match_table_longest_wait_first(make_user):
    players = [make_user() for _ in range(5)]
    for seconds, player in zip((50, 40, 30, 20, 10), players):
        services.join(user=player, tier="junior")
        age(player, seconds=seconds)
    (table,) = match_tier("junior")
    assert (table.kind, table.tier, table.status) == ("match", "junior", "playing")
    assert set(humans_at(table).values()) == set(players[:4])
    assert waiting() == [players[4].pk]  # the newest waits on
    match = Match.objects.get(table=table)
    assert Participant.objects.filter(match=match, user__isnull=False).count() == 4
    assert match.deals.count() == 1  # dealt: the table plays at once
    seated = QueueEntry.objects.filter(status="seated", table=table)
    assert seated.count() == 4
    assert match_tier("junior") == []  # nothing more to seat: the run is idempotent


def test_partners_queue_together_and_sit_opposite_each_other(make_user):
    host, friend, a, b = (make_user() for _ in range(4))
    entry = services.join(user=host, tier="junior")
    services.join(user=a, tier="junior")
    partner = services.join_as_partner(user=friend, code=entry.invite_code.lower())
    assert (partner.party, partner.joined_at, partner.tier) == (entry.party, entry.joined_at, "junior")
    services.join(user=b, tier="junior")
    (table,) = match_tier("junior")
    seats = {user.pk: position for position, user in humans_at(table).items()}
    assert (seats[host.pk] - seats[friend.pk]) % 4 == 2  # opposite: partners (R1.1)
    assert (seats[a.pk] - seats[b.pk]) % 4 == 2


def test_an_invitation_refuses_a_third_and_a_gone_host(make_user):
    host, friend, third = make_user(), make_user(), make_user()
    entry = services.join(user=host, tier="junior")
    with pytest.raises(QueueError, match="your own invitation"):
        services.join_as_partner(user=host, code=entry.invite_code)
    services.join_as_partner(user=friend, code=entry.invite_code)
    with pytest.raises(QueueError, match="already has a partner"):
        services.join_as_partner(user=third, code=entry.invite_code)
    services.leave(user=host)
    assert waiting() == [friend.pk]  # the partner keeps waiting alone
    with pytest.raises(QueueError, match="no longer waiting"):
        services.join_as_partner(user=third, code=entry.invite_code)


def test_two_players_get_bots_after_the_wait_and_one_keeps_waiting(make_user, settings):
    settings.GUANDAN_QUICKPLAY_BOT_FILL_AFTER = 20
    a, b, alone = make_user(), make_user(), make_user()
    services.join(user=a, tier="junior")
    services.join(user=b, tier="junior")
    assert match_tier("junior") == []  # not yet: a third or fourth may come
    age(a, b, seconds=21)
    (table,) = match_tier("junior")
    assert set(humans_at(table).values()) == {a, b}
    bots = table.seats.filter(is_bot=True)
    assert bots.count() == 2 and set(bots.values_list("bot_level", flat=True)) == {"normal"}
    assert sorted(humans_at(table)) == [0, 1]  # people play people: one on each team
    services.join(user=alone, tier="junior")
    age(alone, seconds=60)
    assert match_tier("junior") == [] and waiting() == [alone.pk]  # a lone player keeps waiting (R10.2)


def test_only_the_players_who_waited_are_seated_with_bots(make_user):
    old, older, new = make_user(), make_user(), make_user()
    for player in (older, old, new):
        services.join(user=player, tier="junior")
    age(older, seconds=30)
    age(old, seconds=25)
    (table,) = match_tier("junior")
    assert set(humans_at(table).values()) == {older, old}
    assert waiting() == [new.pk]


def test_a_player_with_no_page_open_has_left(make_user):
    players = [make_user() for _ in range(4)]
    for player in players:
        services.join(user=player, tier="junior")
    QueueEntry.objects.filter(user=players[0]).update(seen_at=timezone.now() - timedelta(seconds=11))
    assert match_tier("junior") == []
    assert sorted(waiting()) == sorted(p.pk for p in players[1:])
    assert not QueueEntry.objects.filter(user=players[0]).exists()
    assert services.seen(user_id=players[1].pk) == "waiting"


def test_a_player_who_sat_down_elsewhere_meanwhile_is_not_seated_twice(make_user, make_table):
    players = [make_user() for _ in range(4)]
    for player in players:
        services.join(user=player, tier="junior")
    make_table(players[2], kind="practice")  # the seat is taken while waiting (a race the matcher must win)
    assert match_tier("junior") == []
    assert not QueueEntry.objects.filter(user=players[2]).exists()
    assert Seat.objects.filter(user=players[2]).count() == 1


def test_a_player_whose_tier_closed_meanwhile_is_dropped(make_user):
    from accounts import services as account_services

    player = make_user(points=120)
    services.join(user=player, tier="senior")
    account_services.adjust_points(user=player, delta=-50, note="")
    match_tier("senior")
    assert not QueueEntry.objects.exists()


def test_the_sweep_runs_every_tiers_matcher(make_user):
    from games.live.tasks import sweep

    players = [make_user() for _ in range(4)]
    for player in players:
        services.join(user=player, tier="junior")
    sweep()
    assert Table.objects.filter(kind="match", status="playing").count() == 1


def test_concurrent_matchers_seat_each_player_once(make_user):
    """Several processes may run a tier's matcher at once: the waiting rows are locked,
    so eight players make exactly two tables and nobody sits twice."""
    players = [make_user() for _ in range(8)]
    for player in players:
        services.join(user=player, tier="junior")
    opened, errors = [], []

    def run():
        try:
            opened.extend(match_tier("junior"))
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(opened) == 2
    assert Seat.objects.filter(user__in=players).count() == 8
    assert Seat.objects.filter(user__in=players).values("user").distinct().count() == 8


def _units(*sizes):
    return [_Unit([object()] * size) for size in sizes]


def test_a_table_is_the_oldest_unit_and_the_earliest_that_make_four():
    units = _units(2, 1, 2, 1)
    assert _four(units) == [units[0], units[1], units[3]]
    units = _units(1, 2, 2)
    assert _four(units) is None
    units = _units(2, 2)
    assert _four(units) == units


def test_seating_puts_partners_opposite_and_strangers_on_both_teams(make_user):
    a, b, c, d = (make_user() for _ in range(4))
    entry = lambda user: type("E", (), {"user": user})()  # noqa: E731
    seats = seating([_Unit([entry(a)]), _Unit([entry(b), entry(c)]), _Unit([entry(d)])])
    assert seats[0] == b and seats[2] == c and {seats[1], seats[3]} == {a, d}
    seats = seating([_Unit([entry(a)]), _Unit([entry(b)]), _Unit([entry(c)])])
    assert seats == {0: a, 1: b, 2: c}


def test_bot_accounts_and_leaves_do_not_break_a_quick_table(make_user, timers):
    """A quick-play table is an ordinary match table: a player may leave (R10.7) and a
    bot plays on at once."""
    players = [make_user() for _ in range(4)]
    for player in players:
        services.join(user=player, tier="junior")
    (table,) = match_tier("junior")
    timers.pending.clear()
    table_services.leave_seat(table=table, user=players[1])
    assert table.seats.get(away_user=players[1]).is_bot
