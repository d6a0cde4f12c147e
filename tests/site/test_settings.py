"""Settings read from the environment: the embedded default and production."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json
from django.conf import settings
import django
django.setup()
from guandan_site.celery import app
db = settings.DATABASES["default"]
print(json.dumps({
    "engine": db["ENGINE"], "name": str(db["NAME"]), "options": db.get("OPTIONS", {}),
    "conn_max_age": db["CONN_MAX_AGE"],
    "layer": settings.CHANNEL_LAYERS["default"]["BACKEND"],
    "layer_config": settings.CHANNEL_LAYERS["default"].get("CONFIG", {}),
    "scheduler": settings.GUANDAN_SCHEDULER,
    "broker": app.conf.broker_url,
    "visibility_timeout": app.conf.broker_transport_options.get("visibility_timeout"),
    "debug": settings.DEBUG, "secret_key": settings.SECRET_KEY, "allowed_hosts": settings.ALLOWED_HOSTS,
    "first_app": settings.INSTALLED_APPS[0], "middleware": settings.MIDDLEWARE,
    "languages": [code for code, _ in settings.LANGUAGES],
}))
"""


def read_settings(**env):
    """Import the settings in a fresh interpreter with exactly these variables set."""
    clean = {k: v for k, v in os.environ.items()
             if k not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "GUANDAN_REDIS_PREFIX"}}
    clean.update(env, DJANGO_SETTINGS_MODULE="guandan_site.settings")
    output = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=clean, capture_output=True, text=True, check=True)
    return json.loads(output.stdout.strip().splitlines()[-1])


def test_embedded_default():
    """Nothing set: SQLite with WAL and IMMEDIATE transactions, the in-memory layer, the
    in-process scheduler."""
    conf = read_settings()
    assert conf["engine"] == "django.db.backends.sqlite3"
    assert conf["name"] == str(ROOT / "db.sqlite3")
    assert conf["options"] == {
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA busy_timeout=5000",
    }
    assert conf["layer"] == "channels.layers.InMemoryChannelLayer"
    assert conf["scheduler"] == "inprocess"
    assert conf["broker"] == "memory://"
    assert conf["debug"] is False
    assert conf["allowed_hosts"] == ["127.0.0.1", "localhost", "[::1]"]
    assert conf["first_app"] == "daphne"
    for middleware in ("whitenoise.middleware.WhiteNoiseMiddleware", "django.middleware.locale.LocaleMiddleware", "django_htmx.middleware.HtmxMiddleware"):
        assert middleware in conf["middleware"]
    assert conf["languages"] == ["en", "zh-hans"]


def test_production_from_the_environment():
    conf = read_settings(
        DATABASE_URL="postgres://guandan:secret@db.internal:5432/guandan",
        REDIS_URL="redis://cache.internal:6379/2",
        SECRET_KEY="s3cret",
        DEBUG="false",
        ALLOWED_HOSTS="guandan.example, www.guandan.example",
    )
    assert conf["engine"] == "django.db.backends.postgresql"
    assert conf["name"] == "guandan" and conf["conn_max_age"] == 0
    # Parameters bound by the server: psycopg then prepares the statements a connection repeats.
    assert conf["options"]["server_side_binding"] is True and conf["options"]["pool"]["max_size"] == 10
    assert conf["layer"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    # Idle connections outlive redis-py 8's default 5 s socket timeout.
    assert conf["layer_config"] == {"hosts": [{"address": "redis://cache.internal:6379/2", "socket_timeout": 15}],
                                    "prefix": "guandan-asgi"}
    assert conf["scheduler"] == "celery"
    assert conf["broker"] == "redis://cache.internal:6379/2"
    assert conf["visibility_timeout"] >= 3600
    assert (conf["secret_key"], conf["debug"]) == ("s3cret", False)
    assert conf["allowed_hosts"] == ["guandan.example", "www.guandan.example"]


@pytest.mark.parametrize(("value", "expected"), [("1", True), ("true", True), ("yes", True), ("0", False), ("", False)])
def test_debug_flag(value, expected):
    assert read_settings(DEBUG=value)["debug"] is expected


@pytest.mark.django_db
def test_htmx_2_and_its_ws_extension_are_served(client):
    """The pages load htmx 2 and the ws extension vendored by django-htmx, and static files
    are served without collectstatic (WhiteNoise with finders)."""
    html = client.get("/").content.decode()
    assert "django_htmx/htmx-2.min.js" in html and "django_htmx/ext/hx-ws-2.min.js" in html
    script = client.get("/static/django_htmx/htmx-2.min.js")
    assert script.status_code == 200
    assert client.get("/static/site/site.css").status_code == 200
