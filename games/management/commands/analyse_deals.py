"""``manage.py analyse_deals``: analyse a range of finished deals (复盘).

    manage.py analyse_deals --from 120 --to 180      # deals 120-180, here, one by one
    manage.py analyse_deals --match 7 --send         # a match's deals, sent to the workers
    manage.py analyse_deals 5 9 --force              # again, even where one is stored

Deals in play are skipped with the rule (R9.3); deals already analysed by the current
version are skipped unless ``--force``. Run here (the default), each deal prints its
decisions and the time it took; ``--send`` queues them for the analysis workers instead
(the same task the replay's button sends).
"""

import time

from django.core.management.base import BaseCommand, CommandError

from games.analysis import services
from games.models import Deal, DealAnalysis


class Command(BaseCommand):
    help = "Analyse finished deals (by id, id range or match): here, or sent to the analysis workers."

    def add_arguments(self, parser):
        parser.add_argument("deal_ids", nargs="*", type=int, help="These deals (ids).")
        parser.add_argument("--from", type=int, dest="first", help="Deals with an id from this one...")
        parser.add_argument("--to", type=int, dest="last", help="...to this one (inclusive).")
        parser.add_argument("--match", type=int, dest="match_id", help="The deals of this match (id).")
        parser.add_argument("--force", action="store_true", help="Analyse again where an analysis is stored.")
        parser.add_argument("--send", action="store_true", help="Queue for the analysis workers instead of running here.")

    def handle(self, *args, deal_ids, first, last, match_id, force, send, **options):
        if not (deal_ids or first is not None or last is not None or match_id is not None):
            raise CommandError("name the deals: ids, --from/--to, or --match")
        deals = Deal.objects.select_related("match").order_by("pk")
        if deal_ids:
            deals = deals.filter(pk__in=deal_ids)
        if first is not None:
            deals = deals.filter(pk__gte=first)
        if last is not None:
            deals = deals.filter(pk__lte=last)
        if match_id is not None:
            deals = deals.filter(match_id=match_id)
        counts = {"analysed": 0, "queued": 0, "skipped": 0, "failed": 0}
        for deal in deals:
            try:
                analysis = services.request_analysis(deal=deal, force=force, send=send)
            except services.AnalysisError as refusal:
                self.stdout.write(f"deal {deal.pk}: skipped: {refusal.message}")
                counts["skipped"] += 1
                continue
            if analysis.status != DealAnalysis.Status.QUEUED:
                self.stdout.write(f"deal {deal.pk}: skipped: already {analysis.status} (--force to analyse again)")
                counts["skipped"] += 1
                continue
            if send:
                self.stdout.write(f"deal {deal.pk}: queued")
                counts["queued"] += 1
                continue
            started, cpu = time.perf_counter(), time.process_time()
            ok = services.run_analysis(analysis.pk)
            analysis.refresh_from_db()
            took = f"{time.perf_counter() - started:.1f} s ({time.process_time() - cpu:.1f} s CPU)"
            if ok:
                counts["analysed"] += 1
                self.stdout.write(f"deal {deal.pk}: {analysis.total} decisions in {took}")
            else:
                counts["failed"] += 1
                self.stderr.write(f"deal {deal.pk}: failed after {took}: {analysis.error}")
        self.stdout.write(", ".join(f"{count} {name}" for name, count in counts.items()))
        if counts["failed"]:
            raise CommandError(f"{counts['failed']} analyses failed")
