"""Celery task of quick play: the matcher of one tier (R10.9), a thin wrapper over
``services.match_tier``. Idempotent: a run that finds nobody to seat does nothing, so
duplicates, retries and runs in several processes at once are harmless. The sweep
(``games.live.tasks.sweep``) runs the matcher of every tier as well."""

from celery import shared_task

from games.live.scheduler import register
from games.quickplay import services


@shared_task(name="games.quickplay_match", ignore_result=True, acks_late=True)
@register
def quickplay_match(tier: str) -> int:
    return len(services.match_tier(tier))
