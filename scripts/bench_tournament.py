"""Tournaments at scale (R13): how long pairing, table creation and scoring take, and a
whole tournament with scripted players.

    .venv/bin/python scripts/bench_tournament.py measure --pairs 512
    .venv/bin/python scripts/bench_tournament.py run --pairs 64

``measure`` registers ``--pairs`` pairs through the services, then times each step of
running the tournament on its own: closing registration (pairing lone entrants, drawing
and storing the boards, pairing round 1), starting a round (creating, seating and dealing
every table), reading the stored results and computing the standings, and ending a
round (the standings kept and the next round paired Swiss); and, as pure functions, the
standings over ``--rounds`` rounds of results and a Swiss pairing after them. Deals are
not played: their results are written as a finished board would leave them.

``run`` plays a whole duplicate tournament of ``--pairs`` pairs: ``--players`` pairs of
scripted players keep the tournament's page open and play their seats over the table's
WebSocket (in this process, through the site's ASGI application), the others are away
and played by the autopilot (R13.5). Embedded (nothing set): the in-process scheduler
runs every timer on this script's event loop, as the server does. With ``REDIS_URL``
(and a PostgreSQL ``DATABASE_URL``), a Celery worker with beat, started here, runs them.

Each run uses a database of its own: a temporary SQLite file, or, with a PostgreSQL
``DATABASE_URL``, a fresh database on that server, dropped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def own_database() -> tuple[str, callable]:
    """A database for this run: (its URL, a function that removes it)."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        folder = tempfile.mkdtemp(prefix="bench-tournament-")
        return f"sqlite:///{folder}/db.sqlite3", lambda: None
    import psycopg

    base, _, _name = url.rpartition("/")
    name = f"bench_tournament_{os.getpid()}"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')

    def drop():
        with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", [name])
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')

    return f"{base}/{name}", drop


