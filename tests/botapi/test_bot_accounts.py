"""Bot accounts: the token is shown once and stored hashed, approval, revocation and
rotation, connection tickets, the owner's page, and no career points for bots (R10.1)."""

import hashlib

import pytest
from django.urls import reverse

from accounts import bots
from accounts.models import BotAccount
from accounts.services import AccountError
from games.botapi import tickets
from games.tables.policies import TableError

pytestmark = pytest.mark.django_db


def test_the_token_is_stored_only_as_its_sha256(make_user):
    owner = make_user()
    new = bots.create_bot(owner=owner, name="Deep Dan")
    row = BotAccount.objects.get(pk=new.bot.pk)
    assert row.token_hash == hashlib.sha256(new.token.encode()).hexdigest()
    assert new.token not in str(BotAccount.objects.filter(pk=row.pk).values().first())
    assert len(new.token) >= 40 and row.token_hint == new.token[:6]
    assert row.user != owner and not row.user.has_usable_password()
    assert row.user.profile.display_name == "Deep Dan (bot)"


def test_a_bot_connects_only_once_approved_and_until_revoked(make_user, settings):
    settings.GUANDAN_BOTS_AUTO_APPROVE = False
    owner = make_user()
    new = bots.create_bot(owner=owner, name="Waiting")
    assert bots.bot_for_token(new.token) is None  # staff have not approved it yet
    assert bots.approve_bots(bot_ids=[new.bot.pk]) == 1
    assert bots.bot_for_token(new.token).pk == new.bot.pk
    assert bots.bot_for_token(new.token + "x") is None and bots.bot_for_token("") is None
    bots.revoke_bot(owner=owner, bot_id=new.bot.pk)
    assert bots.bot_for_token(new.token) is None
    assert not bots.may_still_play(new.bot.pk, new.bot.token_hash)
    with pytest.raises(AccountError):
        bots.revoke_bot(owner=make_user(), bot_id=new.bot.pk)  # not theirs


def test_auto_approval_by_setting_and_guests_cannot_create_bots(make_user, make_guest, settings):
    settings.GUANDAN_BOTS_AUTO_APPROVE = True
    new = bots.create_bot(owner=make_user(), name="Quick")
    assert bots.bot_for_token(new.token) is not None
    with pytest.raises(AccountError, match="R10.1"):
        bots.create_bot(owner=make_guest(), name="Guest bot")
    with pytest.raises(AccountError):
        bots.create_bot(owner=new.bot.user, name="Bot of a bot")


def test_the_page_shows_the_token_once(client, make_user, settings):
    settings.GUANDAN_BOTS_AUTO_APPROVE = False
    owner = make_user()
    client.force_login(owner)
    response = client.post(reverse("accounts:bots"), {"name": "Shown once", "action": "create"})
    assert response.status_code == 200
    bot = BotAccount.objects.get(owner=owner)
    token = response.context["new_token"]
    assert token and token in response.content.decode() and bot.token_hash == bots.hash_token(token)
    assert response["Cache-Control"] == "no-store"
    again = client.get(reverse("accounts:bots"))
    page = again.content.decode()
    assert token not in page and "Shown once" in page and bot.token_hint in page
    assert "waiting for approval" in page
    client.post(reverse("accounts:bots"), {"bot": bot.pk, "action": "revoke"})
    bot.refresh_from_db()
    assert bot.revoked_at is not None
    assert "revoked" in client.get(reverse("accounts:bots")).content.decode()


def test_the_page_rotates_a_token_and_shows_the_new_one_once(client, make_user, make_bot):
    owner = make_user()
    bot, token = make_bot(owner)
    client.force_login(owner)
    response = client.post(reverse("accounts:bots"), {"bot": bot.pk, "action": "rotate"})
    new = response.context["new_token"]
    assert new and new != token and new in response.content.decode() and response["Cache-Control"] == "no-store"
    assert bots.bot_for_token(token) is None and bots.bot_for_token(new).pk == bot.pk
    assert new not in client.get(reverse("accounts:bots")).content.decode()
    # Someone else's bot: refused, nothing changes.
    stranger = make_user()
    client.force_login(stranger)
    client.post(reverse("accounts:bots"), {"bot": bot.pk, "action": "rotate"})
    assert bots.bot_for_token(new).pk == bot.pk


