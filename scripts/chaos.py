#!/usr/bin/env python
"""Chaos run: scripted players on the production setup while its processes are killed
and restarted at random, then what held and what did not.

    .venv/bin/python scripts/chaos.py --minutes 3 --every 10          # the CI lane's run
    .venv/bin/python scripts/chaos.py --minutes 30 --every 20 --tables 12

Starts, on loopback only and for a bounded time, what production runs, all of it its own
so that it can be killed: a PostgreSQL cluster (``initdb`` in a temporary folder, run as
the ``postgres`` user when this runs as root), a Redis server, two daphne processes, a
Celery worker and Celery beat (the deploy recipe's command lines: tests/live/processes.py
and scripts/bench_live.py start the same). ``--tables`` friend tables of ``4 - --bots``
scripted players and ``--bots`` bots play on them (scripts/bench_live.py's tables and
players: each player acts ``--think`` seconds after its turn shows, over its table
socket, as the page's form does), each table's sockets split between the two daphne.

Every ``--every`` seconds one fault, drawn at random: a daphne process, the worker or
beat killed (SIGKILL) or stopped (SIGTERM), Redis killed (its memory lost), or
PostgreSQL restarted (fast shutdown: every connection cut, transactions in flight rolled
back). A supervisor brings each back as systemd would (``Restart=always``: daphne after
1 s, the worker and beat after 2 s; Redis and PostgreSQL at once). Pages behave like the
site's script: a closed socket reconnects (the proxy would send it to a live process),
and a player whose move did not land (the page still shows the same turn 5 s later)
sends it again.

At the end (no fault in the last ``--calm`` seconds) it prints and checks:

- faults injected, by kind;
- actions applied (rows added to the action log), and by whom;
- lost actions (0): steps some page was shown that the log lacks; and doubled actions
  (0): places in a deal's log holding two actions, or gaps (a move sent again because it
  had not landed is refused as stale if the first did land: R9.1, one step, one action);
- deals equal to the fold of their logs (all, R11.1);
- the longest time any page was behind its table: from a step's commit to the moment
  the page held it or a later step (pages of a killed daphne included: they reconnect);
- players timed out (R9.2) on a turn their page never showed (0);
- p50/p95/p99 from a player's send to all four sockets of the table holding the step,
  through the whole run, faults included.

Exit status 1 when a check fails. ``--json FILE`` writes the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import bench_live  # noqa: E402  (the benchmark's tables, players and regexes)

VENV_BIN = Path(sys.executable).parent
DATABASE = "guandan_chaos"
KINDS = ("daphne", "worker", "beat", "redis", "postgres")
RESTART_AFTER = {"daphne": 1.0, "worker": 2.0, "beat": 2.0}  # seconds, as the recipe's units say
RESEND_AFTER = 5.0  # seconds a player waits for its move to land before sending it again


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--minutes", type=float, default=3.0, help="length of the run (default 3)")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between faults (default 10)")
    parser.add_argument("--calm", type=float, default=15.0, help="seconds without faults at the end (default 15)")
    parser.add_argument("--tables", type=int, default=8, help="tables (default 8)")
    parser.add_argument("--bots", type=int, default=2, choices=(0, 1, 2), help="bot seats per table (default 2)")
    parser.add_argument("--think", type=float, default=1.0, help="seconds a player waits before acting (default 1)")
    parser.add_argument("--bot-speed", default="0.5", choices=("0.3", "0.5", "1.0"), help="bot speed (default 0.5)")
    parser.add_argument("--seed", type=int, default=28, help="the faults' and players' random seed")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--keep", action="store_true", help="leave the logs and data folder behind")
    return parser.parse_args(argv)


# ----------------------------------------------------------------------------------------
# The processes


def _postgres_bin() -> Path:
    found = shutil.which("pg_config")
    if found:
        return Path(subprocess.run([found, "--bindir"], capture_output=True, text=True, check=True).stdout.strip())
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
    if not candidates:
        raise SystemExit("PostgreSQL's server programs are needed (Debian: postgresql)")
    return candidates[-1]


class Processes:
    """Every process of the run, each in its own session, and the supervisor that brings
    them back."""

    def __init__(self, base: Path):
        self.base = base
        self.logs = base / "logs"
        self.logs.mkdir(parents=True)
        self.pg_bin = _postgres_bin()
        self.pg_port = bench_live.free_port()
        self.redis_port = bench_live.free_port()
        self.web_ports = [bench_live.free_port(), bench_live.free_port()]
        self.running: dict[str, subprocess.Popen] = {}
        self.as_postgres = os.geteuid() == 0  # initdb and postgres refuse to run as root
        self.lock = threading.RLock()
        self.env = dict(os.environ)
        self.env.update({
            "DATABASE_URL": f"postgres://chaos@127.0.0.1:{self.pg_port}/{DATABASE}",
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "DEBUG": "0",
            "SECRET_KEY": "chaos-only-" + os.urandom(16).hex(),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "GUANDAN_NEXT_DEAL_DELAY": "2",
            "DJANGO_SETTINGS_MODULE": "guandan_site.settings",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        })
        for name in ("GUANDAN_REDIS_PREFIX",):
            self.env.pop(name, None)

    def _spawn(self, name: str, args: list[str], **options) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "ab")
        process = subprocess.Popen(args, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True, **options)
        self.running[name] = process
        return process

    # PostgreSQL: a cluster of its own -----------------------------------------------------

    def _pg_options(self) -> dict:
        return {"user": "postgres", "group": "postgres"} if self.as_postgres else {}

    def init_postgres(self) -> None:
        data, sockets = self.base / "pgdata", self.base / "pgsocket"
        sockets.mkdir()
        if self.as_postgres:
            shutil.chown(self.base, "postgres", "postgres")
            shutil.chown(sockets, "postgres", "postgres")
            shutil.chown(self.logs, "postgres", "postgres")
        subprocess.run([str(self.pg_bin / "initdb"), "-D", str(data), "-U", "chaos", "--auth=trust", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True, **self._pg_options())

    def start_postgres(self) -> None:
        process = self._spawn("postgres", [
            str(self.pg_bin / "postgres"), "-D", str(self.base / "pgdata"), "-p", str(self.pg_port),
            "-k", str(self.base / "pgsocket"), "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200",
        ], **self._pg_options())
        bench_live.wait_for_port(self.pg_port, process, timeout=60)

    def restart_postgres(self) -> None:
        """A restart: fast shutdown (every connection cut, transactions in flight rolled
        back), then up again at once."""
        process = self.running["postgres"]
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
        self.start_postgres()

    # Redis ---------------------------------------------------------------------------------

    def start_redis(self) -> None:
        process = self._spawn("redis", [shutil.which("redis-server"), "--port", str(self.redis_port),
                                        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        bench_live.wait_for_port(self.redis_port, process)

    def kill_redis(self) -> None:
        self.running["redis"].kill()
        self.running["redis"].wait(timeout=10)
        self.start_redis()

    # The site's processes, as the deploy recipe runs them ---------------------------------

    def start(self, name: str) -> None:
        if name.startswith("daphne"):
            number = int(name[-1])
            port = self.web_ports[number - 1]
            process = self._spawn(name, [str(VENV_BIN / "daphne"), "--no-server-name", "-v", "0", "-b", "127.0.0.1",
                                         "-p", str(port), "guandan_site.asgi:application"])
            bench_live.wait_for_port(port, process, timeout=60)
        elif name == "worker":
            self._spawn(name, [str(VENV_BIN / "celery"), "-A", "guandan_site", "worker", "--queues=celery",
                               "--loglevel=WARNING", "--without-gossip", "--without-mingle"])
        elif name == "beat":
            self._spawn(name, [str(VENV_BIN / "celery"), "-A", "guandan_site", "beat", "--loglevel=WARNING",
                               "--schedule", str(self.base / "celerybeat-schedule")])
        else:
            raise ValueError(name)

    def fault(self, name: str, how: int) -> None:
        """Kill (SIGKILL) or stop (SIGTERM) one of the site's processes; the supervisor
        brings it back after the recipe's delay."""
        with self.lock:
            process = self.running[name]
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, how)
        threading.Thread(target=self._bring_back, args=(name, process), daemon=True).start()

    def _bring_back(self, name: str, process: subprocess.Popen) -> None:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a stop that hangs is killed, as systemd would
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        time.sleep(RESTART_AFTER[name.rstrip("12")])
        with self.lock:
            self.start(name)

    def stop_all(self) -> None:
        with self.lock:
            for process in self.running.values():
                if process.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL if process is not self.running.get("postgres")
                                  else signal.SIGINT)
            for process in self.running.values():
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=30)


