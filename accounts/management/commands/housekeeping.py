"""``manage.py housekeeping``: what Celery beat runs daily (``accounts.tasks.housekeeping``),
for a site that runs without beat (from cron, say)."""

from django.core.management.base import BaseCommand

from accounts import deletion
from games.botapi import tickets


class Command(BaseCommand):
    help = "Free usernames retired 30 days ago and delete old bot connection tickets."

    def handle(self, *args, **options):
        names = deletion.free_retired_names()
        stale = tickets.delete_stale_tickets()
        self.stdout.write(f"freed {names} retired username(s); deleted {stale} old bot ticket(s)")
