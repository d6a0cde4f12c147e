"""Seating rules R10.1-R10.5 and R10.7 through games.tables.services: each step that is allowed,
and each refusal with its rule id and no change at all."""

import threading

import pytest
from django.db import connection

from accounts.models import PointsEntry
from games.models import Match, Participant, Seat, Table
from games.tables import policies, services
from games.tables.services import TableError


def snapshot(table):
    """Everything a seating step may touch, to prove a refusal changed nothing."""
    table = Table.objects.get(pk=table.pk)
    seats = list(
        Seat.objects.filter(table=table)
        .order_by("position")
        .values_list("position", "user_id", "is_bot", "bot_level", "away_user_id", "autopilot")
    )
    return (
        table.status,
        table.updated_at,
        seats,
        list(Match.objects.filter(table=table).values_list("number", "status")),
        list(PointsEntry.objects.order_by("pk").values_list("user_id", "delta")),
        Table.objects.count(),
    )


def refused(rule, step, *, table=None, **kwargs):
    """Run ``step`` and check it raises TableError citing ``rule`` and changes nothing."""
    before = snapshot(table) if table is not None else Table.objects.count()
    if table is not None:
        kwargs["table"] = table
    with pytest.raises(TableError) as caught:
        step(**kwargs)
    assert caught.value.message.startswith(f"{rule}:"), caught.value.message
    after = snapshot(table) if table is not None else Table.objects.count()
    assert after == before
    return caught.value.message


def seats_of(table):
    return {seat.position: seat for seat in Seat.objects.filter(table=table)}


# --- Creating tables ----------------------------------------------------------------------


def test_creator_takes_seat_one_at_a_match_table(make_user, make_table):
    host = make_user()
    table = make_table(host, kind="match", tier="junior")
    assert table.status == Table.Status.WAITING
    assert table.tier == "junior" and table.invite_code is None
    assert {pos: seat.user_id for pos, seat in seats_of(table).items()} == {0: host.pk}


def test_practice_table_is_one_human_and_three_bots_from_the_start(make_user, make_table):
    """R10.4: practice tables are always 1 human + 3 bots."""
    host = make_user()
    table = make_table(host, kind="practice", bot_level="hard")
    seats = seats_of(table)
    assert seats[0].user_id == host.pk and not seats[0].is_bot
    assert [(seats[p].is_bot, seats[p].bot_level) for p in (1, 2, 3)] == [(True, "hard")] * 3
    assert table.tier == ""


def test_friend_table_gets_an_invitation_code(make_user, make_table):
    """R10.3: friend tables are joined by invitation link or code."""
    table = make_table(make_user(), kind="friend")
    assert table.invite_code and len(table.invite_code) == services.INVITE_LENGTH
    assert set(table.invite_code) <= set(services.INVITE_ALPHABET)


def test_guest_cannot_create_a_match_table(make_guest):
    """R10.1: match tables are for registered players."""
    guest = make_guest()
    message = refused("R10.1", services.create_table, host=guest, kind="match", tier="junior")
    assert "registered" in message


def test_guest_may_create_practice_and_friend_tables(make_guest, make_table):
    guest = make_guest()
    practice = make_table(guest, kind="practice")
    services.leave_seat(table=practice, user=guest)
    friend = make_table(guest, kind="friend")
    assert friend.kind == "friend"


@pytest.mark.parametrize(
    ("tier", "points", "allowed"),
    [
        ("junior", 0, True),
        ("senior", 99, False),
        ("senior", 100, True),
        ("grandmaster", 499, False),
        ("grandmaster", 500, True),
    ],
)
def test_tiers_open_by_career_points_when_creating(make_user, tier, points, allowed):
    """R10.7: Junior for everyone, Senior from 100 points, Grandmaster from 500."""
    user = make_user(points=points)
    if allowed:
        table = services.create_table(host=user, kind="match", tier=tier)
        assert table.tier == tier
    else:
        message = refused("R10.7", services.create_table, host=user, kind="match", tier=tier)
        assert str(points) in message


