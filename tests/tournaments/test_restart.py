"""Restarting the worker mid-round loses nothing (R13, docs/architecture.md): a Celery
worker with beat runs a tournament of four pairs on PostgreSQL and Redis; it is killed
in the middle of round 1 (SIGKILL: no warm shutdown, the timers it held are lost) and
started again. The tournament finishes with every board played once at every table,
every deal's log re-folding to its snapshot, and the standings of both rounds.

The processes are the test's own (tests/live/processes.py): a private Redis and a
worker with beat, on the test's PostgreSQL database. PostgreSQL lane of .ci/run."""

from __future__ import annotations

import tempfile
import time
from decimal import Decimal
from pathlib import Path

import pytest
from django.db.models import Count

from games.models import Action, Deal
from games.tournaments.models import Pairing, Round, Tournament

from ..live.processes import Stack
from .conftest import absent, close_registration

pytestmark = [pytest.mark.postgres, pytest.mark.celery, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def stack():
    made = Stack(Path(tempfile.mkdtemp(prefix="tournament-restart-")))
    made.env["GUANDAN_NEXT_DEAL_DELAY"] = "0.5"
    try:
        made.start_redis()
        made.start_worker()
        yield made
    finally:
        made.stop()


def wait_for(condition, seconds, stack, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.3)
    raise AssertionError(f"{what} did not happen within {seconds} s\n{stack.log_tail()}")


def test_killing_the_worker_mid_round_loses_nothing(stack, make_tournament):
    tournament, _players = make_tournament(pairs=4, rounds=2, boards_per_round=2, bot_speed=Decimal("0.1"))
    absent(tournament)
    close_registration(tournament)  # beat's sweep notices within 5 s
    round_one = lambda: Round.objects.filter(tournament=tournament, number=1, status="playing").first()  # noqa: E731
    wait_for(lambda: round_one() is not None
             and Action.objects.filter(deal__match__table__tournament_pairing__round__tournament=tournament).count() > 30,
             90, stack, "round 1 under way")
    stack.kill_worker()
    frozen = Action.objects.filter(deal__match__table__tournament_pairing__round__tournament=tournament).count()
    time.sleep(1.5)
    assert Action.objects.filter(deal__match__table__tournament_pairing__round__tournament=tournament).count() == frozen
    stack.start_worker()
    wait_for(lambda: Tournament.objects.get(pk=tournament.pk).status == "finished", 240, stack, "the end")
    # Every table of both rounds played each board once, in order, to its end.
    for round_ in Round.objects.filter(tournament=tournament):
        assert round_.status == "finished" and round_.standings
        for pairing in Pairing.objects.filter(round=round_):
            numbers = list(Deal.objects.filter(match__table=pairing.table).order_by("number")
                           .values_list("number", "finished_at"))
            assert [n for n, _ in numbers] == [1, 2] and all(done for _, done in numbers)
    # No step was taken twice: one row per place in each log.
    assert not (Action.objects.filter(deal__match__table__tournament_pairing__round__tournament=tournament)
                .values("deal", "seq").annotate(n=Count("id")).filter(n__gt=1).exists())
    assert Round.objects.filter(tournament=tournament).count() == 2
    # (Every deal re-folding to its snapshot is checked after every test: tests/conftest.py.)
