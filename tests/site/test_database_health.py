"""A restarted PostgreSQL costs no failed request: a pooled connection whose server
backend is gone is checked and replaced before a request uses it."""

import psycopg
import pytest
from django.db import connection
from django.test import Client

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def kill_backends():
    """What a PostgreSQL restart does to open connections: end every backend of the test
    database, from a connection of its own."""
    settings = connection.settings_dict
    with psycopg.connect(host=settings["HOST"] or "127.0.0.1", port=settings["PORT"] or 5432,
                         user=settings["USER"], password=settings["PASSWORD"] or None,
                         dbname="postgres", autocommit=True) as admin:
        killed = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [settings["NAME"]],
        ).fetchone()[0]
    return killed


def test_requests_after_the_servers_backends_die_all_succeed(make_user):
    # A pool of its own: connections earlier tests in this process left checked out
    # (tests/conftest.py, "Known pitfalls") must not leave it too few to hand out.
    connection.close()
    connection.close_pool()
    client = Client()
    client.force_login(make_user())
    for _ in range(3):
        assert client.get("/").status_code == 200
    connection.close()  # back to the pool, like every request's connection
    assert kill_backends() >= 1
    for _ in range(12):
        for url in ("/", "/leaderboard/"):
            response = client.get(url)
            assert response.status_code == 200, (url, response.content[:500])
