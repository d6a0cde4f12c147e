"""Celery tasks of tournaments: thin wrappers over ``games.tournaments.services``.

Each is idempotent (the tournament's rows say what is due), so duplicates, retries and
restarts are harmless. The embedded default runs the same functions in process
(``games.live.scheduler``), the periodic ``tournaments_sweep`` included.
"""

from celery import shared_task

from games.live.scheduler import register
from games.tournaments import services


@shared_task(name="games.tournament_advance", ignore_result=True, acks_late=True)
@register
def tournament_advance(tournament_id: int) -> int:
    """Do what is due: close registration, start a round, end a round (R13)."""
    return services.advance(tournament_id=tournament_id)


@shared_task(name="games.board_finished", ignore_result=True, acks_late=True)
@register
def board_finished(table_id: int, deal_id: int) -> int:
    """A tournament table finished a board: progress on the pages; after its last board
    the round may end."""
    return services.board_finished(table_id=table_id)


@shared_task(name="games.tournaments_sweep", ignore_result=True)
@register
def tournaments_sweep() -> int:
    """Advance every tournament with something due (Celery beat; the embedded scheduler)."""
    return services.sweep()
