"""The lobby and table pages over HTTP: listing by kind, who sees what, and the buttons
offered (exactly when the step would succeed)."""

import re

import pytest
from django.urls import reverse

from games.models import Seat, Table
from games.tables import services
from games.tables.selectors import INVITATIONS_SESSION_KEY


def card(html, table):
    """The HTML of one table's card in the lobby, or None."""
    match = re.search(rf'<article class="table-card[^"]*" data-table-id="{table.pk}".*?</article>', html, re.S)
    return match.group(0) if match else None


def section(html, name):
    match = re.search(rf'data-section="{name}">(.*?)</section>', html, re.S)
    return match.group(1)


@pytest.fixture
def tables(make_user, make_table):
    """One open table of every kind and tier, each hosted by someone else."""
    return {
        "junior": make_table(make_user(display_name="Junior Host")),
        "senior": make_table(make_user(points=100), kind="match", tier="senior"),
        "grandmaster": make_table(make_user(points=500), kind="match", tier="grandmaster"),
        "friend": make_table(make_user(display_name="Friend Host"), kind="friend"),
        "practice": make_table(make_user(display_name="Practice Host"), kind="practice"),
    }


@pytest.mark.django_db
def test_lobby_lists_match_tables_by_tier_and_practice_tables(client, tables):
    html = client.get(reverse("games:lobby")).content.decode()
    for tier in ("junior", "senior", "grandmaster"):
        assert card(section(html, f"tier-{tier}"), tables[tier]) is not None
        assert card(section(html, "practice"), tables[tier]) is None
    assert card(section(html, "practice"), tables["practice"]) is not None
    assert "Junior Host" in card(html, tables["junior"])


@pytest.mark.django_db
def test_friend_tables_are_private(client, tables, make_user):
    """R10.3: friend tables show only to their players, their host and the invited."""
    friend = tables["friend"]
    assert card(client.get(reverse("games:lobby")).content.decode(), friend) is None
    assert client.get(reverse("games:table", args=[friend.pk])).status_code == 404
    client.force_login(friend.host)
    assert card(client.get(reverse("games:lobby")).content.decode(), friend) is not None


@pytest.mark.django_db
def test_invitation_link_opens_the_friend_table(client, tables, make_guest):
    friend = tables["friend"]
    guest = make_guest()
    client.force_login(guest)
    response = client.get(reverse("games:join_invite", args=[friend.invite_code.lower()]))
    # The link asks before seating anyone: a followed link changes no seat.
    assert response.status_code == 200 and 'data-testid="join-take-seat"' in response.content.decode()
    assert not Seat.objects.filter(table=friend, user=guest).exists()
    assert client.session[INVITATIONS_SESSION_KEY] == {str(friend.pk): friend.invite_code}
    html = client.get(reverse("games:lobby")).content.decode()
    assert "Take seat" in card(section(html, "friend"), friend)
    response = client.post(reverse("games:take_seat", args=[friend.pk]), {"position": 2})
    assert response["Location"] == reverse("games:table", args=[friend.pk])
    assert Seat.objects.get(table=friend, position=2).user_id == guest.pk


@pytest.mark.django_db
def test_join_by_code_form(client, tables, make_user):
    client.force_login(make_user())
    response = client.post(reverse("games:join_by_code"), {"code": f"  {tables['friend'].invite_code.lower()} "})
    assert response["Location"] == reverse("games:table", args=[tables["friend"].pk])
    response = client.get(reverse("games:join_invite", args=["NOPE2345"]), follow=True)
    assert "R10.3" in response.content.decode()


@pytest.mark.django_db
def test_practice_tables_are_watchable_not_joinable(client, tables, make_user):
    """R10.4: others see practice tables in the lobby and may watch, but cannot sit."""
    client.force_login(make_user())
    html = client.get(reverse("games:lobby")).content.decode()
    practice = card(section(html, "practice"), tables["practice"])
    assert "Watch" in practice and "Take seat" not in practice
    page = client.get(reverse("games:table", args=[tables["practice"].pk])).content.decode()
    assert "You are watching this table." in page and "R10.4" in page
    assert reverse("games:take_seat", args=[tables["practice"].pk]) not in page


@pytest.mark.django_db
def test_take_seat_buttons_follow_the_rules(client, tables, make_user, make_guest):
    newcomer = make_user()
    client.force_login(newcomer)
    html = client.get(reverse("games:lobby")).content.decode()
    assert card(html, tables["junior"]).count(">Take seat</button>") == 3
    assert "Take seat" not in card(html, tables["senior"])  # R10.7: tier closed at 0 points
    assert "locked" in section(html, "tier-senior")
    client.force_login(make_guest())
    html = client.get(reverse("games:lobby")).content.decode()
    assert "Take seat" not in card(html, tables["junior"])  # R10.1: guests


@pytest.mark.django_db
def test_continue_goes_back_to_your_table(client, tables, make_user):
    player = make_user()
    client.force_login(player)
    assert client.get(reverse("games:continue"))["Location"] == reverse("games:lobby")
    services.take_seat(table=tables["junior"], user=player, position=1)
    assert client.get(reverse("games:continue"))["Location"] == reverse("games:table", args=[tables["junior"].pk])
    html = client.get(reverse("games:lobby")).content.decode()
    assert 'data-testid="continue-banner"' in html and 'data-testid="nav-continue"' in html
    assert "Continue" in card(html, tables["junior"])


