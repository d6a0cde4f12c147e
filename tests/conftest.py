"""Fixtures shared by the site, browser and live-table tests.

Makers return real rows created through the services, so each test starts from states
the site can actually reach.
"""

import itertools
import os

import pytest
from django.conf import settings

_counter = itertools.count(1)

PASSWORD = "correct-horse-battery-staple"


def pytest_collection_modifyitems(config, items):
    """Skip what this environment cannot run (``postgres`` tests on SQLite, ``celery``
    tests without Redis), and run browser tests last: Playwright keeps an event loop in the
    main thread while a browser is open, which async tests and ``async_to_sync`` cannot
    share."""
    engine = settings.DATABASES["default"]["ENGINE"]
    skip_postgres = pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL=postgres://...")
    skip_celery = pytest.mark.skip(reason="needs Redis for the Celery broker: set REDIS_URL")
    for item in items:
        if "postgres" in item.keywords and "postgresql" not in engine:
            item.add_marker(skip_postgres)
        if "celery" in item.keywords and not os.environ.get("REDIS_URL"):
            item.add_marker(skip_celery)
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)


@pytest.fixture(autouse=True)
def fast_password_hashing(request):
    """Hash test passwords quickly; the real hasher's cost is for production logins.
    Browser tests keep the real hasher: their server process must be able to check the
    passwords the test writes."""
    if request.node.get_closest_marker("browser"):
        yield
        return
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


# The per-client limits on guests and practice starts (guandan_site/throttle.py) count
# every request from 127.0.0.1: a whole run makes more than a player would, so they are
# lifted for the servers tests spawn (the environment) and, below, in this process;
# tests/site/test_security.py sets them low on purpose.
os.environ.setdefault("GUANDAN_GUESTS_PER_10_MINUTES", "1000000")
os.environ.setdefault("GUANDAN_PRACTICE_STARTS_PER_10_MINUTES", "1000000")


@pytest.fixture(autouse=True)
def no_client_limits(settings):
    settings.GUANDAN_GUESTS_PER_10_MINUTES = 1_000_000
    settings.GUANDAN_PRACTICE_STARTS_PER_10_MINUTES = 1_000_000


@pytest.fixture
def make_user(db):
    """``make_user(points=0, username=None, display_name=None)``: a registered player."""
    from accounts import services as account_services
    from accounts.models import Profile

    def make(*, points=0, username=None, display_name=None, is_staff=False):
        username = username or f"player{next(_counter)}"
        user = account_services.sign_up(username=username, password=PASSWORD, display_name=display_name or username.title())
        if points:
            # Points arrive through the ledger like any other change.
            account_services.adjust_points(user=user, delta=points, note="test setup")
        if is_staff:
            user.is_staff = True
            user.save(update_fields=["is_staff"])
        user.profile = Profile.objects.get(user=user)
        return user

    return make


@pytest.fixture
def make_guest(db):
    """``make_guest()``: a guest player (R10.1)."""
    from accounts import services as account_services

    return account_services.create_guest


@pytest.fixture
def make_table(db):
    """``make_table(host, kind="match", tier="junior", **settings)``: a table created by
    ``host`` (seated in seat 1) through the service."""
    from games.tables import services

    def make(host, kind="match", tier=None, **options):
        if tier is None:
            tier = "junior" if kind == "match" else ""
        return services.create_table(host=host, kind=kind, tier=tier, **options)

    return make


@pytest.fixture
def full_table(make_user, make_table):
    """A waiting Junior match table with four registered humans seated; returns
    ``(table, [users by seat])``, the host in seat 1."""
    from games.tables import services

    users = [make_user() for _ in range(4)]
    table = make_table(users[0])
    for position, user in enumerate(users[1:], start=1):
        services.take_seat(table=table, user=user, position=position)
    table.refresh_from_db()
    return table, users


class Timers:
    def __init__(self):
        self.pending = []
        self.background = []  # long work (deal analyses): run only by run_background()

    def __call__(self, name, *args, delay, background=False):
        (self.background if background else self.pending).append((name, args, delay))

    def run_background(self):
        """Run the background work scheduled so far (deal analyses); returns how many."""
        from games.live import scheduler

        ran = 0
        while self.background:
            name, args, _delay = self.background.pop(0)
            scheduler._task(name)(*args)
            ran += 1
        return ran

    def names(self):
        return [name for name, _args, _delay in self.pending]

    def run(self, *, rounds=1000):
        """Run pending timers (and those they schedule) until none is left."""
        from games.live import scheduler

        ran = 0
        while self.pending and ran < rounds:
            name, args, _delay = self.pending.pop(0)
            scheduler._task(name)(*args)
            ran += 1
        return ran


@pytest.fixture(autouse=True)
def timers(monkeypatch):
    """Timers (bot turns, timeouts, the next deal, deal analyses) are recorded, not run,
    so nothing moves a table behind a test's back; ``timers.run()`` runs them when a test
    wants. Browser tests' servers run their own real timers in their own process."""
    from games.analysis import services as analysis_services
    from games.live import door, scheduler

    recorder = Timers()
    monkeypatch.setattr(door, "schedule", recorder)
    monkeypatch.setattr(analysis_services, "schedule", recorder)
    monkeypatch.setattr(scheduler, "bind_loop", lambda loop: None)
    return recorder




@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """After every database test: each deal it played must re-fold from its hands and
    action log to exactly its stored snapshot (R11.1), so the replay of every deal played
    in the suite reproduces what was recorded. Tests that rig or tamper with a deal on
    purpose say so with ``@pytest.mark.rigged_deal``."""
    result = yield
    if item.get_closest_marker("django_db") and not item.get_closest_marker("rigged_deal") \
            and not item.get_closest_marker("browser"):
        from games.engine.deal import RULESET_VERSION
        from games.models import Deal
        from games.replays.log import check_deal

        problems = [
            f"deal {deal.pk}: {problem}"
            for deal in Deal.objects.filter(ruleset_version=RULESET_VERSION).prefetch_related("actions")
            if (problem := check_deal(deal)) is not None
        ]
        assert not problems, "stored deals differ from their logs: " + "; ".join(problems)
    return result
