"""How much a leaderboard page and a player page cost at scale (R10.11).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/guandan_bench \\
        .venv/bin/python scripts/bench_leaderboard.py --players 100000

Migrates the database it is given, seeds it with ``--players`` players
(``manage.py seed_players``, once: a second run reuses them) and one busy player with
2,000 finished deals and 400 rating changes, then serves pages through Django's test
client and prints, for each page, the queries it ran and its time (median of
``--repeat`` runs), with the caches cold (the leaderboards' cached pages forgotten) and
warm. Point it at a database of its own: it adds rows and keeps them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_site.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    call_command("seed_players", args.players, prefix="bench", verbosity=0)
    print(f"database: {connection.vendor} {settings.DATABASES['default']['NAME']}; "
          f"{args.players} players ready in {time.perf_counter() - started:.0f} s")
    if connection.vendor == "postgresql":
        # What autovacuum does for a live database: statistics, and the visibility map
        # that lets counts read an index alone.
        with connection.cursor() as cursor:
            for table in ("players_rating", "players_seasonscore", "accounts_profile", "auth_user"):
                cursor.execute(f"VACUUM ANALYZE {table}")
    busy = busy_player()
    viewer = middle_player()
    from games.players.models import Rating
    from games.players.selectors import forget_cached

    client = Client()
    client.force_login(viewer)
    me_page = client.get("/leaderboard/?me=1")["Location"]
    pages = [
        ("rating, all time, page 1", "/leaderboard/"),
        ("rating, all time, page 1,000", "/leaderboard/?page=1000"),
        ("rating, all time, the viewer's page (jump to me)", me_page),
        ("rating, this season, page 1", "/leaderboard/?period=season"),
        ("provisional ratings, page 1", "/leaderboard/?provisional=1"),
        ("career points, all time, page 1", "/leaderboard/?by=points"),
        ("career points, this season, page 1", "/leaderboard/?by=points&period=season"),
        (f"player page ({busy.played_deals.count()} deals, {busy.rating_changes.count()} rating changes)",
         f"/players/{busy.username}/"),
    ]
    baseline = measure(client, "/rules/", args.repeat, CaptureQueriesContext, connection, lambda: None)
    print(f"\nEvery page of the site (the session, the viewer, the header), for comparison: "
          f"{baseline[0]} queries, {baseline[1]:.1f} ms\n")
    print(f"| page | queries (cold) | time (cold) | queries (warm) | time (warm) |")
    print(f"| --- | --- | --- | --- | --- |")
    for label, url in pages:
        cold = measure(client, url, args.repeat, CaptureQueriesContext, connection, forget_cached)
        warm = measure(client, url, args.repeat, CaptureQueriesContext, connection, lambda: None)
        print(f"| {label} | {cold[0]} | {cold[1]:.1f} ms | {warm[0]} | {warm[1]:.1f} ms |")
    print(f"\n{Rating.objects.filter(rated_deals__gte=20).count()} established ratings; "
          f"viewer ranked on {me_page}")


def measure(client, url, repeat, capture, connection, before):
    times, queries = [], 0
    for _ in range(repeat):
        before()
        with capture(connection) as context:
            started = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        queries = len(context)
    return queries, statistics.median(times)


def middle_player():
    from games.players.models import Rating

    established = Rating.objects.filter(rated_deals__gte=20).order_by("-mu", "user_id")
    return established[established.count() // 2].user


def busy_player():
    """A player with a long history: 2,000 finished deals over 100 matches, 400 rated."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from accounts import services as account_services
    from games.models import Deal, Match, Table
    from games.players.models import PlayedDeal, Rating, RatingChange

    User = get_user_model()
    user = User.objects.filter(username="bench-busy").first()
    if user is not None:
        return user
    user = account_services.sign_up(username="bench-busy", password="bench-busy-password", display_name="Busy Player")
    partner = User.objects.filter(username__startswith="bench").exclude(pk=user.pk).first()
    now = timezone.now()
    played, changes = [], []
    mu = 1500.0
    for number in range(100):
        table = Table.objects.create(kind="match", tier="junior")
        match = Match.objects.create(table=table, number=1, seed=number, status="finished", winner_team=number % 2)
        deals = Deal.objects.bulk_create([
            Deal(match=match, number=n + 1, ruleset_version="bench", seed=n, hands=[[], [], [], []], active_level=0,
                 team_levels_before=[0, 0], result={"places": [0, 1, 2, 3], "winner_team": 0, "advance": 1},
                 finished_at=now - timedelta(minutes=2000 - number * 20 - n))
            for n in range(20)
        ])
        for deal in deals:
            won = (deal.seed + number) % 3 != 0
            played.append(PlayedDeal(user=user, deal=deal, match=match, table_kind="match", position=0,
                                     place=1 if won else 3, won=won, advance=1 if won else -1, partner=partner,
                                     accuracy=70 + deal.seed, finished_at=deal.finished_at))
            if len(changes) < 400 and deal.seed % 5 == 0:
                after = mu + (12 if won else -12)
                changes.append(RatingChange(user=user, deal=deal, position=0, won=won, mu_before=mu, sigma_before=90,
                                            mu_after=after, sigma_after=89, rated_deals=len(changes) + 1,
                                            created_at=deal.finished_at))
                mu = after
    PlayedDeal.objects.bulk_create(played)
    RatingChange.objects.bulk_create(changes)
    Rating.objects.update_or_create(user=user, defaults={"mu": mu, "sigma": 89, "rated_deals": len(changes)})
    return user


if __name__ == "__main__":
    main()
