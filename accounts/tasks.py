"""Celery tasks of the accounts app: thin wrappers over the services."""

from celery import shared_task

from accounts import deletion
from games.botapi import tickets


@shared_task(name="accounts.housekeeping", ignore_result=True)
def housekeeping() -> int:
    """Daily (Celery beat): free the usernames retired 30 days ago (``accounts.deletion``)
    and delete bot connection tickets used or expired more than a day ago."""
    return deletion.free_retired_names() + tickets.delete_stale_tickets()
