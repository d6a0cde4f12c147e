"""A player's own data: downloading it, deleting the account (the deals stay, the seat
shown as "Deleted player", sessions and sockets closed, the name retired for 30 days),
the email address for password resets, and resetting a password by email."""

import json
import re
from datetime import timedelta

import pytest
from channels.testing import WebsocketCommunicator
from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core import mail
from django.db import models
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import bots, deletion, export, services
from accounts.models import BotAccount, PointsEntry, Profile, RetiredName
from games.models import Action, Deal, Match, Participant, Seat, Table
from games.replays.log import check_deal
from games.tables import services as table_services
from tests.conftest import PASSWORD

from ..live.processes import session_for
from ..replays import factories

User = get_user_model()
pytestmark = pytest.mark.django_db


@pytest.fixture
def played(make_user, make_table):
    """A Junior match of four players with one finished deal and the next one in play;
    returns (match, users by seat)."""
    users = [make_user() for _ in range(4)]
    table = make_table(users[0])
    for position, user in enumerate(users[1:], start=1):
        table_services.take_seat(table=table, user=user, position=position)
    from games.live import door

    match = table_services.start_match(table=table, user=users[0])
    [first] = factories.play_deals(match, 1, seed=5)
    door.start_next_deal(table_id=table.pk, deal_id=first.deal.pk)
    return match, users


def test_the_download_holds_the_players_own_data_and_no_card_of_a_deal_in_play(client, played):
    match, users = played
    me = users[1]
    client.force_login(me)
    response = client.get(reverse("accounts:data_download"))
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    assert "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["format"] == export.FORMAT and list(data)[3:] == list(export.SECTIONS)
    assert data["account"]["username"] == me.username and data["account"]["display_name"] == me.profile.display_name
    assert data["career_ledger"] == [
        {"time": e.created_at.isoformat(), "change": e.delta, "balance_after": e.balance_after, "reason": e.reason,
         "note": e.note, "table": e.table_id, "match": e.match_id, "deal": e.deal_id}
        for e in PointsEntry.objects.filter(user=me).order_by("created_at", "id")
    ]
    [row] = data["matches"]
    assert row["match"] == match.pk and row["your_seat"] == 2
    assert [seat["name"] for seat in row["seats"]] == [u.profile.display_name for u in users]
    finished, in_play = row["deals"]
    assert finished["finished"] and len(finished["hands"]) == 4 and finished["actions"]
    assert in_play == {"finished": False, "number": 2, "started": in_play["started"], "note": in_play["note"]}


def test_the_download_needs_a_login_and_is_limited(client, make_user, settings):
    assert client.get(reverse("accounts:data_download")).status_code == 302
    settings.GUANDAN_DATA_EXPORTS_PER_HOUR = 2
    client.force_login(make_user())
    codes = [client.get(reverse("accounts:data_download")).status_code for _ in range(3)]
    assert codes == [200, 200, 429]


def test_a_new_section_is_one_function():
    try:
        export.section("extra")(lambda user: {"answer": 42})
        assert export.export_for(User.objects.create(username="sectioned"))["extra"] == {"answer": 42}
    finally:
        export.SECTIONS.pop("extra", None)


def test_every_foreign_key_to_a_user_is_decided_for_deletion():
    """A deleted account erases the person and keeps what others played with them: each
    relation to the user either goes with the user (personal data) or is set to none
    (shared records). A new relation fails here until it is decided."""
    decided = {
        ("accounts", "Profile", "user"): models.CASCADE,
        ("accounts", "PointsEntry", "user"): models.CASCADE,
        ("accounts", "BotAccount", "owner"): models.CASCADE,
        ("accounts", "BotAccount", "user"): models.CASCADE,
        ("games", "Seat", "user"): models.CASCADE,  # open seats are left first (leave_seat)
        ("games", "Seat", "away_user"): models.SET_NULL,
        ("games", "Table", "host"): models.SET_NULL,
        ("games", "Participant", "user"): models.SET_NULL,
        ("games", "Action", "user"): models.SET_NULL,
        ("games", "DealAnalysis", "requested_by"): models.SET_NULL,
        ("admin", "LogEntry", "user"): models.CASCADE,
        # Ratings, their history, seasons and a player's records are the person's own; a
        # partner's record keeps the deal with the partner shown as nobody.
        ("players", "Rating", "user"): models.CASCADE,
        ("players", "RatingChange", "user"): models.CASCADE,
        ("players", "PlayedDeal", "user"): models.CASCADE,
        ("players", "PlayedDeal", "partner"): models.SET_NULL,
        ("players", "SeasonScore", "user"): models.CASCADE,
        ("quickplay", "QueueEntry", "user"): models.CASCADE,
        ("tournaments", "Tournament", "organiser"): models.SET_NULL,
        ("tournaments", "Registration", "user"): models.CASCADE,
        ("auth", "User", "groups"): None, ("auth", "User", "user_permissions"): None,
    }
    found = {}
    for model in apps.get_models():
        for field in model._meta.get_fields():
            if field.is_relation and not field.auto_created and field.related_model is User:
                key = (model._meta.app_label, model.__name__, field.name)
                found[key] = getattr(field.remote_field, "on_delete", None)
    # Third-party relations of the user model itself (groups, permissions) are m2m.
    assert {k: v for k, v in found.items() if k[0] != "auth"} == {k: v for k, v in decided.items() if k[0] != "auth"}