@pytest.mark.django_db
def test_lobby_fragment_endpoint(client, tables):
    response = client.get(reverse("games:lobby_tables"))
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="lobby-tables"')
    assert card(html, tables["practice"]) is not None


@pytest.mark.django_db
def test_closed_tables_leave_the_lobby(client, tables):
    services.close_table(table=tables["junior"], user=tables["junior"].host)
    html = client.get(reverse("games:lobby")).content.decode()
    assert card(html, tables["junior"]) is None


@pytest.mark.django_db
def test_create_table_from_the_lobby(client, make_user):
    user = make_user()
    client.force_login(user)
    response = client.post(
        reverse("games:create_table"),
        {"kind": "match", "tier": "junior", "think_time": 45, "bot_speed": "0.5", "bot_level": "hard"},
    )
    table = Table.objects.get(host=user)
    assert response["Location"] == reverse("games:table", args=[table.pk])
    assert (table.kind, table.tier, table.think_time, str(table.bot_speed), table.bot_level) == ("match", "junior", 45, "0.5", "hard")


@pytest.mark.django_db
def test_create_table_refusals_are_shown(client, make_user):
    client.force_login(make_user())
    response = client.post(reverse("games:create_table"), {"kind": "match", "tier": "senior", "think_time": 30, "bot_speed": "1.0", "bot_level": "normal"})
    assert response.status_code == 400 and "R10.7" in response.content.decode()
    response = client.post(reverse("games:create_table"), {"kind": "match", "tier": "", "think_time": 30, "bot_speed": "1.0", "bot_level": "normal"})
    assert response.status_code == 400 and "R10.1" in response.content.decode()
    assert not Table.objects.exists()


@pytest.mark.django_db
def test_anonymous_visitors_are_asked_to_log_in_before_acting(client, tables):
    response = client.post(reverse("games:take_seat", args=[tables["junior"].pk]), {"position": 1})
    assert response["Location"].startswith(reverse("accounts:login"))
    assert client.get(reverse("games:create_table"))["Location"].startswith(reverse("accounts:login"))


@pytest.mark.django_db
def test_refused_step_shows_the_rule_and_changes_nothing(client, tables, make_user):
    client.force_login(make_user())
    practice = tables["practice"]
    response = client.post(reverse("games:take_seat", args=[practice.pk]), {"position": 1, "back": "/"}, follow=True)
    # The rule id is a link to its rule on the rules page.
    assert ('<a class="rule-link" href="/rules/#R10.4">R10.4</a>: practice tables seat one human and three bots'
            in response.content.decode())
    assert Seat.objects.filter(table=practice).count() == 4


@pytest.mark.django_db
def test_htmx_steps_answer_with_a_client_redirect(client, tables, make_user):
    client.force_login(make_user())
    junior = tables["junior"]
    response = client.post(reverse("games:take_seat", args=[junior.pk]), {"position": 3}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and response["HX-Redirect"] == reverse("games:table", args=[junior.pk])
    response = client.post(reverse("games:take_seat", args=[junior.pk]), {"position": 9, "back": "https://evil.example/"}, HTTP_HX_REQUEST="true")
    assert response["HX-Redirect"] == reverse("games:table", args=[junior.pk])


@pytest.mark.django_db
def test_waiting_room_controls_for_the_host(client, make_user, make_table):
    host, friend = make_user(), make_user()
    table = make_table(host)
    client.force_login(host)
    page = client.get(reverse("games:table", args=[table.pk])).content.decode()
    assert "Fill empty seats with bots" not in page  # R10.2: a lone human
    assert "Start the match" not in page
    services.take_seat(table=table, user=friend, position=2)
    page = client.get(reverse("games:table", args=[table.pk])).content.decode()
    assert "Fill empty seats with bots" in page
    client.post(reverse("games:fill_with_bots", args=[table.pk]))
    page = client.get(reverse("games:table", args=[table.pk])).content.decode()
    assert "Start the match" in page
    client.post(reverse("games:start_match", args=[table.pk]))
    page = client.get(reverse("games:table", args=[table.pk])).content.decode()
    assert 'data-testid="match-in-progress"' in page and "Match 1 is in progress." in page
    assert "Leave (costs 10 points, R10.7)" in page


@pytest.mark.django_db
def test_live_fragment_answers_204_when_nothing_changed(client, make_user, make_table):
    table = make_table(make_user())
    url = reverse("games:table_live", args=[table.pk])
    first = client.get(url)
    assert first.status_code == 200 and 'id="table-live"' in first.content.decode()
    table.refresh_from_db()
    assert client.get(url, {"version": table.version}).status_code == 204
    services.take_seat(table=table, user=make_user(), position=1)
    assert client.get(url, {"version": table.version}).status_code == 200


@pytest.mark.django_db
def test_fragments_have_stable_ids(client, make_user, make_table):
    table = make_table(make_user(), kind="friend")
    client.force_login(table.host)
    page = client.get(reverse("games:table", args=[table.pk])).content.decode()
    for element_id in ("table-live", "table-status", "table-seats", "table-controls"):
        assert page.count(f'id="{element_id}"') == 1
    assert 'id=""' not in page
    assert table.invite_code in page  # the host sees the invitation
