"""One step's work in the web processes, measured in one process without sockets: the
door, and each page's drawing of the step.

    .venv/bin/python scripts/bench_step.py [--deals 4] [--rounds 3] [--seed 1]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python scripts/bench_step.py

``scripts/bench_live.py`` measures the whole site under load, where a few per cent of
CPU are below what its runs resolve. This script measures the part of a step that is
the site's own code, step by step and with little noise, so two versions can be put
side by side (run it in each worktree, one after the other, a few times).

Each round plays ``--deals`` deals of a match table of four people through the door
(``games.live.door.submit_action``, the tests' policy: leads play, followers mostly
pass; tribute and return included), the cards drawn from ``--seed``, so every round and
every version plays the same deals. Each step's announcement (the public fragments and
the scene, what the table's pages receive) is kept instead of being sent. The four
seats' pages then draw each step as the table's socket does (``TableConsumer``'s own
``draw_parts`` and region diff): two in the door's process, which keeps the scene it
sent, and two in another, which parses it from the event's text once for both. A round
of two deals before them warms the process up (URLs, templates, catalogues) and is not
counted.

Printed: the door's wall and CPU time a step (the database's round trips are in the
wall time, its own work in neither), apart for the steps that end a deal (the
settlement, R7, R10.6-R10.11) and for opening the next deal; a page's CPU a step; and
their sum for one step with four pages, best round (the least disturbed) and median.
The channel layer's send, the WebSocket frames and the thread hand-offs between the
event loop and the database threads are not measured here.

Each run uses a database of its own (a temporary SQLite file, or, with a PostgreSQL
``DATABASE_URL``, a fresh database on that server, dropped at the end).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_tournament import own_database, quiet_timers, set_up  # noqa: E402


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=4, help="deals a round (default 4)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each on a new table (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="the deals' cards and the players' choices")
    return parser.parse_args(argv)


class Round:
    """One table's deals, the door's times and the announcements it made."""

    def __init__(self):
        self.door: list[tuple[float, float]] = []  # (wall, cpu) of ordinary steps
        self.kinds: list[str] = []  # each ordinary step's phase and action
        self.settle: list[tuple[float, float]] = []
        self.opening: list[tuple[float, float]] = []
        self.events: list[dict] = []
        self.pages: list[float] = []  # CPU of one page's drawing of one step
        self.parse: list[float] = []  # CPU of the other process's reading of the scene
        self.queries = {"step": 0, "settle": 0}  # statements sent, by kind of step


def timed(figures: list, func, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func(*args, **kwargs)
    figures.append((time.perf_counter() - wall, time.process_time() - cpu))
    return result


def make_table(number: int, seed: int):
    """A match table with four people seated and its match started; the match's seed
    (hence every deal's cards) from ``seed``."""
    from django.contrib.auth import get_user_model

    from games.models import Table
    from games.tables import services

    User = get_user_model()
    users = [User.objects.create(username=f"r{number}p{i}") for i in range(4)]
    table = services.create_table(host=users[0], kind=Table.Kind.MATCH, tier="junior")
    for position, user in enumerate(users[1:], start=1):  # the host sits in seat 1
        services.take_seat(table=table, user=user, position=position)
    rng = random.Random(seed)
    real_secrets = services.secrets
    services.secrets = type("Seeded", (), {"randbits": staticmethod(rng.getrandbits), "choice": staticmethod(rng.choice)})
    try:
        services.start_match(table=table, user=users[0])
    finally:
        services.secrets = real_secrets
    return table, users


def play_round(number: int, args) -> Round:
    from django.db import connection

    from games.engine.deal import PASS, PLAY, apply, legal_actions
    from games.live import broadcast, door
    from games.live import selectors as live_selectors

    out = Round()
    broadcast._group_send = lambda layer, group, message: out.events.append(message) if group.startswith("table-") else None
    table, users = make_table(number, args.seed)
    rng = random.Random(args.seed)
    for deal_number in range(args.deals):
        while True:
            deal = live_selectors.current_deal(table)
            state = live_selectors.deal_state(deal)
            seat = state.to_act[0]
            options = legal_actions(state, seat)
            if state.phase == "play" and not state.leading and rng.random() < 0.7:
                action = next(a for a in options if a.kind == PASS)
            else:
                action = rng.choice([a for a in options if a.kind == PLAY] or options)
            last = apply(state, action).is_over
            kind = "settle" if last else "step"

            def count(execute, sql, params, many, context, kind=kind):
                out.queries[kind] += 1
                return execute(sql, params, many, context)

            if not last:
                out.kinds.append(f"{state.phase} {action.kind}")
            with connection.execute_wrapper(count):
                timed(out.settle if last else out.door, door.submit_action, table_id=table.pk, seat=seat,
                      kind=action.kind, cards=action.cards, reading=action.reading, expected_deal=deal.pk,
                      expected_seq=deal.seq, user=users[seat])
            if last:
                break
        if deal_number + 1 < args.deals:
            timed(out.opening, door.start_next_deal, table_id=table.pk, deal_id=deal.pk)
    draw_pages(table, users, out)
    return out


def draw_pages(table, users, out: Round) -> None:
    """Each step drawn by the four seats' pages, as their sockets draw it: seats 0 and 2
    in the door's process (its kept scenes), 1 and 3 in another (the scene parsed from
    the event's text, after the step before)."""
    from games.live import render
    from games.live.consumer import TableConsumer, _Regions
    from games.live.render import Scene, ViewerState, scene_from_event

    pages = []
    for position, user in enumerate(users):
        page = TableConsumer()
        page.table_id, page.viewer, page.language = table.pk, ViewerState(), "en"
        page.drawn, page.regions, page.hand_key, page.scene, page.user_id = (0, -1), _Regions(), None, None, user.pk
        pages.append(page)
    other: Scene | None = None
    for event in out.events:
        text = event.get("scene")
        if text is None:
            continue
        render.forget_scenes()
        own = scene_from_event(table.pk, text)  # the door's process: its kept scene
        cpu = time.process_time()
        other = Scene.from_event(text, other)
        out.parse.append(time.process_time() - cpu)
        for position, page in enumerate(pages):
            scene = own if position % 2 == 0 else other
            cpu = time.process_time()
            public, parts = page.draw_parts(scene, event["public"], keep_hand=True)
            page.regions.changed(public, parts.regions())
            out.pages.append(time.process_time() - cpu)


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"p50 {1e3 * statistics.median(ordered):6.2f}  p95 {1e3 * p95:6.2f}  mean {1e3 * statistics.fmean(ordered):6.2f} ms"


def report(rounds: list[Round], args, url: str) -> None:
    engine = "PostgreSQL" if url.startswith("postgres") else "SQLite"
    steps = len(rounds[0].door)
    print(f"{args.rounds} rounds of {args.deals} deals ({steps} ordinary steps, {len(rounds[0].settle)} settlements "
          f"a round), {engine}, seed {args.seed}")
    print()
    for number, r in enumerate(rounds, 1):
        door_cpu = [c for _w, c in r.door]
        print(f"round {number}:")
        print(f"  door, a step, wall              {ms([w for w, _c in r.door])}")
        print(f"  door, a step, CPU               {ms(door_cpu)}")
        print(f"  statements a step / settlement  {r.queries['step'] / len(r.door):.2f} / "
              f"{r.queries['settle'] / len(r.settle):.1f} (BEGIN and COMMIT not counted)")
        print(f"  door, a settlement, wall        {ms([w for w, _c in r.settle])}")
        print(f"  door, a settlement, CPU         {ms([c for _w, c in r.settle])}")
        if r.opening:
            print(f"  opening the next deal, wall     {ms([w for w, _c in r.opening])}")
        slowest = sorted(zip(r.door, r.kinds), reverse=True)[:5]
        print("  slowest steps, wall             " + ", ".join(f"{1e3 * w:.1f} ms ({kind})" for (w, _c), kind in slowest))
        print(f"  a page's drawing, CPU           {ms(r.pages)}")
        print(f"  the scene read from the event   {ms(r.parse)}")
    door_means = [statistics.fmean([c for _w, c in r.door]) for r in rounds]
    page_means = [statistics.fmean(r.pages) for r in rounds]
    # The other process reads each step's scene once, for both of its pages.
    per_step = [door + 4 * page + statistics.fmean(r.parse) for door, page, r in zip(door_means, page_means, rounds)]
    print()
    print("One step with four pages (the door, four pages' drawing, the other process's reading of the scene),")
    print("mean CPU a step, best round / median of rounds:")
    print(f"  door        {1e3 * min(door_means):.3f} / {1e3 * statistics.median(door_means):.3f} ms")
    print(f"  a page      {1e3 * min(page_means):.3f} / {1e3 * statistics.median(page_means):.3f} ms")
    print(f"  together    {1e3 * min(per_step):.3f} / {1e3 * statistics.median(per_step):.3f} ms")


def main(argv=None) -> int:
    args = parse_args(argv)
    url, drop = own_database()
    try:
        set_up(url)
        quiet_timers()
        # A round first, not counted: the first settlement loads the URLs, the first
        # drawing the templates and the catalogues.
        play_round(0, argparse.Namespace(**{**vars(args), "deals": 2}))
        rounds = [play_round(number, args) for number in range(1, args.rounds + 1)]
        report(rounds, args, url)
    finally:
        from django.db import connections

        connections.close_all()
        for connection in connections.all():
            if hasattr(connection, "close_pool"):
                connection.close_pool()
        drop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
