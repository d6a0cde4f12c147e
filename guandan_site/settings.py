"""Settings of the Guandan site, read from the environment.

Two ways to run, same code (see docs/architecture.md):

- Embedded default (nothing set): SQLite at ``BASE_DIR/db.sqlite3``, the in-memory channel
  layer, and bot turns and timeouts scheduled on the server's own event loop
  (``GUANDAN_SCHEDULER = "inprocess"``).
- Production (``DATABASE_URL`` and ``REDIS_URL`` set): PostgreSQL through psycopg, Redis as
  channel layer and Celery broker, separate Celery workers (``GUANDAN_SCHEDULER = "celery"``).

Environment variables: ``DATABASE_URL``, ``REDIS_URL``, ``SECRET_KEY``, ``DEBUG`` (1/true/yes),
``ALLOWED_HOSTS`` (comma separated), ``CSRF_TRUSTED_ORIGINS`` (comma separated, for a site
behind a proxy on another origin), and for a site served over HTTPS ``SECURE_COOKIES``,
``BEHIND_TLS_PROXY``, ``SECURE_SSL_REDIRECT``, ``SECURE_HSTS_SECONDS``,
``SECURE_HSTS_INCLUDE_SUBDOMAINS``, ``SECURE_HSTS_PRELOAD`` (README, "Running in production").
"""

import os
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    """Read a yes/no environment variable ("1", "true", "yes", "on" mean yes)."""
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    """Read a whole-number environment variable."""
    value = os.environ.get(name)
    return default if value in (None, "") else int(value)