def test_the_page_gives_a_ready_connection_line_for_a_chosen_table_and_seat(client, make_user, make_bot):
    from games.practice import services as practice

    owner = make_user()
    bot, token = make_bot(owner)
    table = practice.start_practice(user=owner)
    client.force_login(owner)
    page = client.get(reverse("accounts:bots")).content.decode()
    assert str(table) in page and "seat 1" in page  # the table to choose, and what the owner's seat needs
    response = client.post(reverse("accounts:bots"), {"bot": bot.pk, "table": table.pk, "seat": 3, "action": "ticket"})
    connection = response.context["connection"]
    assert connection["ticket_url"].startswith("ws://testserver/ws/bot/?ticket=")
    assert f"table={table.pk}&seat=3" in connection["header_url"]
    assert f"--table {table.pk} --seat 3" in connection["client_line"]
    html = response.content.decode()
    assert connection["ticket_url"] in html and token not in html and response["Cache-Control"] == "no-store"
    secret = connection["ticket_url"].rsplit("=", 1)[1]
    ticket = tickets.redeem_ticket(secret=secret)
    assert ticket.table_id == table.pk and ticket.position == 2 and ticket.bot_id == bot.pk
    # A table the owner has nothing to do with is not offered, and refused if posted.
    other = practice.start_practice(user=make_user())
    response = client.post(reverse("accounts:bots"), {"bot": bot.pk, "table": other.pk, "seat": 3, "action": "ticket"})
    assert response.context["connection"] is None and response.context["ticket_form"].errors


def test_the_page_needs_a_login(client):
    response = client.get(reverse("accounts:bots"))
    assert response.status_code == 302


def test_bots_earn_no_career_points_even_where_points_are_awarded(make_user, make_table):
    """R10.1: belt and braces beside the match-table refusal: the award skips bot users."""
    from accounts import services
    from games.models import Deal, Match

    owner = make_user()
    new = bots.create_bot(owner=owner, name="No points")
    table = make_table(make_user())
    match = Match.objects.create(table=table, number=1, seed=1)
    deal = Deal.objects.create(match=match, number=1, ruleset_version="x", seed=1, hands=[], active_level=0,
                               team_levels_before=[0, 0], state={}, seq=0)
    entries = services.award_deal_points(deal=deal, winners=[new.bot.user], levels_advanced=2, match_won=False)
    assert entries == [] and new.bot.user.profile.career_points == 0


@pytest.mark.django_db
def test_a_bot_account_is_not_a_person_for_filling_or_hosting(make_user, make_table, make_bot):
    """R10.2: a person and their own bot account are one human: they may not fill the
    other seats with built-in bots; R10.5: a bot account never hosts the table."""
    from games.tables import services
    from games.tables.policies import TableError

    owner = make_user()
    table = make_table(owner, kind="friend", tier="")  # the owner sits in seat 1
    bot, _token = make_bot(owner)
    services.seat_bot_account(table=table, bot=bot, position=1, invite_code=table.invite_code)
    with pytest.raises(TableError, match="R10.2"):
        services.fill_with_bots(table=table, user=owner)
    friend = make_user()
    services.take_seat(table=table, user=friend, position=2, invite_code=table.invite_code)
    services.leave_seat(table=table, user=owner)
    # The owner gone, the host is the person in the lowest seat, not the bot in seat 2.
    from games.tables.policies import host_id
    seats = {seat.position: seat for seat in table.seats.select_related("user__bot_account")}
    assert host_id(table, seats) == friend.pk
    services.take_seat(table=table, user=owner, position=0)
    services.fill_with_bots(table=table, user=owner)  # two people now
    table.refresh_from_db()
    assert table.seats.count() == 4


def test_tickets_only_for_the_owners_own_tables_and_active_bots(make_user, make_table, make_bot):
    owner, stranger, other = make_user(), make_user(), make_user()
    mine = make_table(owner, kind="friend")
    theirs = make_table(stranger, kind="friend")
    match_table = make_table(other, kind="match")
    bot, _token = make_bot(owner)
    for table in (theirs, match_table):
        with pytest.raises(TableError, match="R10.1"):
            tickets.issue_ticket(owner=owner, bot_id=bot.pk, table_id=table.pk, position=1)
    assert tickets.issue_ticket(owner=owner, bot_id=bot.pk, table_id=mine.pk, position=1).secret
    with pytest.raises(TableError, match="R1.1"):
        tickets.issue_ticket(owner=owner, bot_id=bot.pk, table_id=mine.pk, position=4)
    with pytest.raises(TableError):
        tickets.issue_ticket(owner=stranger, bot_id=bot.pk, table_id=mine.pk, position=1)
