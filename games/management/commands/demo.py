"""``manage.py demo``: a demo player and a practice table with its match started, ready to
play, idempotently."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.urls import reverse

from accounts import services as account_services
from games.models import Table
from games.tables import selectors, services

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-password"


class Command(BaseCommand):
    help = "Create the demo player (demo / demo-password) and a practice table with three bots, its match started; safe to run again."

    def add_arguments(self, parser):
        parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="Where the site is served, for the printed link.")

    def handle(self, *args, base_url, **options):
        User = get_user_model()
        with transaction.atomic():
            user = User.objects.filter(username=DEMO_USERNAME).first()
            if user is None:
                user = account_services.sign_up(username=DEMO_USERNAME, password=DEMO_PASSWORD, display_name="Demo")
                self.stdout.write(f"Created the player {DEMO_USERNAME} (password {DEMO_PASSWORD}).")
            elif not user.check_password(DEMO_PASSWORD):
                user.set_password(DEMO_PASSWORD)
                user.save(update_fields=["password"])
            seat = selectors.current_seat_of(user)
            if seat is not None and seat.table.kind == Table.Kind.PRACTICE:
                table = seat.table
            else:
                if seat is not None:
                    services.leave_seat(table=seat.table, user=user)
                table = services.create_table(host=user, kind=Table.Kind.PRACTICE)
                self.stdout.write(f"Created {table} with three bots.")
            if table.status == Table.Status.WAITING:
                # Four seats are full (one human, three bots): deal at once, so the demo
                # opens on a deal in play rather than on a waiting room.
                services.start_match(table=table, user=user)
                self.stdout.write(f"Started the match at {table}.")
        base = base_url.rstrip("/")
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo ready: log in at {base}{reverse('accounts:login')} as {DEMO_USERNAME} / {DEMO_PASSWORD}, "
                f"then open {base}{reverse('games:table', args=[table.pk])}"
            )
        )