# ----------------------------------------------------------------------------------------
# The players (reconnecting pages)


@dataclass
class Page:
    table: bench_live.BenchTable
    viewer: bench_live.Viewer
    ports: list[int]
    ws: object = None
    connections: int = 0
    first_seen: dict = field(default_factory=dict)  # (deal, seq) -> time first held
    newest: tuple[int, int] | None = None
    my_turn_at: tuple[int, int] | None = None
    sent_at: dict = field(default_factory=dict)  # (deal, seq) -> time last sent
    opened_at: float = 0.0


class Players:
    def __init__(self, tables, ports: list[int], *, think: float, seed: int):
        from concurrent.futures import ThreadPoolExecutor

        self.think = think
        self.rng = random.Random(seed)
        self.pages = [Page(table, viewer, ports[i % 2:] + ports[:i % 2])
                      for table in tables for i, viewer in enumerate(table.viewers)]
        self.sends: list[tuple[int, int, int, int, float]] = []  # (table, deal, seq, seat, time)
        self.choosers = ThreadPoolExecutor(4)
        self.acting = True
        self.tasks: set = set()

    def spawn(self, coro) -> None:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def open_all(self) -> None:
        for page in self.pages:
            await self._connect(page)
            self.spawn(self._read(page))
        self.spawn(self._watchdog())

    async def _connect(self, page: Page) -> None:
        from websockets.asyncio.client import connect

        while True:
            for port in page.ports:
                try:
                    page.ws = await connect(
                        f"ws://127.0.0.1:{port}/ws/tables/{page.table.table_id}/", origin=f"http://127.0.0.1:{port}",
                        additional_headers={"Cookie": f"sessionid={page.viewer.session_key}"},
                        proxy=None, ping_interval=None, max_size=2 ** 22, open_timeout=10,
                    )
                    page.connections += 1
                    page.opened_at = page.opened_at or time.time()
                    return
                except Exception:
                    await asyncio.sleep(0.2)

    async def _read(self, page: Page) -> None:
        while True:
            try:
                async for html in page.ws:
                    self._received(page, html, time.time())
            except Exception:
                pass
            if not self.acting:
                return
            await self._connect(page)  # as the page's script does: a closed socket reconnects

    def _received(self, page: Page, html: str, now: float) -> None:
        found = bench_live.STEP.search(html)
        if found is None:
            return
        step = (int(found.group(2)), int(found.group(1)))
        page.first_seen.setdefault(step, now)
        if page.newest is None or step > page.newest:
            page.newest = step
        if page.viewer.seat is None:
            return
        if bench_live.MY_TURN in html and step == page.newest:
            page.my_turn_at = step
            if step not in page.sent_at:
                page.sent_at[step] = now + 1e9  # chosen once; the watchdog sends it again if it did not land
                self.spawn(self._act(page, step))
        elif step == page.newest and 'id="tbl-status"' in html:
            page.my_turn_at = None

    async def _watchdog(self) -> None:
        """A player whose move did not land (the page still shows the same turn) sends it
        again, as a person would press the button again."""
        while self.acting:
            await asyncio.sleep(1.0)
            now = time.time()
            for page in self.pages:
                step = page.my_turn_at
                if step is not None and step == page.newest and now - page.sent_at.get(step, now) > RESEND_AFTER:
                    page.sent_at[step] = now + 1e9
                    self.spawn(self._act(page, step, wait=False))

    async def _act(self, page: Page, step: tuple[int, int], *, wait: bool = True) -> None:
        if wait and self.think:
            await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
        if not self.acting or page.newest != step:
            return
        loop = asyncio.get_running_loop()
        try:
            messages = await loop.run_in_executor(self.choosers, _choose, step[0], step[1], page.viewer.seat)
        except Exception:  # the database is restarting: try again later
            messages = None
        if not messages:
            page.sent_at[step] = time.time()
            return
        try:
            for message in messages[:-1]:
                await page.ws.send(json.dumps(message))
            sent = time.time()
            await page.ws.send(json.dumps(messages[-1]))
        except Exception:  # the socket closed: sent again once the page is back
            page.sent_at[step] = time.time() - RESEND_AFTER + 1.0
            return
        page.sent_at[step] = sent
        self.sends.append((page.table.table_id, step[0], step[1], page.viewer.seat, sent))

    async def close(self) -> None:
        self.acting = False
        for page in self.pages:
            with contextlib.suppress(Exception):
                await page.ws.close()
        for task in list(self.tasks):
            task.cancel()
        self.choosers.shutdown(wait=False, cancel_futures=True)


