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


# The per-client and per-player limits (guandan_site/throttle.py, the analyses' queue)
# count every request from 127.0.0.1: a whole run makes more than a player would, so they
# are lifted for the servers tests spawn (the environment) and, below, in this process;
# tests/site/test_security.py and tests/site/test_limits.py set them low on purpose.
LIFTED_LIMITS = (
    "GUANDAN_GUESTS_PER_10_MINUTES", "GUANDAN_PRACTICE_STARTS_PER_10_MINUTES", "GUANDAN_REGISTRATIONS_PER_HOUR",
    "GUANDAN_PASSWORD_RESETS_PER_HOUR", "GUANDAN_DATA_EXPORTS_PER_HOUR", "GUANDAN_DELETE_ATTEMPTS_PER_15_MINUTES",
    "GUANDAN_ANALYSES_PER_HOUR", "GUANDAN_ANALYSES_WAITING_PER_PLAYER", "GUANDAN_ANALYSIS_QUEUE",
    "GUANDAN_QUICKPLAY_PER_10_MINUTES",
)
for _name in LIFTED_LIMITS:
    os.environ.setdefault(_name, "1000000")


@pytest.fixture(autouse=True)
def fresh_counts():
    """Each test counts its own requests. In the embedded lane the throttles' counts live
    in this process's memory cache (which nothing else uses), keyed by user ids that
    SQLite gives out again after each test: it starts empty. With Redis, ids are not
    reused within a run, but a new test database gives them out again from 1 while an
    earlier run's counts (kept for their hour) are still in the shared server: the
    throttles' own keys are deleted, nothing else of the server's."""
    from django.core.cache import cache

    if "LocMemCache" in settings.CACHES["default"]["BACKEND"]:
        cache.clear()
    elif "RedisCache" in settings.CACHES["default"]["BACKEND"]:
        client = cache._cache.get_client(write=True)
        stale = list(client.scan_iter(match=cache.make_key("throttle:*"), count=1000))
        if stale:
            client.delete(*stale)


@pytest.fixture(autouse=True)
def no_client_limits(settings):
    for name in LIFTED_LIMITS:
        setattr(settings, name, 1_000_000)


@pytest.fixture(autouse=True)
def default_language():
    """Every test starts in the site's default language: a request through Django's
    test client leaves its language active in the test's thread (LocaleMiddleware
    activates, nothing deactivates), which would make later tests' order matter."""
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def fresh_scenes():
    """Each test starts with no kept scenes (``games.live.render``): SQLite gives ids out
    again after a test, so a scene kept from an earlier test could stand for a step of
    another deal with the same id."""
    from games.live.render import forget_scenes

    forget_scenes()


@pytest.fixture(autouse=True)
def fresh_leaderboards():
    """Each test reads the leaderboards afresh (their pages are cached for a minute)."""
    from games.players.selectors import forget_cached

    forget_cached()


@pytest.fixture(autouse=True)
def pooled_connections_given_back(request):
    """On PostgreSQL, every connection a test's threads took from this process's pool is
    back in it when the test ends. One left checked out (a thread that used the database
    and ended without closing it) is never given back, and a few of them leave a later
    test waiting ten seconds for a connection and failing far from the cause: such a test
    is named in a warning and the pool is renewed, so the next test starts with a whole
    one."""
    yield
    from django.db import connections

    backend = connections["default"]
    pool = getattr(type(backend), "_connection_pools", {}).get(backend.alias)
    if pool is None:
        return
    stats = pool.get_stats()
    held = stats.get("pool_size", 0) - stats.get("pool_available", 0) - (backend.connection is not None)
    if held > 0:
        import warnings

        warnings.warn(f"{request.node.nodeid} left {held} pooled database connection(s) checked out; "
                      "the pool is renewed", stacklevel=1)
        backend.close_pool()


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
        """Run pending timers (and those they schedule) until none is left, or until a
        whole pass over the pending timers ran only timers already run in this call and
        booked nothing new: run before its time, a timer can book itself again (a
        think-time timer finding nobody due comes back at the deadline), which would
        otherwise spin through every round. Such timers stay pending."""
        from games.live import scheduler

        ran, seen, repeats = 0, set(), 0
        while self.pending and ran < rounds:
            name, args, _delay = self.pending.pop(0)
            key = (name, args)
            repeats = repeats + 1 if key in seen else 0
            seen.add(key)
            scheduler._task(name)(*args)
            ran += 1
            if repeats > len(self.pending):
                break
        return ran


@pytest.fixture(autouse=True)
def timers(monkeypatch):
    """Timers (bot turns, timeouts, the next deal, deal analyses, the quick-play matcher)
    are recorded, not run,
    so nothing moves a table behind a test's back; ``timers.run()`` runs them when a test
    wants. Browser tests' servers run their own real timers in their own process."""
    from games.analysis import services as analysis_services
    from games.live import door, scheduler
    from games.quickplay import services as quickplay_services
    from games.tournaments import services as tournament_services

    recorder = Timers()
    monkeypatch.setattr(door, "schedule", recorder)
    monkeypatch.setattr(analysis_services, "schedule", recorder)
    monkeypatch.setattr(quickplay_services, "schedule", recorder)
    monkeypatch.setattr(tournament_services, "schedule", recorder)
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
