"""Recompute every rating (R10.10) from the stored deals.

    manage.py recompute_ratings

Folds the team rating model over every finished match-table deal in the order they were
settled, from who played each seat, its winning team and its R10.8 flags, and rewrites
the ratings, their history and the season standings (season points summed again from
the career ledger) in one transaction. It prints how many ratings differed from what
was stored: 0 when the settlements and the stored deals agree. Run it after restoring a
database, after changing the model's parameters or the bots' ratings, or once after
upgrading to a version with ratings, to rate the deals played before.
"""

import time

from django.core.management.base import BaseCommand

from games.players.services import recompute_ratings


class Command(BaseCommand):
    help = "Recompute every rating, its history and the season standings from the stored deals."

    def handle(self, *args, **options):
        started = time.perf_counter()
        outcome = recompute_ratings()
        self.stdout.write(
            f"{outcome['deals']} deals, {outcome['changes']} rating changes, {outcome['players']} rated players; "
            f"{outcome['differ']} ratings differed from the stored ones ({time.perf_counter() - started:.1f} s)"
        )