_db = threading.local()


def _choose(deal_id: int, seq: int, seat: int):
    """The player's move at this step (bench_live's choice), over a plain connection of
    this thread's own that is opened again after PostgreSQL restarts."""
    try:
        return bench_live._choose(deal_id, seq, seat)
    except Exception:
        conn = getattr(bench_live._player_db, "conn", None)
        bench_live._player_db.conn = None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
        raise


# ----------------------------------------------------------------------------------------
# Faults


@dataclass
class Fault:
    at: float
    kind: str
    how: str


def inject(processes: Processes, rng: random.Random) -> Fault:
    """One fault, on a process that is up (one still coming back is left alone)."""
    while True:
        kind = rng.choice(KINDS)
        name = f"daphne{rng.choice((1, 2))}" if kind == "daphne" else kind
        if name in ("redis", "postgres") or processes.running[name].poll() is None:
            break
    now = time.time()
    if kind == "redis":
        processes.kill_redis()
        return Fault(now, kind, "killed")
    if kind == "postgres":
        processes.restart_postgres()
        return Fault(now, kind, "restarted")
    how = rng.choice((signal.SIGKILL, signal.SIGTERM))
    processes.fault(name, how)
    return Fault(now, name, "killed" if how == signal.SIGKILL else "stopped")


# ----------------------------------------------------------------------------------------
# Checks