def env_list(name: str, default: str) -> list[str]:
    """Read a comma-separated environment variable into a list, dropping blanks."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", default=False)

# The fallback key is only good for a machine of one's own; production sets SECRET_KEY
# (``manage.py check --deploy`` reports a key that looks like this one).
SECRET_KEY = os.environ.get("SECRET_KEY", "django-insecure-guandan-local-development-key-change-me-in-production")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    # daphne first: its runserver serves ASGI (WebSockets) in development.
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "axes",
    "accounts",
    "games",
    "games.players",
    "games.quickplay",
    "games.tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    # WhiteNoise serves static files in every mode, under daphne too.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A signed-in player's saved language wins over the cookie and the browser.
    "accounts.middleware.ProfileLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last: it answers a locked-out login itself (accounts: login throttling).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "guandan_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.tables.context_processors.current_table",
                "games.quickplay.context_processors.quickplay",
            ],
        },
    },
]

WSGI_APPLICATION = "guandan_site.wsgi.application"
ASGI_APPLICATION = "guandan_site.asgi.application"

# --- Database --------------------------------------------------------------------------

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Under ASGI every request may run in another thread: persistent connections
        # would pile up, so each request "closes" its connection (below: back to a pool).
        conn_max_age=0,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A pool of open connections per process (psycopg_pool): a closed connection goes back
    # to the pool instead of costing PostgreSQL a new backend per query batch. Without it
    # the live table spent about half its time connecting (scripts/bench_live.md).
    # PostgreSQL lists each connection under the program that holds it (daphne, celery...).
    # Parameters are bound by the server, not spliced into the SQL text by psycopg in
    # Python, and psycopg prepares the statements a connection repeats (every action's
    # few queries): at 100 tables the daphne processes spent a quarter less CPU per
    # action (scripts/bench_live.md). The site's only aggregates group by columns, never by
    # a parameter, which server-side binding would refuse.
    DATABASES["default"]["OPTIONS"] = {
        "application_name": f"guandan {Path(sys.argv[0]).name}"[:63],
        "server_side_binding": True,
    }
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": env_int("DATABASE_POOL_MIN", 2),
        "max_size": env_int("DATABASE_POOL_MAX", 10),
        "timeout": 10,
    }
# Health checks: with the pool, Django has the pool check every connection (one round
# trip) as it hands it out and replace a dead one (psycopg_pool's check_connection), so
# after a PostgreSQL restart no request fails on a connection the old server closed.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite ignores SELECT ... FOR UPDATE: IMMEDIATE transactions take the write lock at
    # BEGIN instead, WAL lets readers go on meanwhile, and busy_timeout waits for the lock
    # rather than failing at once.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA busy_timeout=5000",
    }
    # Tests use a file (one per test run) rather than memory, so a browser test's server
    # process can open the same database.
    DATABASES["default"]["TEST"] = {
        "NAME": os.path.join(tempfile.gettempdir(), f"guandan-test-{os.getpid()}.sqlite3"),
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Community ----------------------------------------------------------------------------

# Seconds a leaderboard page, its row count and a viewer's rank stay cached (R10.11).
GUANDAN_LEADERBOARD_CACHE_SECONDS = int(os.environ.get("GUANDAN_LEADERBOARD_CACHE_SECONDS", "60"))
# Quick play (R10.9): seconds two or three waiting players wait for a fourth before bots
# fill the other seats; seconds a waiting player with no page open keeps their place;
# how often an open page says it is open; joins per client address in ten minutes.
GUANDAN_QUICKPLAY_BOT_FILL_AFTER = float(os.environ.get("GUANDAN_QUICKPLAY_BOT_FILL_AFTER", "20"))
GUANDAN_QUICKPLAY_PRESENCE = float(os.environ.get("GUANDAN_QUICKPLAY_PRESENCE", "10"))
GUANDAN_QUICKPLAY_HEARTBEAT = float(os.environ.get("GUANDAN_QUICKPLAY_HEARTBEAT", "3"))
GUANDAN_QUICKPLAY_PER_10_MINUTES = int(os.environ.get("GUANDAN_QUICKPLAY_PER_10_MINUTES", "120"))

# --- Realtime and background work --------------------------------------------------------

REDIS_URL = os.environ.get("REDIS_URL", "")
# Names in Redis start with this: several sites (or test runs) can share one Redis server
# (pub/sub channels are global to a server, whatever its database number).
REDIS_PREFIX = os.environ.get("GUANDAN_REDIS_PREFIX", "guandan")

# The longest countdown the live table schedules (think time tops out at 120 s) stays far
# below this, so Redis never redelivers a task that is merely waiting for its time.
CELERY_VISIBILITY_TIMEOUT = 3600

if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # Redis pub/sub: a table's change is one PUBLISH, pushed once to each server
            # process with pages of that table open, which hands it to them in memory;
            # the list-based layer cost a round trip per page (scripts/bench_live.md).
            # Nothing waits in Redis for a page that is gone: a page that reconnects
            # draws the table afresh anyway.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                # redis-py 8 reads with a 5 s socket timeout by default; idle
                # connections must outlive it rather than die with "Timeout reading".
                "hosts": [{"address": REDIS_URL, "socket_timeout": 15}],
                "prefix": f"{REDIS_PREFIX}-asgi",
            },
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    # The worker survives losing Redis and is back within a second of its return (broker.py).
    CELERY_BROKER_TRANSPORT = "guandan_site.broker:Transport"
    CELERY_WORKER_CONSUMER = "guandan_site.broker:Consumer"
    GUANDAN_SCHEDULER = "celery"
    # Shared by every process: the per-client throttles (guandan_site/throttle.py).
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
                          "KEY_PREFIX": REDIS_PREFIX, "OPTIONS": {"socket_timeout": 2, "socket_connect_timeout": 2}}}
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    # No worker runs in the embedded mode; the app still loads with this transport.
    CELERY_BROKER_URL = "memory://"
    GUANDAN_SCHEDULER = "inprocess"

CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    # A dead Redis is noticed within seconds, not at the next TCP timeout.
    "socket_timeout": 5,
    "socket_connect_timeout": 5,
    "retry_on_timeout": True,
    "health_check_interval": 10,
}
# A worker outlives any Redis outage: it reconnects for as long as it takes (Celery's
# default gives up after 100 tries and the worker exits), and publishing a timer from
# inside a task gives up quickly, leaving it to the sweep.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Timers must fire at their time: never run tasks eagerly (it ignores countdown).
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TIMEZONE = "UTC"
# Celery beat re-arms overdue turns after any crash (games.live.tasks.sweep); the embedded
# default runs the same sweep on the server's event loop (games.live.scheduler).
CELERY_BEAT_SCHEDULE = {
    "sweep-overdue-turns": {"task": "games.sweep", "schedule": 5.0},
    # Tournaments (R13): close registration, start and end rounds when due; the embedded
    # scheduler runs the same entries in process (games/live/scheduler.py).
    "advance-tournaments": {"task": "games.tournaments_sweep", "schedule": 5.0},
    # Daily: free the usernames of accounts deleted 30 days ago, drop old bot tickets
    # (accounts/tasks.py; ``manage.py housekeeping`` does the same from cron).
    "housekeeping": {"task": "accounts.housekeeping", "schedule": 24 * 3600.0},
}
# A deal's analysis takes seconds of CPU: its own queue and worker
# (deploy/systemd/guandan-analysis.service), so no table turn waits behind it. The sweep
# sends analyses left queued by a crash again (games.analysis.services.resume_analyses).
CELERY_TASK_ROUTES = {"games.analyse_deal": {"queue": "analysis"}}

# --- Live table -----------------------------------------------------------------------

# Threads per server process for the table pages' database work (the door, fresh
# renders); keep DATABASE_POOL_MAX above it.
GUANDAN_DATABASE_THREADS = env_int("GUANDAN_DATABASE_THREADS", 8)

# Seconds between a server process's checks that its open table pages hold their
# table's newest step (a page whose change event was lost is drawn afresh on the second
# check that finds it behind: within about two intervals).
GUANDAN_RESYNC_INTERVAL = float(os.environ.get("GUANDAN_RESYNC_INTERVAL", "1.0"))

# A match whose table has had no human (no seated player acting or with the table open)
# for this many seconds is abandoned and its table closed (the sweep checks).
GUANDAN_ABANDON_AFTER = env_int("GUANDAN_ABANDON_AFTER", 600)

# WebSocket compression (permessage-deflate) under Daphne, for every browser that offers
# it: guandan_site/websocket_compression.py. "0" turns it off.
GUANDAN_WS_COMPRESSION = os.environ.get("GUANDAN_WS_COMPRESSION", "1") != "0"
# Seconds the settlement of a deal stays on screen before the next deal is dealt.
GUANDAN_NEXT_DEAL_DELAY = float(os.environ.get("GUANDAN_NEXT_DEAL_DELAY", "6"))
# Bot accounts (accounts/bots.py, issue 17): new bots may connect at once when true;
# otherwise staff approve each one in the admin.
GUANDAN_BOTS_AUTO_APPROVE = os.environ.get("GUANDAN_BOTS_AUTO_APPROVE", "") == "1"

# --- Accounts -------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Login throttling (django-axes): five wrong passwords for one username from one client
# lock that pair out for 15 minutes (429, accounts/locked_out.html); a right
# password meanwhile is refused too. Attempts are counted in the database, so every
# process sees them.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "accounts/locked_out.html"
AXES_CLIENT_IP_CALLABLE = "guandan_site.throttle.client_ip"
AXES_VERBOSE = False
# No row per successful login (every guest is one): only failures are counted.
AXES_DISABLE_ACCESS_LOG = True
# The admin lists the counted attempts (deleting one lifts its lockout): accounts/admin.py.
AXES_ENABLE_ADMIN = False
# Password checks at once per process (guandan_site/throttle.py).
GUANDAN_HASHING_THREADS = env_int("GUANDAN_HASHING_THREADS", 1)
# Per client (IP address) and 10 minutes: new guests, and practice tables started.
GUANDAN_GUESTS_PER_10_MINUTES = env_int("GUANDAN_GUESTS_PER_10_MINUTES", 10)
GUANDAN_PRACTICE_STARTS_PER_10_MINUTES = env_int("GUANDAN_PRACTICE_STARTS_PER_10_MINUTES", 30)
# Per client address and hour: new accounts (sign-up and a guest's registration, each a
# password hash), and password-reset emails asked for.
GUANDAN_REGISTRATIONS_PER_HOUR = env_int("GUANDAN_REGISTRATIONS_PER_HOUR", 10)
GUANDAN_PASSWORD_RESETS_PER_HOUR = env_int("GUANDAN_PASSWORD_RESETS_PER_HOUR", 5)
# Per player and hour: downloads of "my data" (every match and deal, as JSON); per player
# and 15 minutes: attempts to delete the account (each a password check).
GUANDAN_DATA_EXPORTS_PER_HOUR = env_int("GUANDAN_DATA_EXPORTS_PER_HOUR", 10)
GUANDAN_DELETE_ATTEMPTS_PER_15_MINUTES = env_int("GUANDAN_DELETE_ATTEMPTS_PER_15_MINUTES", 5)
# Deal analyses (seconds of CPU each, games/analysis/services.py): per player, how many
# may wait at once and how many an hour; for the whole site, how many may wait at once.
GUANDAN_ANALYSES_WAITING_PER_PLAYER = env_int("GUANDAN_ANALYSES_WAITING_PER_PLAYER", 2)
GUANDAN_ANALYSES_PER_HOUR = env_int("GUANDAN_ANALYSES_PER_HOUR", 20)
GUANDAN_ANALYSIS_QUEUE = env_int("GUANDAN_ANALYSIS_QUEUE", 100)

# Email (password resets): printed to the console unless an SMTP server is set.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 587)
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=not env_bool("EMAIL_USE_SSL"))
    EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL")
    EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Guandan <noreply@localhost>")
# A password-reset link works for a day.
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 24 * 3600)

LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "games:lobby"
LOGOUT_REDIRECT_URL = "games:lobby"

# --- Languages ---------------------------------------------------------------------------

# The browser's Accept-Language picks the first time, then the switcher's cookie (and a
# signed-in player's profile, accounts/middleware.py). Traditional Chinese (zh-TW, zh-HK,
# zh-Hant) has no catalogue of its own: Django falls back to the only Chinese listed here,
# zh-hans; adding ("zh-hant", ...) with a locale/zh_Hant catalogue makes it used instead.
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("zh-hans", _("Simplified Chinese")),
]
# Names shown by the header's switcher, each in its own language (never translated).
LANGUAGE_SELF_NAMES = {"en": "English", "zh-hans": "中文"}
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

# --- Static files ------------------------------------------------------------------------

STATIC_URL = "static/"
# Where collectstatic writes (GUANDAN_STATIC_ROOT: a browser test's served site collects
# into a folder of its own).
STATIC_ROOT = Path(os.environ.get("GUANDAN_STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Collected files are gzipped and named by their content's hash (cached for ever);
    # files no manifest lists keep their plain names (guandan_site/storage.py).
    "staticfiles": {"BACKEND": "guandan_site.storage.StaticStorage"},
}
# Serve files straight from the apps too, so a checkout works before collectstatic
# (unit tests in a fresh clone).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# --- Security in production --------------------------------------------------------------

SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SERVED_OVER_TLS = env_bool("SECURE_COOKIES", default=False)
if SERVED_OVER_TLS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
if env_bool("BEHIND_TLS_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Over HTTPS: plain HTTP is redirected, and browsers are told to use HTTPS only (HSTS,
# a year by default once the site is served over TLS).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=SERVED_OVER_TLS)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if SERVED_OVER_TLS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=False)

# Content Security Policy (django-csp): scripts, styles and sockets from the site itself
# only, no inline script or style, no framing. htmx 2 works under it with its eval-like
# features and its injected indicator style switched off (``<meta name="htmx-config">``
# in templates/base.html); the pages use neither.
from csp.constants import NONE, SELF  # noqa: E402

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
