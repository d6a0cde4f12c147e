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