def _retry(func, *args, tries: int = 30):
    from django.db import connections

    for attempt in range(tries):
        try:
            return func(*args)
        except Exception:
            if attempt == tries - 1:
                raise
            connections.close_all()
            time.sleep(1.0)


def step_times(table_ids: list[int]) -> dict[int, list[tuple[tuple[int, int], float]]]:
    """For each table, every step of its deals in order with its commit time: the deal's
    start for step 0, its action's time for the others."""
    from games.models import Action, Deal

    out = collections.defaultdict(list)
    for deal in Deal.objects.filter(match__table_id__in=table_ids).select_related("match"):
        out[deal.match.table_id].append(((deal.pk, 0), deal.started_at.timestamp()))
    for table_id, deal_id, seq, created in Action.objects.filter(deal__match__table_id__in=table_ids).values_list(
            "deal__match__table_id", "deal_id", "seq", "created_at"):
        out[table_id].append(((deal_id, seq), created.timestamp()))
    for steps in out.values():
        steps.sort()
    return out


def behind_times(pages: list[Page], steps: dict, until: float) -> list[float]:
    """For every page and every step committed after the page first opened: seconds from
    the commit to the moment the page held that step or a later one."""
    out = []
    for page in pages:
        seen = sorted(page.first_seen.items())  # by step
        suffix_min = []
        best = None
        for step, moment in reversed(seen):
            best = moment if best is None else min(best, moment)
            suffix_min.append((step, best))
        suffix_min.reverse()
        index = 0
        for step, committed in steps.get(page.table.table_id, []):
            if committed < page.opened_at:
                continue
            while index < len(suffix_min) and suffix_min[index][0] < step:
                index += 1
            caught = suffix_min[index][1] if index < len(suffix_min) else until
            out.append(max(0.0, caught - committed))
    return out


def unseen_timeouts(pages: list[Page], table_ids: list[int]) -> list[tuple]:
    """Timeouts (R9.2) of a seat whose page never held the step the turn began at."""
    from games.models import Action, Seat

    by_seat = {(page.table.table_id, page.viewer.seat): page for page in pages if page.viewer.seat is not None}
    found = []
    humans = set(Seat.objects.filter(table_id__in=table_ids, user__isnull=False).values_list("table_id", "position"))
    for table_id, deal_id, seq, seat in Action.objects.filter(
            deal__match__table_id__in=table_ids, actor="timeout").values_list("deal__match__table_id", "deal_id",
                                                                              "seq", "seat"):
        page = by_seat.get((table_id, seat))
        if page is None or (table_id, seat) not in humans:
            continue
        if (deal_id, seq - 1) not in page.first_seen:
            found.append((table_id, deal_id, seq, seat))
    return found