def set_up(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def make_pairs(count: int):
    """``count`` registered pairs (2 x count players) and a staff organiser."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    organiser = User.objects.create(username="organiser", is_staff=True)
    users = [User.objects.create(username=f"p{i}") for i in range(2 * count)]
    return organiser, [users[2 * i:2 * i + 2] for i in range(count)]


def timed(label: str, figures: list, func, *args, **kwargs):
    start, cpu = time.perf_counter(), time.process_time()
    result = func(*args, **kwargs)
    figures.append((label, time.perf_counter() - start, time.process_time() - cpu))
    return result


def quiet_timers() -> None:
    """Nothing runs behind the measured steps: timers are dropped, pages hear nothing."""
    from games.analysis import services as analysis_services
    from games.live import door
    from games.tournaments import services

    for module in (door, analysis_services, services):
        module.schedule = lambda *args, **kwargs: None


# ------------------------------------------------------------------------------------
# measure


def finish_boards(tournament, round_number: int, rng: random.Random) -> None:
    """Write every board of the round at every table as finished, with a random result,
    as the door leaves a finished board (places, winner, advance); tables finish."""
    from django.utils import timezone

    from games.engine.boards import Board as EngineBoard
    from games.engine.boards import board_deal
    from games.live.door import deal_row
    from games.models import Deal, Match, Table
    from games.tournaments.models import Board, Pairing

    boards = list(Board.objects.filter(tournament=tournament, round_number=round_number).order_by("number"))
    now = timezone.now()
    for pairing in Pairing.objects.filter(round__tournament=tournament, round__number=round_number).select_related("table"):
        match = Match.objects.get(table=pairing.table)
        for board in boards[1:]:
            engine = EngineBoard(board.number, board.seed, tuple(tuple(h) for h in board.hands), board.level, board.leader)
            deal_row(match, board_deal(engine), number=board.number)
        for deal in Deal.objects.filter(match=match):
            places = rng.sample(range(4), 4)
            partner = places.index((places[0] + 2) % 4) + 1
            deal.result = {"places": places, "winner_team": places[0] % 2, "advance": {2: 3, 3: 2, 4: 1}[partner],
                           "levels": [0, 0], "match_over": False, "explanation": ""}
            deal.finished_at = now
            deal.save(update_fields=["result", "finished_at"])
        Match.objects.filter(pk=match.pk).update(status="finished", finished_at=now)
        Table.objects.filter(pk=pairing.table_id).update(status="finished")


def measure(args) -> None:
    from django.db import transaction
    from django.utils import timezone

    from games.tournaments import pairing, scoring, selectors, services
    from games.tournaments.models import Round, Tournament

    quiet_timers()
    figures: list = []
    organiser, pairs = make_pairs(args.pairs)
    now = timezone.now()
    tournament = services.create_tournament(
        organiser=organiser, name="Bench", format="duplicate", rounds=args.rounds, boards_per_round=args.boards,
        think_time=30, registration_closes_at=now + timedelta(hours=1), starts_at=now + timedelta(hours=2))

    def register_all():
        for first, second in pairs:
            entrant = services.register(tournament=tournament, user=first)
            services.join_partner(tournament=tournament, user=second, code=entrant.partner_code)

    timed(f"registering {args.pairs} pairs (two steps each)", figures, register_all)
    Tournament.objects.filter(pk=tournament.pk).update(registration_opens_at=now - timedelta(hours=3),
                                                       registration_closes_at=now - timedelta(seconds=1))
    timed("closing registration: pairs numbered, boards drawn and stored, round 1 paired", figures,
          services.advance, tournament_id=tournament.pk)
    Round.objects.filter(tournament=tournament, number=1).update(starts_at=now - timedelta(seconds=1))
    timed(f"starting round 1: {args.pairs // 2} tables created, seated and dealt", figures,
          services.advance, tournament_id=tournament.pk)
    rng = random.Random(1)
    finish_boards(tournament, 1, rng)
    timed("reading round 1's stored results and computing the standings", figures,
          selectors.compute_standings, tournament, through_round=1)
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        round_one = Round.objects.get(tournament=locked, number=1)
        timed("ending round 1: standings kept, round 2 paired (Swiss)", figures,
              services._finish_round, locked, round_one, timezone.now())

    # Pure functions over a whole tournament's worth of results.
    entrants = list(range(args.pairs))
    met, results = set(), []
    tables = pairing.first_round(entrants, seed=1)
    for round_number in range(1, args.rounds + 1):
        for table_number, (ns, ew) in enumerate(tables, start=1):
            met.add(frozenset((ns, ew)))
            for board in range(1, args.boards + 1):
                results.append(scoring.BoardResult(round_number, board, table_number, ns, ew,
                                                   rng.choice((-3, -2, -1, 1, 2, 3))))
        if round_number < args.rounds:
            ranked = scoring.standings(results, entrants)
            tables = pairing.swiss([s.entrant for s in ranked], met=met)
    ranked = timed(f"standings over {args.rounds} rounds x {args.boards} boards ({len(results)} results), pure",
                   figures, scoring.standings, results, entrants)
    timed(f"a Swiss pairing after {args.rounds} rounds, pure", figures,
          pairing.swiss, [s.entrant for s in ranked], met=met)
    print(f"{args.pairs} pairs, {args.rounds} rounds of {args.boards} boards; database "
          f"{os.environ['DATABASE_URL'].split(':')[0]}")
    print(f"{'step':<82} {'wall s':>8} {'CPU s':>8}")
    for label, wall, cpu in figures:
        print(f"{label:<82} {wall:8.3f} {cpu:8.3f}")


# ------------------------------------------------------------------------------------
# run


def run(args) -> None:
    from django.conf import settings

    settings.GUANDAN_NEXT_DEAL_DELAY = args.next_deal_delay
    worker = None
    if settings.GUANDAN_SCHEDULER == "celery":
        env = dict(os.environ, GUANDAN_NEXT_DEAL_DELAY=str(args.next_deal_delay))
        schedule = tempfile.mkdtemp(prefix="bench-beat-") + "/schedule"
        worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "guandan_site", "worker", "-B",
                                   "--loglevel=WARNING", "--concurrency", str(args.concurrency),
                                   "--schedule", schedule], cwd=ROOT, env=env, start_new_session=True)
    try:
        asyncio.run(play(args))
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=30)


async def play(args) -> None:
    from channels.db import database_sync_to_async
    from django.conf import settings
    from django.test import Client
    from django.utils import timezone

    from games.live import scheduler
    from games.models import Action
    from games.tournaments import services
    from games.tournaments.models import Registration, Round, Tournament
    from guandan_site.asgi import application
    from tests.tournaments.scripted import ScriptedPlayers

    if settings.GUANDAN_SCHEDULER == "inprocess":
        scheduler.bind_loop(asyncio.get_running_loop())

    @database_sync_to_async
    def prepare():
        organiser, pairs = make_pairs(args.pairs)
        now = timezone.now()
        tournament = services.create_tournament(
            organiser=organiser, name="Run", format="duplicate", rounds=args.rounds, boards_per_round=args.boards,
            think_time=30, registration_closes_at=now + timedelta(hours=1), starts_at=now + timedelta(hours=1),
            round_break=0, bot_speed=Decimal(args.bot_speed))
        for first, second in pairs:
            entrant = services.register(tournament=tournament, user=first)
            services.join_partner(tournament=tournament, user=second, code=entrant.partner_code)
        # Registration closes and round 1 starts now: the timers and the sweep take it from here.
        now = timezone.now()
        Tournament.objects.filter(pk=tournament.pk).update(
            registration_opens_at=now - timedelta(hours=1), registration_closes_at=now, starts_at=now)
        scripted = [u for pair in pairs[:args.players] for u in pair]
        Registration.objects.filter(tournament=tournament).exclude(user__in=scripted).update(
            seen_at=now - timedelta(hours=1))
        cookies = {}
        for user in scripted:
            client = Client()
            client.force_login(user)
            cookies[user.pk] = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
        return tournament, {u.pk: u for u in scripted}, cookies

    tournament, humans, cookies = await prepare()
    started = time.perf_counter()
    cpu = time.process_time()
    scripted = ScriptedPlayers(application, tournament.pk, {uid: cookie.encode() for uid, cookie in cookies.items()})
    try:
        await scripted.play(budget=args.budget)
    finally:
        await scripted.close()
    wall = time.perf_counter() - started

    @database_sync_to_async
    def summary():
        rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
        actions = Action.objects.filter(deal__match__table__tournament_pairing__round__tournament=tournament)
        return rounds, actions.count(), actions.filter(actor="human").count()

    rounds, total, human = await summary()
    print(f"{args.pairs} pairs ({args.players} scripted, {args.pairs - args.players} away), {args.rounds} rounds of "
          f"{args.boards} boards, bot speed {args.bot_speed} s; scheduler {settings.GUANDAN_SCHEDULER}, database "
          f"{settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}")
    print(f"status: {(await database_sync_to_async(lambda: Tournament.objects.get(pk=tournament.pk).status)())}")
    for r in rounds:
        print(f"round {r.number}: {(r.finished_at - r.started_at).total_seconds():.1f} s, "
              f"{len(r.standings or [])} pairs ranked")
    print(f"whole tournament: {wall:.1f} s; {total} actions ({total / wall:.1f}/s), {human} by the scripted players "
          f"over their sockets ({scripted.sent} sent); this process's CPU {time.process_time() - cpu:.1f} s; "
          f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="time pairing, table creation and scoring")
    m.add_argument("--pairs", type=int, default=512)
    m.add_argument("--rounds", type=int, default=6)
    m.add_argument("--boards", type=int, default=4)
    r = sub.add_parser("run", help="a whole tournament with scripted players")
    r.add_argument("--pairs", type=int, default=64)
    r.add_argument("--players", type=int, default=4, help="pairs of scripted players (the rest are away)")
    r.add_argument("--rounds", type=int, default=2)
    r.add_argument("--boards", type=int, default=2)
    r.add_argument("--bot-speed", default="0.1")
    r.add_argument("--next-deal-delay", type=float, default=1.0)
    r.add_argument("--concurrency", type=int, default=2, help="Celery worker processes (PostgreSQL + Redis)")
    r.add_argument("--budget", type=float, default=1800)
    args = parser.parse_args()
    url, drop = own_database()
    try:
        set_up(url)
        (measure if args.command == "measure" else run)(args)
    finally:
        from django.db import connections

        connections.close_all()
        drop()


if __name__ == "__main__":
    main()
