"""Holes an attacker found, closed: login throttling, bounded password hashing, per-client
limits on guests and practice tables, the production headers, and a clean
``check --deploy`` with the documented production settings."""

import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings

from guandan_site import throttle
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def new_address() -> str:
    """A client address of its own: the counts live in the cache, which in the Redis lane
    every test process (and the last runs) share, so no test counts another's requests."""
    return "10.%d.%d.%d" % tuple(random.randrange(1, 255) for _ in range(3))


def logged_in(client):
    return "_auth_user_id" in client.session


def test_wrong_passwords_lock_the_login_out_even_for_the_right_one(make_user):
    user = make_user()
    client = Client(REMOTE_ADDR=new_address())
    for _ in range(4):
        response = client.post("/accounts/login/", {"username": user.username, "password": "wrong"})
        assert response.status_code == 200 and not logged_in(client)
    assert client.post("/accounts/login/", {"username": user.username, "password": "wrong"}).status_code == 429
    response = client.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert response.status_code == 429
    assert "Too many wrong passwords" in response.content.decode()
    assert not logged_in(client)
    # Another username from the same client is not locked by these attempts.
    other = make_user()
    assert client.post("/accounts/login/", {"username": other.username, "password": PASSWORD}).status_code == 302


def test_a_right_password_resets_the_count(make_user):
    user = make_user()
    client = Client(REMOTE_ADDR=new_address())
    for _ in range(4):
        client.post("/accounts/login/", {"username": user.username, "password": "wrong"})
    assert client.post("/accounts/login/", {"username": user.username, "password": PASSWORD}).status_code == 302
    client.logout()
    for _ in range(4):
        client.post("/accounts/login/", {"username": user.username, "password": "wrong"})
    assert client.post("/accounts/login/", {"username": user.username, "password": PASSWORD}).status_code == 302


def test_password_checks_wait_for_a_hashing_slot(make_user, monkeypatch):
    user = make_user()
    monkeypatch.setattr(throttle, "HASHING_WAIT", 0.2)
    client = Client()
    with throttle.hashing_slot():  # every slot of this process is taken
        response = client.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert response.status_code == 503 and not logged_in(client)
    assert "busy" in response.content.decode()
    assert client.post("/accounts/login/", {"username": user.username, "password": PASSWORD}).status_code == 302


def test_hashing_slots_bound_concurrent_checks(make_user):
    held = []
    seen = threading.Event()

    def check():
        with throttle.hashing_slot():
            held.append(1)
            seen.wait(0.3)
            held.pop()

    threads = [threading.Thread(target=check) for _ in range(3)]
    peak = 0
    for thread in threads:
        thread.start()
    while any(t.is_alive() for t in threads):
        peak = max(peak, len(held))
    assert peak <= 1


@override_settings(GUANDAN_GUESTS_PER_10_MINUTES=3, GUANDAN_PRACTICE_STARTS_PER_10_MINUTES=100)
def test_guest_creation_is_limited_per_client():
    users = get_user_model().objects
    before = users.count()
    address = new_address()
    for _ in range(5):
        Client(REMOTE_ADDR=address).post("/accounts/guest/")
    assert users.count() - before == 3
    # Another client is not affected.
    Client(REMOTE_ADDR=new_address()).post("/accounts/guest/")
    assert users.count() - before == 4


@override_settings(GUANDAN_PRACTICE_STARTS_PER_10_MINUTES=2, GUANDAN_GUESTS_PER_10_MINUTES=100)
def test_practice_starts_are_limited_per_client():
    from games.models import Table

    form = {"bot_level": "easy", "bot_speed": "1.0"}
    address = new_address()
    codes = [Client(REMOTE_ADDR=address).post("/practice/start/", form).status_code for _ in range(4)]  # a new guest each
    assert codes == [302, 302, 429, 429]
    assert Table.objects.filter(kind=Table.Kind.PRACTICE).count() == 2
    assert get_user_model().objects.count() == 2
    assert Client(REMOTE_ADDR=new_address()).post("/practice/start/", form).status_code == 302


def test_client_ip_trusts_only_the_sites_own_proxy(rf, settings):
    request = rf.get("/", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7", REMOTE_ADDR="127.0.0.1")
    assert throttle.client_ip(request) == "127.0.0.1"
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert throttle.client_ip(request) == "203.0.113.7"
    forged = rf.get("/", HTTP_X_FORWARDED_FOR="not-an-address", REMOTE_ADDR="127.0.0.1")
    assert throttle.client_ip(forged) == "127.0.0.1"


def test_pages_holding_a_hand_are_never_stored(make_user, make_table):
    from games.tables import services

    user = make_user()
    table = make_table(user, kind="practice")
    services.start_match(table=table, user=user)
    client = Client()
    client.force_login(user)
    for url in (f"/tables/{table.pk}/", f"/tables/{table.pk}/live/"):
        assert "no-store" in client.get(url)["Cache-Control"], url
    drill = "/practice/drills/" + __import__("games.bots", fromlist=["DRILLS"]).DRILLS[0].id + "/"
    assert "no-store" in client.get(drill)["Cache-Control"]


def test_every_page_carries_a_content_security_policy():
    response = Client().get("/")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert response["X-Frame-Options"] == "DENY"


PRODUCTION = {
    "SECRET_KEY": "k3y-" + "x7Qp9" * 12,
    "DEBUG": "",
    "ALLOWED_HOSTS": "guandan.example.com",
    "CSRF_TRUSTED_ORIGINS": "https://guandan.example.com",
    "SECURE_COOKIES": "1",
    "BEHIND_TLS_PROXY": "1",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "SECURE_HSTS_PRELOAD": "1",
}


def test_check_deploy_is_clean_with_the_documented_production_settings():
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS")}
    env.update(PRODUCTION)
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_readme_documents_every_production_setting_checked():
    readme = (ROOT / "README.md").read_text()
    for name in PRODUCTION:
        if name != "DEBUG":
            assert f"`{name}`" in readme, name


def test_tls_settings_follow_the_environment():
    env = dict(os.environ, **PRODUCTION)
    code = ("from django.conf import settings as s; print(s.SECURE_HSTS_SECONDS, s.SECURE_SSL_REDIRECT, "
            "s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_INCLUDE_SUBDOMAINS)")
    out = subprocess.run([sys.executable, "-c", "import django; django.setup(); " + code], cwd=ROOT,
                         env=dict(env, DJANGO_SETTINGS_MODULE="guandan_site.settings"),
                         capture_output=True, text=True, timeout=60).stdout.split()
    assert out == ["31536000", "True", "True", "True", "True"]


def test_sign_up_waits_for_a_hashing_slot_too(monkeypatch):
    monkeypatch.setattr(throttle, "HASHING_WAIT", 0.2)
    form = {"username": "newcomer", "display_name": "Newcomer", "password1": "a-long-pass-phrase-9",
            "password2": "a-long-pass-phrase-9"}
    with throttle.hashing_slot():
        assert Client().post("/accounts/signup/", form).status_code == 503
    assert not get_user_model().objects.filter(username="newcomer").exists()
    assert Client().post("/accounts/signup/", form).status_code == 302
