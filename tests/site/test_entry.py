"""The way in: a visitor's first screen offers practice and guest play, an invitation
seats a signed-in player in a free seat once confirmed (or says it is full), a guest's
create form has no tier."""

import re

import pytest
from django.urls import reverse

from games.models import Table
from games.tables import services
from games.tables.forms import CreateTableForm


@pytest.mark.django_db
def test_the_lobby_offers_practice_now_and_play_as_guest_first(client):
    html = client.get(reverse("games:lobby")).content.decode()
    start = html.index('class="lobby-start"')
    assert html.index("Practice now", start) < html.index('id="lobby-tables"')
    assert html.index("Play as guest", start) < html.index('id="lobby-tables"')
    assert f'action="{reverse("practice:start")}"' in html[start:html.index('id="lobby-tables"')]


@pytest.mark.django_db
def test_practice_now_starts_a_practice_table_for_a_visitor(client):
    response = client.post(reverse("practice:start"), {"bot_level": "normal", "bot_speed": "1.0"})
    table = Table.objects.get(kind=Table.Kind.PRACTICE)
    assert response.status_code == 302 and response.url == reverse("games:table", args=[table.pk])


@pytest.mark.django_db
def test_an_invitation_seats_the_player_in_a_free_seat(client, make_user):
    host, guest = make_user(), make_user(display_name="Invited")
    table = services.create_table(host=host, kind=Table.Kind.FRIEND)
    client.force_login(guest)
    response = client.post(reverse("games:join_by_code"), {"code": table.invite_code.lower()}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("games:table", args=[table.pk])
    assert table.seats.get(user=guest).position == 1
    assert "You sit in seat 2." in response.content.decode()
    # Following the link again changes nothing.
    client.get(reverse("games:join_invite", args=[table.invite_code]))
    assert table.seats.filter(user=guest).count() == 1


@pytest.mark.django_db
def test_an_invitation_link_asks_before_it_seats(client, make_user):
    """Opening the link (a GET, which another site could make a browser do) seats nobody;
    the page's button (a POST with the CSRF token) does."""
    host, guest = make_user(display_name="Hostess"), make_user()
    table = services.create_table(host=host, kind=Table.Kind.FRIEND)
    client.force_login(guest)
    page = client.get(reverse("games:join_invite", args=[table.invite_code]))
    assert page.status_code == 200 and "Hostess invited you" in page.content.decode()
    assert not table.seats.filter(user=guest).exists()
    response = client.post(reverse("games:join_invite", args=[table.invite_code]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("games:table", args=[table.pk])
    assert table.seats.get(user=guest).position == 1


@pytest.mark.django_db
def test_a_full_table_says_so_and_lets_the_invited_watch(client, make_user):
    users = [make_user() for _ in range(5)]
    table = services.create_table(host=users[0], kind=Table.Kind.FRIEND)
    for position, user in enumerate(users[1:4], start=1):
        services.take_seat(table=table, user=user, position=position, invite_code=table.invite_code)
    client.force_login(users[4])
    response = client.get(reverse("games:join_invite", args=[table.invite_code]), follow=True)
    text = re.sub(r"<[^>]+>", "", response.content.decode())  # rule ids are links
    assert "R10.5: this table has no free seat now; you can watch it." in text
    assert not table.seats.filter(user=users[4]).exists()


@pytest.mark.django_db
def test_a_guest_create_form_offers_no_tier(make_user):
    from accounts import services as account_services

    guest = account_services.create_guest()
    assert "tier" not in CreateTableForm(user=guest).fields
    assert "tier" in CreateTableForm(user=make_user()).fields


@pytest.mark.django_db
def test_an_invitation_offers_a_visitor_the_guest_path_and_comes_back(client, make_user):
    """A visitor opening an invitation link is offered to play as a guest (or log in, or
    sign up); as a guest, they come back to the invitation and take a seat there."""
    host = make_user(display_name="Hostess")
    table = services.create_table(host=host, kind=Table.Kind.FRIEND)
    link = reverse("games:join_invite", args=[table.invite_code])
    page = client.get(link)
    html = page.content.decode()
    assert page.status_code == 200 and "Hostess invited you" in html
    assert 'data-testid="join-as-guest"' in html and f'name="next" value="{link}"' in html
    assert f'{reverse("accounts:login")}?next={link}' in html.replace("%2F", "/")
    assert f'{reverse("accounts:signup")}?next={link}' in html.replace("%2F", "/")
    assert not table.seats.exclude(user=host).exists()
    back = client.post(reverse("accounts:guest"), {"next": link})
    assert back.status_code == 302 and back.url == link
    confirm = client.get(link)
    assert 'data-testid="join-take-seat"' in confirm.content.decode()
    client.post(link)
    assert table.seats.get(position=1).user.profile.is_guest


@pytest.mark.django_db
def test_signing_up_from_an_invitation_comes_back_to_it(client, make_user):
    table = services.create_table(host=make_user(), kind=Table.Kind.FRIEND)
    link = reverse("games:join_invite", args=[table.invite_code])
    form = client.get(reverse("accounts:signup") + "?next=" + link).content.decode()
    assert f'name="next" value="{link}"' in form
    response = client.post(reverse("accounts:signup"), {
        "username": "newcomer", "display_name": "Newcomer", "password1": "a-long-pass-phrase-42",
        "password2": "a-long-pass-phrase-42", "next": link})
    assert response.status_code == 302 and response.url == link
