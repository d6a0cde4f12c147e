"""Bot accounts: the token is shown once and stored hashed, approval, revocation, the
owner's page, and no career points for bots (R10.1)."""

import hashlib

import pytest
from django.urls import reverse

from accounts import bots
from accounts.models import BotAccount
from accounts.services import AccountError

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
    assert not bots.bot_for_token_id(new.bot.pk)
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
    response = client.post(reverse("accounts:bots"), {"name": "Shown once"})
    assert response.status_code == 200
    bot = BotAccount.objects.get(owner=owner)
    token = response.context["new_token"]
    assert token and token in response.content.decode() and bot.token_hash == bots.hash_token(token)
    assert response["Cache-Control"] == "no-store"
    again = client.get(reverse("accounts:bots"))
    page = again.content.decode()
    assert token not in page and "Shown once" in page and bot.token_hint in page
    assert "waiting for approval" in page
    client.post(reverse("accounts:bots"), {"revoke": bot.pk})
    bot.refresh_from_db()
    assert bot.revoked_at is not None
    assert "revoked" in client.get(reverse("accounts:bots")).content.decode()


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