def test_deleting_erases_the_person_and_keeps_the_deals(client, played, settings):
    match, users = played
    me = users[2]
    settings.GUANDAN_BOTS_AUTO_APPROVE = True
    bot = bots.create_bot(owner=me, name="Mine").bot
    deals = list(Deal.objects.filter(match=match).order_by("number"))
    actions_before = Action.objects.filter(deal__match=match).count()
    other = Client()
    other.force_login(me)  # signed in in another browser too
    client.force_login(me)
    response = client.post(reverse("accounts:delete"), {"password": PASSWORD, "confirm": "on"})
    assert response.status_code == 302
    assert not User.objects.filter(pk=me.pk).exists()
    assert not Profile.objects.filter(user_id=me.pk).exists() and not PointsEntry.objects.filter(user_id=me.pk).exists()
    assert not BotAccount.objects.filter(pk=bot.pk).exists() and not User.objects.filter(pk=bot.user_id).exists()
    # Signed out everywhere.
    assert not [s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(me.pk)]
    assert other.get(reverse("accounts:profile")).status_code == 302
    # The deals stay, whole, and fold to their logs; the seat is nobody's now.
    assert Action.objects.filter(deal__match=match).count() == actions_before
    for deal in deals:
        deal.refresh_from_db()
        assert check_deal(deal) is None
    participant = Participant.objects.get(match=match, position=2)
    assert participant.user is None and not participant.is_bot
    # The match goes on: a bot took the seat (R10.7), nobody is "away" there any more.
    seat = Seat.objects.get(table=match.table, position=2)
    assert seat.is_bot and seat.away_user is None
    # Replays and the match history show the seat as "Deleted player".
    viewer = Client()
    viewer.force_login(users[0])
    assert "Deleted player" in viewer.get(reverse("replays:match", args=[match.pk])).content.decode()
    assert "Deleted player" in viewer.get(reverse("replays:deal", args=[deals[0].pk])).content.decode()


def test_deleting_needs_the_password_and_changes_nothing_without_it(client, make_user, settings):
    me = make_user()
    client.force_login(me)
    response = client.post(reverse("accounts:delete"), {"password": "wrong", "confirm": "on"})
    assert response.status_code == 400 and "not your password" in response.content.decode()
    response = client.post(reverse("accounts:delete"), {"password": PASSWORD})  # not confirmed
    assert response.status_code == 400
    assert User.objects.filter(pk=me.pk).exists()
    settings.GUANDAN_DELETE_ATTEMPTS_PER_15_MINUTES = 3
    assert client.post(reverse("accounts:delete"), {"password": "wrong", "confirm": "on"}).status_code == 400
    assert client.post(reverse("accounts:delete"), {"password": PASSWORD, "confirm": "on"}).status_code == 429
    assert User.objects.filter(pk=me.pk).exists()


def test_a_guest_deletes_with_the_box_ticked(client, make_guest, make_table):
    guest = make_guest()
    table = make_table(guest, kind="practice")
    client.force_login(guest)
    page = client.get(reverse("accounts:data")).content.decode()
    assert 'name="password"' not in page
    assert client.post(reverse("accounts:delete"), {"confirm": "on"}).status_code == 302
    assert not User.objects.filter(pk=guest.pk).exists()
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED  # leaving closed the practice table


def test_the_name_is_retired_for_30_days_then_free(make_user):
    me = make_user(username="Meilin")
    deletion.delete_account(user=me)
    with pytest.raises(services.AccountError, match="30 days"):
        services.sign_up(username="meilin", password=PASSWORD)
    RetiredName.objects.update(free_at=timezone.now() - timedelta(seconds=1))
    assert services.sign_up(username="meilin", password=PASSWORD).username == "meilin"
    assert deletion.free_retired_names() == 1 and not RetiredName.objects.exists()
    assert RetiredName._meta.get_field("name_hash").max_length == 64  # a hash, never the name


