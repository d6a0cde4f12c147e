"""``manage.py replay_check``: re-fold every stored deal and compare it with its snapshot.

The action log is the truth and each deal's stored snapshot (``Deal.state``, ``Deal.seq``)
MUST equal the fold of that log (R11.1, docs/architecture.md "Data that lasts"). This
command replays every deal (or the ones named) through the engine and prints one line per
deal that differs, then ``checked N deals, M differ``. It exits non-zero when any differs,
so it can guard a deployment or a backup restore.
"""

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Prefetch

from games.models import Action, Deal
from games.replays.log import check_deal

BATCH = 200


class Command(BaseCommand):
    help = "Replay every stored deal from its action log and report any whose snapshot differs (R11.1)."

    def add_arguments(self, parser):
        parser.add_argument("deal_ids", nargs="*", type=int, help="Check only these deals (ids); all deals by default.")
        parser.add_argument("--match", type=int, dest="match_id", help="Check only the deals of this match (id).")

    def handle(self, *args, deal_ids, match_id, **options):
        deals = Deal.objects.select_related("match").order_by("pk")
        if deal_ids:
            deals = deals.filter(pk__in=deal_ids)
            missing = sorted(set(deal_ids) - set(deals.values_list("pk", flat=True)))
            if missing:
                raise CommandError(f"no deal with id {', '.join(map(str, missing))}")
        if match_id is not None:
            deals = deals.filter(match_id=match_id)
        deals = deals.prefetch_related(Prefetch("actions", queryset=Action.objects.order_by("seq")))
        checked = differ = 0
        for deal in deals.iterator(chunk_size=BATCH):
            checked += 1
            problem = check_deal(deal)
            if problem is not None:
                differ += 1
                self.stdout.write(
                    f"deal {deal.pk} (match {deal.match_id}, table {deal.match.table_id}, deal {deal.number}): {problem}"
                )
        summary = f"checked {checked} deal{'s' if checked != 1 else ''}, {differ} differ"
        if differ:
            self.stdout.write(summary)
            raise CommandError(f"{differ} of {checked} deals differ from their action log")
        self.stdout.write(self.style.SUCCESS(summary))