def test_match_table_needs_a_tier(make_user):
    refused("R10.1", services.create_table, host=make_user(), kind="match", tier="")


def test_cannot_create_while_seated_elsewhere(make_user, make_table):
    """R10.5: a player sits at one open table at a time."""
    host = make_user()
    make_table(host)
    refused("R10.5", services.create_table, host=host, kind="friend")


# --- Taking, switching and leaving seats (R10.5) ---------------------------------------------


def test_take_an_empty_seat(make_user, make_table):
    table = make_table(make_user())
    player = make_user()
    seat = services.take_seat(table=table, user=player, position=2)
    assert (seat.position, seat.user_id, seat.is_bot) == (2, player.pk, False)


def test_taken_seat_is_refused(make_user, make_table):
    host = make_user()
    table = make_table(host)
    message = refused("R10.5", services.take_seat, table=table, user=make_user(), position=0)
    assert "seat 1 is taken" in message


def test_seat_number_out_of_range_is_refused(make_user, make_table):
    table = make_table(make_user())
    refused("R1.1", services.take_seat, table=table, user=make_user(), position=4)


def test_nobody_sits_at_a_practice_table(make_user, make_table):
    """R10.4: others may watch a practice table but never sit, even in a freed seat."""
    host = make_user()
    table = make_table(host, kind="practice")
    Seat.objects.filter(table=table, position=3).delete()
    refused("R10.4", services.take_seat, table=table, user=make_user(), position=3)


def test_guest_cannot_sit_at_a_match_table(make_user, make_guest, make_table):
    table = make_table(make_user())
    refused("R10.1", services.take_seat, table=table, user=make_guest(), position=1)


def test_closed_tier_refuses_a_seat(make_user, make_table):
    """R10.7: the tier must be open to the player's points when sitting, too."""
    table = make_table(make_user(points=150), kind="match", tier="senior")
    refused("R10.7", services.take_seat, table=table, user=make_user(points=40), position=1)
    assert services.take_seat(table=table, user=make_user(points=100), position=1).position == 1


def test_friend_table_needs_the_invitation_code(make_user, make_guest, make_table):
    """R10.3: friend tables are joined by invitation link or code (guests welcome)."""
    table = make_table(make_user(), kind="friend")
    guest = make_guest()
    refused("R10.3", services.take_seat, table=table, user=guest, position=1)
    refused("R10.3", services.take_seat, table=table, user=guest, position=1, invite_code="WRONG123")
    seat = services.take_seat(table=table, user=guest, position=1, invite_code=table.invite_code.lower())
    assert seat.user_id == guest.pk


def test_cannot_sit_at_two_tables(make_user, make_table):
    player = make_user()
    make_table(player)
    other = make_table(make_user())
    message = refused("R10.5", services.take_seat, table=other, user=player, position=1)
    assert "already sit" in message


def test_no_seat_is_taken_after_the_start(full_table, make_user):
    table, users = full_table
    services.start_match(table=table, user=users[0])
    services.leave_seat(table=table, user=users[3])
    refused("R10.5", services.take_seat, table=table, user=make_user(), position=3)


def test_switch_seat_before_the_start(make_user, make_table):
    table = make_table(make_user())
    player = make_user()
    services.take_seat(table=table, user=player, position=1)
    seat = services.switch_seat(table=table, user=player, position=3)
    assert seat.position == 3
    assert {p: s.user_id for p, s in seats_of(table).items()}[3] == player.pk
    assert 1 not in seats_of(table)


def test_take_seat_when_seated_here_moves(make_user, make_table):
    table = make_table(make_user())
    player = make_user()
    services.take_seat(table=table, user=player, position=1)
    services.take_seat(table=table, user=player, position=2)
    assert sorted(seats_of(table)) == [0, 2]


