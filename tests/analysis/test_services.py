"""Asking for an analysis, running it once, and resuming it after a crash."""

import functools
import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games.analysis import services
from games.bots.analysis import ANALYSIS_VERSION, MISTAKE, analyse
from games.engine.deal import HUMAN
from games.models import DealAnalysis

from ..replays import factories

pytestmark = pytest.mark.django_db


def test_a_player_asks_and_the_task_judges_every_decision(finished, players, timers, quick_analysis,
                                                           django_capture_on_commit_callbacks):
    host, _partner = players
    with django_capture_on_commit_callbacks(execute=True):
        analysis = services.request_analysis(deal=finished, user=host)
    assert analysis.status == DealAnalysis.Status.QUEUED and analysis.requested_by == host
    assert [name for name, _args, _delay in timers.background] == ["analyse_deal"]
    assert timers.run_background() == 1
    analysis.refresh_from_db()
    assert analysis.status == DealAnalysis.Status.DONE and analysis.version == ANALYSIS_VERSION
    assert analysis.done == analysis.total == finished.seq == len(analysis.data["decisions"])
    assert analysis.started_at and analysis.finished_at
    # Run again (a duplicate task): nothing to do, nothing changes.
    assert services.run_analysis(analysis.pk) is False


def test_asking_twice_queues_one_analysis(finished, players, timers, django_capture_on_commit_callbacks):
    host, partner = players
    with django_capture_on_commit_callbacks(execute=True):
        first = services.request_analysis(deal=finished, user=host)
        second = services.request_analysis(deal=finished, user=partner)
    assert first.pk == second.pk and DealAnalysis.objects.count() == 1
    assert len(timers.background) == 1
    assert second.requested_by == host


def test_a_deal_in_play_is_never_analysed(match, players, timers):
    played = factories.play(factories.deal_next(match), rng=random.Random(1), max_actions=10)
    with pytest.raises(services.AnalysisError, match="R9.3"):
        services.request_analysis(deal=played.deal, user=players[0])
    assert not DealAnalysis.objects.exists() and not timers.background


def test_only_the_players_and_staff_may_ask(finished, make_user, timers):
    with pytest.raises(services.AnalysisError):
        services.request_analysis(deal=finished, user=make_user())
    assert not DealAnalysis.objects.exists()
    staff = make_user(is_staff=True)
    assert services.request_analysis(deal=finished, user=staff).status == DealAnalysis.Status.QUEUED


def test_a_failed_analysis_may_be_asked_again_and_a_done_one_only_when_forced(
        finished, players, timers, quick_analysis, monkeypatch):
    host, _partner = players
    analysis = services.request_analysis(deal=finished, user=host)

    def broken(*args, **kwargs):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(services, "analyse", broken)
    assert services.run_analysis(analysis.pk) is False
    analysis.refresh_from_db()
    assert analysis.status == DealAnalysis.Status.FAILED and "out of memory" in analysis.error
    monkeypatch.undo()
    monkeypatch.setattr(services, "schedule", timers)
    again = services.request_analysis(deal=finished, user=host)
    assert again.pk == analysis.pk and again.status == DealAnalysis.Status.QUEUED and not again.error
    monkeypatch.setattr(services, "analyse", functools.partial(analyse, samples=4))
    assert services.run_analysis(again.pk)
    again.refresh_from_db()
    data = again.data
    assert services.request_analysis(deal=finished, user=host).data == data  # done: unchanged
    forced = services.request_analysis(deal=finished, force=True)
    assert forced.status == DealAnalysis.Status.QUEUED and forced.data is None


def test_an_older_version_is_analysed_again_on_request(finished, players, timers):
    DealAnalysis.objects.create(deal=finished, version=ANALYSIS_VERSION - 1, status="done", data={"decisions": []})
    analysis = services.request_analysis(deal=finished, user=players[0])
    assert analysis.status == DealAnalysis.Status.QUEUED and analysis.version == ANALYSIS_VERSION


def test_the_sweep_sends_again_what_a_crash_left_behind(finished, match, timers):
    stuck = DealAnalysis.objects.create(deal=finished, version=ANALYSIS_VERSION, status="queued")
    DealAnalysis.objects.filter(pk=stuck.pk).update(requested_at=timezone.now() - timedelta(minutes=2))
    other = factories.play_deals(match, 1, seed=4)[0].deal
    dead = DealAnalysis.objects.create(deal=other, version=ANALYSIS_VERSION, status="running", done=5, total=80,
                                       started_at=timezone.now() - timedelta(minutes=30))
    assert services.resume_analyses() == 2
    assert sorted(args[0] for _name, args, _delay in timers.background) == sorted([stuck.pk, dead.pk])
    dead.refresh_from_db()
    assert dead.status == DealAnalysis.Status.QUEUED and dead.done == 0
    # Fresh rows are left alone, and a row is sent once per patience.
    assert services.resume_analyses() == 0


def test_a_practice_deal_is_analysed_at_its_end_with_a_mark_and_better_move_on_every_costly_decision(
        practice_deal, timers):
    """The done-when test: a practice deal played to its end gets its analysis queued by
    the table, and every human decision that lost more than the mistake threshold has a
    mark and a better move. The default evaluation (no fewer samples)."""
    user, deal = practice_deal
    analysis = DealAnalysis.objects.get(deal=deal)
    assert analysis.status == DealAnalysis.Status.QUEUED and analysis.requested_by is None
    assert timers.run_background() == 1
    analysis.refresh_from_db()
    assert analysis.status == DealAnalysis.Status.DONE
    decisions = analysis.data["decisions"]
    actors = list(deal.actions.order_by("seq").values_list("seat", "actor"))
    human_seat = deal.match.participants.get(user=user).position
    humans = [d for d, (seat, actor) in zip(decisions, actors) if seat == human_seat and actor == HUMAN]
    assert len(humans) > 10
    costly = [d for d in humans if d["loss"] >= MISTAKE]
    assert costly, "a random player makes mistakes"
    for decision in costly:
        assert decision["mark"] in ("mistake", "blunder"), decision
        assert decision["better"] and decision["reason"], decision
    assert analysis.data["accuracy"][human_seat] < 100
