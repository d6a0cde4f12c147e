"""Celery task of the analysis: a thin wrapper over ``games.analysis.services``.

Routed to its own queue (``settings.CELERY_TASK_ROUTES``); the embedded default runs the
same function on a thread of its own (``games.live.scheduler``, ``background=True``).
The body runs a row once, so a duplicate or a resent task is harmless.
"""

from celery import shared_task

from games.analysis import services
from games.live.scheduler import register


@shared_task(name="games.analyse_deal", ignore_result=True, acks_late=True)
@register
def analyse_deal(analysis_id: int) -> bool:
    """Judge every decision of a finished deal and store the verdicts (复盘)."""
    return services.run_analysis(analysis_id)