def log_checks(table_ids: list[int], pages: list[Page], sends) -> dict[str, int]:
    from django.db.models import Count

    from games.models import Action, Deal
    from games.replays.log import check_deal

    report = collections.Counter()
    deals = list(Deal.objects.filter(match__table_id__in=table_ids).prefetch_related("actions"))
    logged = set()
    for deal in deals:
        rows = sorted(deal.actions.all(), key=lambda r: r.seq)
        report["deals"] += 1
        if [r.seq for r in rows] != list(range(1, len(rows) + 1)) or deal.seq != len(rows):
            report["deals whose log has a gap or a double"] += 1
        if check_deal(deal, rows) is not None:
            report["deals that are not the fold of their log"] += 1
        logged.update((deal.pk, r.seq) for r in rows)
        logged.add((deal.pk, 0))
    report["places holding two actions"] = Action.objects.filter(deal__in=deals).values("deal", "seq").annotate(
        n=Count("id")).filter(n__gt=1).count()
    shown = {step for page in pages for step in page.first_seen}
    report["lost actions (shown, not logged)"] = len({s for s in shown if s[0] in {d.pk for d in deals}} - logged)
    # One send is one move: the seat's next logged action after the step it was sent at.
    applied = collections.Counter()
    human_rows = {(r.deal_id, r.seq): r for r in Action.objects.filter(deal__in=deals, actor="human")}
    for _table, deal_id, seq, seat, _at in sends:
        row = human_rows.get((deal_id, seq + 1))
        if row is not None and row.seat == seat:
            applied[(deal_id, seq + 1)] += 1
    report["steps moved by a send"] = len(applied)
    report["sends"] = len(sends)
    report["sends again (a move that had not landed, or a stale one refused)"] = len(sends) - len(
        {(deal_id, seq) for _t, deal_id, seq, _s, _a in sends})
    return dict(report)


# ----------------------------------------------------------------------------------------