def test_switch_refusals(full_table, make_user, make_table):
    table, users = full_table
    refused("R10.5", services.switch_seat, table=table, user=users[1], position=2)  # taken
    refused("R10.5", services.switch_seat, table=table, user=users[1], position=1)  # own seat
    other = make_table(make_user())
    refused("R10.5", services.switch_seat, table=other, user=users[1], position=1)  # not seated there
    Seat.objects.filter(table=table, position=3).delete()
    services.fill_with_bots(table=table, user=users[0])
    services.start_match(table=table, user=users[0])
    table.refresh_from_db()
    Seat.objects.filter(table=table, position=3).delete()
    refused("R10.5", services.switch_seat, table=table, user=users[1], position=3)  # after the start


def test_leave_a_waiting_table_frees_the_seat(make_user, make_table):
    table = make_table(make_user())
    player = make_user()
    services.take_seat(table=table, user=player, position=1)
    services.leave_seat(table=table, user=player)
    assert sorted(seats_of(table)) == [0]
    assert Table.objects.get(pk=table.pk).status == Table.Status.WAITING


def test_last_human_leaving_a_waiting_table_closes_it(make_user, make_table):
    host = make_user()
    table = make_table(host)
    services.leave_seat(table=table, user=host)
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED


def test_leaving_without_a_seat_is_refused(make_user, make_table):
    table = make_table(make_user())
    refused("R10.5", services.leave_seat, table=table, user=make_user())


def test_leaving_a_practice_table_closes_it(make_user, make_table):
    host = make_user()
    table = make_table(host, kind="practice")
    services.start_match(table=table, user=host)
    services.leave_seat(table=table, user=host)
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED
    assert Match.objects.get(table=table).status == Match.Status.ABANDONED
    assert not PointsEntry.objects.exists()


# --- Host, bots and the start (R10.2, R10.5) -------------------------------------------------


def test_host_is_the_creator_else_seat_one(make_user, make_table):
    """R10.5: the host is the creator, else seat 1 (the lowest seated human)."""
    creator, second, third = make_user(), make_user(), make_user()
    table = make_table(creator)
    services.take_seat(table=table, user=third, position=3)
    services.take_seat(table=table, user=second, position=1)
    assert policies.host_id(table, seats_of(table)) == creator.pk
    services.switch_seat(table=table, user=creator, position=2)
    assert policies.host_id(table, seats_of(table)) == creator.pk
    services.leave_seat(table=table, user=creator)
    assert policies.host_id(table, seats_of(table)) == second.pk


def test_lone_human_cannot_fill_with_bots(make_user, make_table):
    """R10.2: a lone human cannot fill with bots."""
    host = make_user()
    table = make_table(host)
    message = refused("R10.2", services.fill_with_bots, table=table, user=host)
    assert "lone human" in message


def test_two_humans_fill_the_rest_with_bots_and_start(make_user, make_table):
    """R10.2: with at least two humans seated the table fills with bots and starts."""
    host, friend = make_user(), make_user()
    table = make_table(host, bot_level="easy")
    services.take_seat(table=table, user=friend, position=2)
    bots = services.fill_with_bots(table=table, user=host)
    assert sorted(seat.position for seat in bots) == [1, 3]
    assert all(seat.is_bot and seat.bot_level == "easy" and seat.user_id is None for seat in bots)
    match = services.start_match(table=table, user=host)
    assert match.number == 1


def test_fill_refusals(make_user, make_table, full_table):
    host, friend = make_user(), make_user()
    table = make_table(host)
    services.take_seat(table=table, user=friend, position=1)
    refused("R10.5", services.fill_with_bots, table=table, user=friend)  # not the host
    full, users = full_table
    refused("R10.2", services.fill_with_bots, table=full, user=users[0])  # no empty seat
    practice = make_table(make_user(), kind="practice")
    refused("R10.4", services.fill_with_bots, table=practice, user=practice.host)


def test_start_needs_all_four_seats(make_user, make_table):
    """R10.5: the host starts when all four seats are taken."""
    host = make_user()
    table = make_table(host)
    services.take_seat(table=table, user=make_user(), position=1)
    message = refused("R10.5", services.start_match, table=table, user=host)
    assert "2 still empty" in message


