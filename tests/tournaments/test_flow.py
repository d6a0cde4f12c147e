"""A whole tournament through the services and the task functions (timers run by the
test): registration, pairing, rounds, standings."""

import pytest

from games.models import Deal, Table
from games.tournaments.models import Pairing, Tournament

from .conftest import absent, close_registration, run_to_the_end

pytestmark = pytest.mark.django_db(transaction=True)


def test_four_absent_pairs_play_a_whole_duplicate_tournament(make_tournament, timers):
    tournament, players = make_tournament(pairs=4, rounds=2, boards_per_round=2)
    close_registration(tournament)
    absent(tournament)
    run_to_the_end(tournament, timers)
    assert tournament.status == Tournament.Status.FINISHED
    rounds = list(tournament.round_set.order_by("number"))
    assert [r.status for r in rounds] == ["finished", "finished"]
    assert Deal.objects.filter(match__table__kind=Table.Kind.TOURNAMENT, finished_at__isnull=False).count() == 2 * 2 * 2
    met = [frozenset(p) for p in Pairing.objects.values_list("ns_id", "ew_id")]
    assert len(met) == len(set(met)) == 4  # R13.3: no pair met twice
    assert len(rounds[-1].standings) == 4


def test_a_restart_that_lost_every_timer_resumes_from_the_database(make_tournament, timers):
    """The embedded server restarts mid-round: every timer it held is gone. Its first
    sweeps (the periodic jobs of beat's schedule, run in process) find what is overdue in
    the database and the tournament plays on to its end, nothing lost or played twice."""
    import time

    from games.live import scheduler

    tournament, _players = make_tournament(pairs=4, rounds=2, boards_per_round=1)
    close_registration(tournament)
    absent(tournament)
    from games.tournaments import services

    services.advance(tournament_id=tournament.pk)
    timers.run(rounds=60)  # a few moves at every table ...
    timers.pending.clear()  # ... then the process dies with its timers
    time.sleep(3.5)  # past the bots' pace and the sweep's grace
    periodic = dict(scheduler.periodic_tasks())
    assert set(periodic) == {"sweep", "tournaments_sweep"}
    for _ in range(20):
        for name in periodic:
            scheduler._task(name)()
        timers.run()
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
        time.sleep(2.5)
    assert tournament.status == Tournament.Status.FINISHED
    assert Deal.objects.filter(match__table__kind=Table.Kind.TOURNAMENT, finished_at__isnull=False).count() == 4