async def run(args, processes: Processes) -> dict:
    from asgiref.sync import sync_to_async

    loop = asyncio.get_running_loop()
    rng = random.Random(args.seed)
    tables = await sync_to_async(bench_live.make_tables, thread_sensitive=False)(
        args.tables, bots=args.bots, bot_speed=args.bot_speed, label="chaos")
    table_ids = [t.table_id for t in tables]
    players = Players(tables, processes.web_ports, think=args.think, seed=args.seed)
    await players.open_all()
    started = time.time()
    await sync_to_async(bench_live.start_matches, thread_sensitive=False)(tables)
    from games.models import Action

    actions_before = await sync_to_async(Action.objects.count, thread_sensitive=False)()
    faults: list[Fault] = []
    end = started + args.minutes * 60
    next_fault = started + args.every
    while time.time() < end:
        await asyncio.sleep(0.25)
        if time.time() >= next_fault and time.time() < end - args.calm:
            fault = await loop.run_in_executor(None, inject, processes, rng)
            faults.append(fault)
            print(f"  {fault.at - started:6.1f} s  {fault.kind} {fault.how}", flush=True)
            next_fault += args.every
    # The calm at the end: pages catch up, then the players stop.
    players.acting = False
    await asyncio.sleep(3.0)
    until = time.time()
    await players.close()

    def figures():
        from django.db import connections

        connections.close_all()
        steps = _retry(step_times, table_ids)
        behind = behind_times(players.pages, steps, until)
        checks = _retry(log_checks, table_ids, players.pages, players.sends)
        unseen = _retry(unseen_timeouts, players.pages, table_ids)
        actors = collections.Counter(Action.objects.filter(deal__match__table_id__in=table_ids).values_list(
            "actor", flat=True))
        starts = [(t, d, s + 1, at) for t, d, s, _seat, at in players.sends]
        sockets = [bench_live.Socket(page.table, i, page.viewer, 0) for i, page in enumerate(players.pages)]
        for sock, page in zip(sockets, players.pages):
            sock.first_seen = page.first_seen
        latencies, missing = bench_live.delivery_latencies(sockets, starts, started, until)
        return steps, behind, checks, unseen, actors, latencies, missing

    steps, behind, checks, unseen, actors, latencies, missing = await loop.run_in_executor(None, figures)
    kinds = collections.Counter(f"{f.kind.rstrip('12')} {f.how}" for f in faults)
    result = {
        "minutes": args.minutes, "every": args.every, "tables": args.tables, "bots_per_table": args.bots,
        "faults": dict(sorted(kinds.items())), "faults_total": len(faults),
        "actions_applied": sum(actors.values()) - actions_before if actions_before else sum(actors.values()),
        "actions_by_actor": dict(actors),
        "checks": checks,
        "unseen_timeouts": len(unseen),
        "unseen_timeout_details": [
            {"table": t, "deal": d, "seq": q, "seat": st,
             "page_steps_of_that_deal": sorted(k[1] for k in page.first_seen if k[0] == d)[-5:],
             "page_connections": page.connections}
            for (t, d, q, st) in unseen
            for page in players.pages if page.table.table_id == t and page.viewer.seat == st],
        "longest_behind_s": round(max(behind, default=0.0), 2),
        "behind_p99_s": round(bench_live.percentiles(behind).get("p99", 0.0), 3),
        "send_to_all": {k: (round(v * 1000, 1) if k != "n" else v)
                        for k, v in bench_live.percentiles(latencies).items()},
        "sends_never_shown_everywhere": missing,
    }
    return result


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.minutes * 60 <= args.calm + args.every:
        raise SystemExit("--minutes must leave room for faults before the calm")
    base = Path(tempfile.mkdtemp(prefix="chaos-"))
    processes = Processes(base)
    os.environ.update(processes.env)
    print(f"Chaos: {args.minutes} min, a fault every {args.every} s, {args.tables} tables "
          f"({4 - args.bots} players + {args.bots} bots), think {args.think} s; logs in {processes.logs}", flush=True)
    result = None
    try:
        processes.init_postgres()
        processes.start_postgres()
        subprocess.run([str(processes.pg_bin / "createdb"), "-h", "127.0.0.1", "-p", str(processes.pg_port), "-U", "chaos",
                        DATABASE], check=True)
        processes.start_redis()
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=processes.env,
                       check=True)
        import django

        django.setup()
        from django.conf import settings

        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
        for name in ("daphne1", "daphne2", "worker", "beat"):
            processes.start(name)
        from guandan_site.celery import app

        deadline = time.monotonic() + 60
        while not app.control.ping(timeout=0.5):
            if time.monotonic() > deadline:
                raise RuntimeError("the Celery worker did not answer")
        result = asyncio.run(run(args, processes))
    finally:
        from django.db import connections

        with contextlib.suppress(Exception):
            connections.close_all()
        processes.stop_all()
    checks = result["checks"]
    failures = [name for name in ("deals whose log has a gap or a double", "deals that are not the fold of their log",
                                  "places holding two actions", "lost actions (shown, not logged)") if checks.get(name)]
    if result["unseen_timeouts"]:
        failures.append("players timed out on a turn their page never showed")
    if not result["actions_applied"]:
        failures.append("nothing was played")
    send = result["send_to_all"]
    rows = [
        ("faults injected", ", ".join(f"{k} {v}" for k, v in result["faults"].items()) + f" ({result['faults_total']})"),
        ("actions applied", f"{result['actions_applied']} ({', '.join(f'{k} {v}' for k, v in sorted(result['actions_by_actor'].items()))})"),
        ("lost actions (shown on a page, not in the log)", str(checks.get("lost actions (shown, not logged)", 0))),
        ("doubled actions (two in one place of a log, or gaps)",
         str(checks.get("places holding two actions", 0) + checks.get("deals whose log has a gap or a double", 0))),
        ("moves sent again (had not landed) / steps moved by players' sends",
         f"{checks.get('sends again (a move that had not landed, or a stale one refused)', 0)} / "
         f"{checks.get('steps moved by a send', 0)} of {checks.get('sends', 0)} sends"),
        ("deals equal to the fold of their log",
         f"{checks['deals'] - checks.get('deals that are not the fold of their log', 0)} of {checks['deals']}"),
        ("longest time a page was behind its table", f"{result['longest_behind_s']:.2f} s (p99 {result['behind_p99_s']:.3f} s)"),
        ("players timed out on a turn their page never showed", str(result["unseen_timeouts"])),
        ("send -> all 4 sockets, whole run", f"p50 {send.get('p50', 0)} ms, p95 {send.get('p95', 0)} ms, "
                                             f"p99 {send.get('p99', 0)} ms, max {send.get('max', 0)} ms (n {send.get('n', 0)})"),
    ]
    bench_live.print_table("Chaos run", rows)
    print("\n" + ("FAILED: " + "; ".join(failures) if failures else "every check held"))
    if args.json:
        Path(args.json).write_text(json.dumps(dict(result, failures=failures), indent=2))
    if failures:
        print(f"the processes' logs are kept in {processes.logs}")
    elif not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