def test_only_the_host_starts(full_table):
    table, users = full_table
    refused("R10.5", services.start_match, table=table, user=users[2])


def test_host_starts_a_full_table(full_table):
    table, users = full_table
    match = services.start_match(table=table, user=users[0])
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert (match.number, match.status, match.level_a, match.level_b) == (1, Match.Status.PLAYING, 0, 0)
    assert 0 <= match.seed < 2**63
    participants = Participant.objects.filter(match=match).order_by("position")
    assert [(p.position, p.user_id, p.is_bot) for p in participants] == [(i, u.pk, False) for i, u in enumerate(users)]
    refused("R10.5", services.start_match, table=table, user=users[0])  # already started


def test_practice_host_starts_with_the_bots(make_user, make_table):
    host = make_user()
    table = make_table(host, kind="practice")
    match = services.start_match(table=table, user=host)
    assert [p.is_bot for p in match.participants.order_by("position")] == [False, True, True, True]


# --- Leaving a match in progress (R10.7) -------------------------------------------------------


def test_leaving_a_match_costs_points_and_a_bot_keeps_the_seat(make_user, make_table):
    """R10.7: 10 x tier factor points, a bot plays the seat, the player may come back."""
    host = make_user(points=150)
    table = make_table(host, kind="match", tier="senior")
    leaver = make_user(points=130)
    services.take_seat(table=table, user=leaver, position=1)
    services.fill_with_bots(table=table, user=host)
    match = services.start_match(table=table, user=host)

    services.leave_seat(table=table, user=leaver)
    seat = Seat.objects.get(table=table, position=1)
    assert (seat.user_id, seat.is_bot, seat.bot_level, seat.away_user_id) == (None, True, table.bot_level, leaver.pk)
    leaver.profile.refresh_from_db()
    assert leaver.profile.career_points == 130 - 20
    entry = PointsEntry.objects.get(user=leaver, reason=PointsEntry.Reason.LEAVE_PENALTY)
    assert (entry.delta, entry.table_id, entry.match_id) == (-20, table.pk, match.pk)
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING

    services.return_to_seat(table=table, user=leaver)
    seat.refresh_from_db()
    assert (seat.user_id, seat.is_bot, seat.bot_level, seat.away_user_id) == (leaver.pk, False, "", None)
    leaver.profile.refresh_from_db()
    assert leaver.profile.career_points == 110  # coming back does not refund the penalty


def test_leave_penalty_never_goes_below_zero(full_table):
    table, users = full_table
    services.start_match(table=table, user=users[0])
    services.leave_seat(table=table, user=users[1])
    users[1].profile.refresh_from_db()
    assert users[1].profile.career_points == 0
    assert not PointsEntry.objects.filter(user=users[1]).exists()


def test_leaving_a_friend_match_costs_nothing(make_user, make_table):
    host, friend = make_user(points=50), make_user(points=50)
    table = make_table(host, kind="friend")
    services.take_seat(table=table, user=friend, position=1, invite_code=table.invite_code)
    services.fill_with_bots(table=table, user=host)
    services.start_match(table=table, user=host)
    services.leave_seat(table=table, user=friend)
    friend.profile.refresh_from_db()
    assert friend.profile.career_points == 50
    assert Seat.objects.get(table=table, position=1).away_user_id == friend.pk


def test_leaving_before_the_start_costs_nothing(make_user, make_table):
    host, player = make_user(), make_user(points=60)
    table = make_table(host)
    services.take_seat(table=table, user=player, position=1)
    services.leave_seat(table=table, user=player)
    player.profile.refresh_from_db()
    assert player.profile.career_points == 60


def test_return_refusals(full_table, make_user, make_table):
    table, users = full_table
    refused("R10.7", services.return_to_seat, table=table, user=users[1])  # never left, not started
    services.start_match(table=table, user=users[0])
    refused("R10.7", services.return_to_seat, table=table, user=make_user())  # never sat here
    services.leave_seat(table=table, user=users[1])
    make_table(users[1], kind="practice")
    refused("R10.5", services.return_to_seat, table=table, user=users[1])  # seated elsewhere now


