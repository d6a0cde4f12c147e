"""Two submissions for the same turn at the same moment: exactly one applies (the table
row lock on PostgreSQL; the unique (deal, seq) constraint behind it everywhere)."""

import threading

import pytest
from django.db import close_old_connections

from games.engine.deal import legal_actions
from games.engine.errors import RuleError
from games.live import door
from games.models import Action

from .helpers import current

pytestmark = pytest.mark.django_db(transaction=True)


def _race(table, users, attempts):
    deal, state = current(table)
    seat = state.turn
    options = [a for a in legal_actions(state, seat) if a.kind == "play"][:attempts]
    barrier = threading.Barrier(len(options))
    results = []

    def submit(action):
        try:
            barrier.wait()
            door.submit_action(table_id=table.pk, seat=seat, kind="play", cards=action.cards, reading=action.reading,
                               expected_deal=deal.pk, expected_seq=deal.seq, user=users[seat])
            results.append("applied")
        except (door.PlayError, RuleError) as exc:
            results.append(str(exc))
        finally:
            close_old_connections()

    threads = [threading.Thread(target=submit, args=(a,)) for a in options]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return deal, results


@pytest.mark.postgres
def test_two_simultaneous_submissions_apply_exactly_one(playing_table):
    table, users = playing_table
    deal, results = _race(table, users, 2)
    assert results.count("applied") == 1, results
    assert all(r.startswith("R9.1") for r in results if r != "applied"), results
    assert Action.objects.filter(deal=deal).count() == 1


@pytest.mark.postgres
def test_a_burst_of_eight_submissions_applies_one(playing_table):
    table, users = playing_table
    deal, results = _race(table, users, 8)
    assert results.count("applied") == 1, results
    assert Action.objects.filter(deal=deal).count() == 1


@pytest.mark.postgres
def test_a_door_that_waited_for_the_lock_reads_the_step_its_holder_wrote(playing_table, monkeypatch):
    """The door locks the table and reads the deal in one statement: one that waited for
    the lock must see the deal as the holder left it (a row read with the lock but not
    locked itself would come from before the wait, and the next seat's move, sent as
    soon as the first was played, would be refused as stale)."""
    from games.engine.deal import Action as EngineAction
    from games.engine.deal import apply as engine_apply

    table, users = playing_table
    deal, state = current(table)
    first_seat = state.turn
    first = next(a for a in legal_actions(state, first_seat) if a.kind == "play")
    after = engine_apply(state, EngineAction("play", first_seat, first.cards, first.reading, "human"))
    second_seat = after.turn
    second = legal_actions(after, second_seat)[0]
    holding = threading.Event()
    real_apply = door.apply

    def slow_apply(before, action):
        if action.seat == first_seat:
            holding.set()
            threading.Event().wait(0.5)  # the first door holds the table's lock meanwhile
        return real_apply(before, action)

    monkeypatch.setattr(door, "apply", slow_apply)
    results = {}

    def submit(seat, action, seq):
        try:
            door.submit_action(table_id=table.pk, seat=seat, kind=action.kind, cards=action.cards,
                               reading=action.reading, expected_deal=deal.pk, expected_seq=seq, user=users[seat])
            results[seat] = "applied"
        except (door.PlayError, RuleError) as exc:
            results[seat] = str(exc)
        finally:
            close_old_connections()

    one = threading.Thread(target=submit, args=(first_seat, first, deal.seq))
    one.start()
    assert holding.wait(10)
    two = threading.Thread(target=submit, args=(second_seat, second, deal.seq + 1))
    two.start()
    one.join(30)
    two.join(30)
    assert results == {first_seat: "applied", second_seat: "applied"}, results
    assert list(Action.objects.filter(deal=deal).order_by("seq").values_list("seat", flat=True)) == [first_seat, second_seat]
