"""A whole duplicate tournament of 8 pairs, from registration to the final standings,
through the real services, timers and sockets: two pairs of scripted players who keep
the tournament's page open and play their seats over the table's WebSocket, six pairs
away, played by the autopilot (R13.5), fast think times.

The timers are real: on the embedded default the in-process scheduler runs them on this
test's event loop (the periodic jobs of beat's schedule included); with ``REDIS_URL``
(the PostgreSQL lane) a Celery worker consuming from Redis runs the same tasks. The
final standings equal a computation written out here by hand from the deals' places.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone

from games.models import Deal
from games.tournaments.models import Pairing, Round, Tournament
from guandan_site.asgi import application
from guandan_site.celery import app

from ..live.test_hidden_information import leaks
from ..live.test_table_consumer import cookie_for
from .scripted import ScriptedPlayers

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

BUDGET = 480  # seconds for the whole tournament (generous: CI runs both lanes side by side)


@pytest.fixture
def celery_app():
    return app


@pytest.fixture
def celery_worker_parameters():
    return {"perform_ping_check": False, "concurrency": 1}


@pytest.fixture
def timers(monkeypatch, settings, request):
    """Here the timers are real (see the module's docstring)."""
    from games.analysis import services as analysis_services
    from games.live import door, scheduler
    from games.tournaments import services

    for module in (door, analysis_services, services):
        monkeypatch.setattr(module, "schedule", scheduler.schedule)
    settings.GUANDAN_NEXT_DEAL_DELAY = 0.3
    if settings.GUANDAN_SCHEDULER == "celery":
        request.getfixturevalue("celery_worker")
        yield None
        app.control.purge()
        return
    yield None
    if scheduler._sweeper is not None:
        scheduler._sweeper.cancel()
    scheduler._loop = scheduler._sweeper = None


@database_sync_to_async
def set_up(make_user, make_staff):
    from games.tournaments import services

    organiser = make_staff(is_staff=True)
    players = [[make_user(), make_user()] for _ in range(8)]
    now = timezone.now()
    tournament = services.create_tournament(
        organiser=organiser, name="Eight pairs", format="duplicate", rounds=2, boards_per_round=1, think_time=10,
        registration_closes_at=now + timedelta(seconds=3), starts_at=now + timedelta(seconds=3), round_break=0,
        bot_speed=Decimal("0.1"),
    )
    for first, second in players:
        entrant = services.register(tournament=tournament, user=first)
        services.join_partner(tournament=tournament, user=second, code=entrant.partner_code)
    return tournament, players


@database_sync_to_async
def away(users):
    from games.tournaments.models import Registration

    Registration.objects.filter(user__in=users).update(seen_at=timezone.now() - timedelta(hours=1))


def hand_computed_percentages(tournament_id):
    """R13.4 by hand: per board, each pair's signed result against the same seats at the
    other tables, 2 for each outscored and 1 for each tie, as a share of the most."""
    got, most = defaultdict(int), defaultdict(int)
    boards = defaultdict(list)
    for pairing in Pairing.objects.filter(round__tournament_id=tournament_id):
        for deal in Deal.objects.filter(match__table=pairing.table):
            first = deal.result["places"][0]
            advance = deal.result["advance"]
            ns = advance if first in (0, 2) else -advance
            boards[(pairing.round.number, deal.number)].append((pairing.ns_id, ns))
            boards[(pairing.round.number, deal.number)].append((pairing.ew_id, -ns))
    for rows in boards.values():
        # rows alternate: seats 1 & 3, then seats 2 & 4 of the same table
        for direction in (0, 1):
            same = rows[direction::2]
            for entrant, score in same:
                for other, theirs in same:
                    if other == entrant:
                        continue
                    most[entrant] += 2
                    got[entrant] += 2 if score > theirs else 1 if score == theirs else 0
    return {e: Fraction(100 * got[e], most[e]) for e in most}


async def test_eight_pairs_play_a_whole_duplicate_tournament(make_user, timers):
    tournament, players = await set_up(make_user, make_user)
    humans = [u for pair in players[:2] for u in pair]
    await away([u for pair in players[2:] for u in pair])
    from games.live import scheduler

    if settings.GUANDAN_SCHEDULER == "inprocess":
        scheduler.bind_loop(asyncio.get_running_loop())
    scripted = ScriptedPlayers(application, tournament.pk, {u.pk: await cookie_for(u) for u in humans})
    assert await scripted.play(budget=BUDGET) == "finished"
    # The pages show the final standings as the last round ends (R13.6).
    await scripted.until_shown("Final standings")
    await scripted.close()
    tournament_messages, table_messages = scripted.tournament_messages, scripted.table_messages

    @database_sync_to_async
    def check():
        t = Tournament.objects.get(pk=tournament.pk)
        rounds = list(Round.objects.filter(tournament=t).order_by("number"))
        assert [r.status for r in rounds] == ["finished", "finished"]
        # R13.2: every table played both boards of its round, the same boards everywhere.
        for r in rounds:
            tables = Pairing.objects.filter(round=r)
            assert tables.count() == 4
            seeds = {(d.number, d.seed) for d in Deal.objects.filter(match__table__tournament_pairing__round=r)}
            assert len(seeds) == 1
        # The scripted players played their own seats: actions by people, at both rounds.
        assert Deal.objects.filter(match__table__tournament_pairing__round__tournament=t,
                                   actions__actor="human").distinct().count() >= 2
        # R13.3: no pair met twice.
        met = [frozenset(p) for p in Pairing.objects.filter(round__tournament=t).values_list("ns_id", "ew_id")]
        assert len(met) == len(set(met)) == 8
        # R13.4: the final standings equal the hand computation.
        expected = hand_computed_percentages(t.pk)
        final = rounds[-1].standings
        assert {row["entrant"]: Fraction(*row["score"]) for row in final} == expected
        scores = [Fraction(*row["score"]) for row in final]
        assert scores == sorted(scores, reverse=True)
        # Hidden information: the scripted players' table pages never held a card their
        # seat could not see; the tournament's page never a card at all.
        for (uid, table_id), messages in table_messages.items():
            seat = next(s.position for s in Pairing.objects.get(table_id=table_id).table.seats.all()
                        if s.user_id == uid or s.away_user_id == uid)
            assert not leaks(messages, seat), (uid, table_id)
        assert all("data-card" not in m for messages in tournament_messages.values() for m in messages)

    await check()
