"""Seed a database with many registered players, to measure the leaderboards (R10.11)
and player pages at scale:

    manage.py seed_players 100000

Each seeded player (usernames ``seed000001`` ...; no usable password) has a profile, a
career points balance with its one ledger row (so the points still equal the ledger),
a rating from 0 to 400 rated deals (a fifth of them provisional), and, for about a third,
this season's points and rating. Players are written in batches with bulk inserts: about
a minute for 100,000 on SQLite. ``--prefix`` names another batch; seeding the same prefix
again adds nothing. Not for production: seeded players have no deals behind their
ratings, and ``recompute_ratings`` would reset them.
"""

import random
import time

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from accounts.models import PointsEntry, Profile
from games.players import rating
from games.players.models import Rating, SeasonScore
from games.players.models import season_of

GIVEN = ["Wei", "Fang", "Lei", "Jing", "Ming", "Hua", "Li", "Yan", "Tao", "Jun", "Mei", "Hao", "Qiang", "Xin", "Yu",
         "Ling", "Bo", "Kai", "Lan", "Ping"]
FAMILY = ["Wang", "Li", "Zhang", "Liu", "Chen", "Yang", "Zhao", "Huang", "Zhou", "Wu", "Xu", "Sun", "Hu", "Zhu", "Gao"]


class Command(BaseCommand):
    help = "Seed many registered players with points, ratings and season scores (to measure the leaderboards)."

    def add_arguments(self, parser):
        parser.add_argument("count", type=int)
        parser.add_argument("--prefix", default="seed")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--batch", type=int, default=5000)

    def handle(self, *args, count, prefix, seed, batch, **options):
        rng = random.Random(seed)
        User = get_user_model()
        started = time.perf_counter()
        taken = set(User.objects.filter(username__startswith=prefix).values_list("username", flat=True))
        names = [f"{prefix}{number:06d}" for number in range(1, count + 1)]
        names = [name for name in names if name not in taken]
        now = timezone.now()
        season = season_of(now)
        unusable = make_password(None)
        for start in range(0, len(names), batch):
            chunk = names[start:start + batch]
            with transaction.atomic():
                users = User.objects.bulk_create([User(username=name, password=unusable, date_joined=now) for name in chunk])
                if users[0].pk is None:  # backends that do not return ids
                    users = list(User.objects.filter(username__in=chunk).order_by("pk"))
                profiles, entries, ratings, seasons = [], [], [], []
                for user in users:
                    points = int(rng.expovariate(1 / 120)) if rng.random() < 0.8 else 0
                    profiles.append(Profile(user=user, display_name=f"{rng.choice(FAMILY)} {rng.choice(GIVEN)}",
                                            career_points=points))
                    if points:
                        entries.append(PointsEntry(user=user, delta=points, balance_after=points,
                                                   reason=PointsEntry.Reason.ADJUSTMENT, note="seeded"))
                    deals = 0 if rng.random() < 0.1 else int(rng.expovariate(1 / 80))
                    deals = min(deals, 400)
                    if deals:
                        mu = rng.gauss(rating.START_MU, 180)
                        sigma = max(60.0, rating.START_SIGMA / (1 + deals / 6))
                        ratings.append(Rating(user=user, mu=mu, sigma=sigma, rated_deals=deals, rated_at=now))
                        if rng.random() < 0.35:
                            in_season = min(deals, 1 + int(rng.expovariate(1 / 25)))
                            seasons.append(SeasonScore(
                                user=user, season=season, points=min(points, int(rng.expovariate(1 / 30))),
                                rated_deals=in_season, mu=mu, provisional=deals < rating.PROVISIONAL_DEALS))
                Profile.objects.bulk_create(profiles)
                PointsEntry.objects.bulk_create(entries)
                Rating.objects.bulk_create(ratings)
                SeasonScore.objects.bulk_create(seasons)
            self.stdout.write(f"{min(start + batch, len(names))} / {len(names)} players")
        self.stdout.write(f"seeded {len(names)} players in {time.perf_counter() - started:.1f} s")