def test_last_human_leaving_a_match_closes_the_table(make_user, make_table):
    host, friend = make_user(), make_user()
    table = make_table(host)
    services.take_seat(table=table, user=friend, position=1)
    services.fill_with_bots(table=table, user=host)
    match = services.start_match(table=table, user=host)
    services.leave_seat(table=table, user=friend)
    services.leave_seat(table=table, user=host)
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED
    match.refresh_from_db()
    assert match.status == Match.Status.ABANDONED and match.finished_at is not None


# --- Closing ------------------------------------------------------------------------------------


def test_host_closes_a_waiting_table(make_user, make_table):
    host = make_user()
    table = make_table(host)
    services.close_table(table=table, user=host)
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED


def test_close_refusals(full_table, make_user):
    table, users = full_table
    refused("R10.5", services.close_table, table=table, user=users[1])  # not the host
    services.start_match(table=table, user=users[0])
    refused("R10.5", services.close_table, table=table, user=users[0])  # in progress
    staff = make_user(is_staff=True)
    services.close_table(table=table, user=staff)
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED
    assert Match.objects.get(table=table).status == Match.Status.ABANDONED
    refused("R10.5", services.close_table, table=table, user=staff)  # already closed
    refused("R10.5", services.take_seat, table=table, user=make_user(), position=0)


# --- Broadcasting and concurrency ------------------------------------------------------------


def test_changes_are_announced_only_on_commit(make_user, make_table, django_capture_on_commit_callbacks, monkeypatch):
    sent = []
    monkeypatch.setattr("games.live.broadcast.send_table_changed", sent.append)
    host = make_user()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        table = make_table(host)
    assert sent == [] and callbacks
    for callback in callbacks:
        callback()
    assert sent == [table.pk]
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(TableError):
            services.fill_with_bots(table=table, user=host)
    assert sent == [table.pk]  # a refusal announces nothing


@pytest.mark.django_db(transaction=True)
def test_concurrent_players_never_share_a_seat(make_user, make_table):
    """Eight players race for the three empty seats: each seat ends with exactly one player,
    every loser gets a clear refusal, and nobody is seated twice."""
    table = make_table(make_user())
    players = [make_user() for _ in range(8)]
    barrier = threading.Barrier(len(players))
    outcomes = []

    def race(player, position):
        barrier.wait()
        try:
            services.take_seat(table=table, user=player, position=position)
            outcomes.append(("seated", position))
        except TableError as error:
            outcomes.append(("refused", error.message))
        finally:
            connection.close()

    threads = [threading.Thread(target=race, args=(player, 1 + index % 3)) for index, player in enumerate(players)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seats = seats_of(table)
    assert sorted(seats) == [0, 1, 2, 3]
    assert sorted(position for kind, position in outcomes if kind == "seated") == [1, 2, 3]
    assert all(message.startswith("R10.5:") for kind, message in outcomes if kind == "refused")
    assert len({seat.user_id for seat in seats.values()}) == 4


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_table_row_lock_holds_other_steps_back(make_user, make_table):
    """select_for_update on the table row: a step waits while another holds the lock."""
    from django.db import transaction

    table = make_table(make_user())
    player = make_user()
    locked, release, done = threading.Event(), threading.Event(), threading.Event()

    def hold_lock():
        with transaction.atomic():
            Table.objects.select_for_update().get(pk=table.pk)
            locked.set()
            release.wait(timeout=30)
        connection.close()

    def sit():
        services.take_seat(table=table, user=player, position=1)
        done.set()
        connection.close()

    holder = threading.Thread(target=hold_lock)
    holder.start()
    locked.wait(timeout=30)
    sitter = threading.Thread(target=sit)
    sitter.start()
    assert not done.wait(timeout=1), "take_seat went through while another transaction held the table row"
    release.set()
    holder.join()
    sitter.join()
    assert done.is_set()
    assert seats_of(table)[1].user_id == player.pk
