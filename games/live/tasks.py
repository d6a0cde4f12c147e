"""Celery tasks of the live table: thin wrappers over ``games.live.door``.

Each task is keyed by what it acts on (table, deal, sequence number, or the deal's pending
think-time timer) and does nothing when the table has moved on, so retries, duplicates and restarts are harmless. The embedded
default runs these same functions on the server's event loop (``games.live.scheduler``).
"""

from celery import shared_task

from games.analysis import services as analysis_services
from games.live import door
from games.live.scheduler import register
from games.quickplay import services as quickplay_services


@shared_task(name="games.table_turn", ignore_result=True, acks_late=True)
@register
def table_turn(table_id: int, deal_id: int, seq: int) -> bool:
    """Bots, the autopilot, auto play and think-time timeouts act for whoever is due."""
    return door.run_table_turn(table_id=table_id, deal_id=deal_id, seq=seq)


@shared_task(name="games.table_clock", ignore_result=True, acks_late=True)
@register
def table_clock(table_id: int, deal_id: int, due: str) -> bool:
    """The deal's one think-time timer: a player whose time ran out times out (R9.2);
    otherwise it comes back at the current deadline."""
    return door.run_table_clock(table_id=table_id, deal_id=deal_id, due=due)


@shared_task(name="games.next_deal", ignore_result=True, acks_late=True)
@register
def next_deal(table_id: int, deal_id: int) -> bool:
    """Deal the next deal of a match once the previous one has been shown settled."""
    return door.start_next_deal(table_id=table_id, deal_id=deal_id) is not None


@shared_task(name="games.sweep", ignore_result=True)
@register
def sweep(grace: float = 2.0, rearm: bool = False) -> int:
    """Re-arm overdue turns and deals after a crash or restart, so a table never hangs;
    send again the deal analyses a crash left behind; seat whoever quick play can seat
    (R10.9: its own timers may have been lost with a process). ``grace`` 0 and ``rearm``
    right after the worker (re)connects to the broker: the timers it held went with the
    old connection, so every table's next timer is started again, due or not
    (guandan_site/broker.py)."""
    return (door.sweep(grace=grace, rearm=rearm) + analysis_services.resume_analyses()
            + quickplay_services.match_all())