def test_the_housekeeping_command_frees_names(make_user):
    from django.core.management import call_command

    deletion.delete_account(user=make_user())
    RetiredName.objects.update(free_at=timezone.now() - timedelta(days=1))
    call_command("housekeeping")
    assert not RetiredName.objects.exists()
    assert settings.CELERY_BEAT_SCHEDULE["housekeeping"]["task"] == "accounts.housekeeping"


def test_deleting_forgets_the_counted_login_attempts(client, make_user):
    from axes.models import AccessAttempt

    me = make_user()
    client.post(reverse("accounts:login"), {"username": me.username, "password": "wrong"})
    assert AccessAttempt.objects.filter(username=me.username).exists()
    deletion.delete_account(user=me)
    assert not AccessAttempt.objects.filter(username=me.username).exists()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_deleting_closes_the_players_sockets(make_user):
    from channels.db import database_sync_to_async

    from guandan_site.asgi import application

    me = await database_sync_to_async(make_user)()
    session = await database_sync_to_async(session_for)(me)
    communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=[
        (b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1"),
        (b"cookie", f"{settings.SESSION_COOKIE_NAME}={session}".encode()),
    ])
    connected, _ = await communicator.connect()
    assert connected
    await communicator.receive_from(timeout=5)  # the lobby
    await database_sync_to_async(deletion.delete_account)(user=me)
    closed = await communicator.receive_output(timeout=5)
    assert closed["type"] == "websocket.close" and closed["code"] == 4401


def test_the_email_is_optional_at_sign_up_and_no_two_accounts_share_one(client, make_user):
    form = {"username": "lin", "display_name": "", "email": "lin@example.com", "password1": PASSWORD,
            "password2": PASSWORD}
    assert client.post(reverse("accounts:signup"), form).status_code == 302
    assert User.objects.get(username="lin").email == "lin@example.com"
    other = Client()
    response = other.post(reverse("accounts:signup"), dict(form, username="lin2", email="LIN@example.com"))
    assert response.status_code == 200 and "belongs to another account" in response.content.decode()
    me = make_user()
    client.force_login(me)
    client.post(reverse("accounts:profile"), {"action": "email", "email": "me@example.com"})
    me.refresh_from_db()
    assert me.email == "me@example.com"


@pytest.mark.parametrize("language, words", [("en", "Choose it here"), ("zh-hans", "设置新密码")])
def test_a_password_is_reset_by_email(client, make_user, language, words):
    me = make_user()
    services.set_email(user=me, email="reset@example.com")
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    response = client.post(reverse("accounts:password_reset"), {"email": "reset@example.com"})
    assert response.status_code == 302 and response["Location"] == reverse("accounts:password_reset_done")
    [message] = mail.outbox
    assert message.to == ["reset@example.com"] and words in message.body
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", message.body).group(1)
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200 and form_page.context["validlink"]
    new = "a-brand-new-passphrase-77"
    done = client.post(form_page.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302 and done["Location"] == reverse("accounts:password_reset_complete")
    me.refresh_from_db()
    assert me.check_password(new)
    assert not client.get(link, follow=True).context["validlink"]  # once only


def test_an_unknown_address_gets_the_same_answer_and_no_email(client, settings):
    response = client.post(reverse("accounts:password_reset"), {"email": "nobody@example.com"})
    assert response.status_code == 302 and not mail.outbox
    settings.GUANDAN_PASSWORD_RESETS_PER_HOUR = 1
    assert Client(REMOTE_ADDR="10.9.8.7").post(reverse("accounts:password_reset"), {"email": "a@b.cn"}).status_code == 302
    assert Client(REMOTE_ADDR="10.9.8.7").post(reverse("accounts:password_reset"), {"email": "a@b.cn"}).status_code == 429


def test_the_login_page_links_to_the_reset(client):
    assert reverse("accounts:password_reset") in client.get(reverse("accounts:login")).content.decode()


def test_email_is_sent_by_smtp_when_a_server_is_set():
    import os
    import subprocess
    import sys

    from django.conf import settings as live

    code = "from django.conf import settings as s; print(s.EMAIL_BACKEND, s.EMAIL_PORT, s.EMAIL_USE_TLS)"
    env = dict(os.environ, EMAIL_HOST="smtp.example.com", DJANGO_SETTINGS_MODULE="guandan_site.settings")
    out = subprocess.run([sys.executable, "-c", "import django; django.setup(); " + code], env=env,
                         capture_output=True, text=True, cwd=live.BASE_DIR, timeout=60).stdout.split()
    assert out == ["django.core.mail.backends.smtp.EmailBackend", "587", "True"]
