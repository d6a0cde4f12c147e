"""Account flows: sign up, log in and out, password change, guests and their claim, the
profile and the leaderboard pages."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.models import Profile
from games.models import Participant, Seat
from games.tables import services
from tests.conftest import PASSWORD

User = get_user_model()
NEW_PASSWORD = "a-much-newer-passphrase-42"


def logged_in_user(client):
    return client.get(reverse("accounts:profile")).context["shown_user"]


@pytest.mark.django_db
def test_sign_up_logs_in_with_a_profile(client):
    response = client.post(
        reverse("accounts:signup"),
        {"username": "meilin", "display_name": "Mei Lin", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302 and response["Location"] == reverse("games:lobby")
    user = User.objects.get(username="meilin")
    assert user.check_password(PASSWORD)
    assert (user.profile.display_name, user.profile.is_guest, user.profile.career_points) == ("Mei Lin", False, 0)
    assert logged_in_user(client) == user


@pytest.mark.django_db
def test_sign_up_display_name_defaults_to_username(client):
    client.post(reverse("accounts:signup"), {"username": "zhou", "display_name": "", "password1": PASSWORD, "password2": PASSWORD})
    assert Profile.objects.get(user__username="zhou").display_name == "zhou"


@pytest.mark.django_db
def test_sign_up_refusals_change_nothing(client, make_user):
    make_user(username="taken")
    for data in (
        {"username": "taken", "password1": PASSWORD, "password2": PASSWORD},
        {"username": "Taken", "password1": PASSWORD, "password2": PASSWORD},
        {"username": "fresh", "password1": PASSWORD, "password2": PASSWORD + "x"},
        {"username": "fresh", "password1": "123", "password2": "123"},
    ):
        response = client.post(reverse("accounts:signup"), data)
        assert response.status_code == 200 and response.context["form"].errors
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_log_in_and_out(client, make_user):
    user = make_user(username="lanlan")
    response = client.post(reverse("accounts:login"), {"username": "lanlan", "password": PASSWORD})
    assert response.status_code == 302
    assert logged_in_user(client) == user
    bad = client.post(reverse("accounts:login"), {"username": "lanlan", "password": "wrong"})
    assert bad.status_code == 200 and bad.context["form"].errors
    client.post(reverse("accounts:logout"))
    assert client.get(reverse("accounts:profile")).status_code == 302  # back to the login page


@pytest.mark.django_db
def test_password_change(client, make_user):
    user = make_user()
    client.force_login(user)
    assert client.get(reverse("accounts:password_change")).status_code == 200
    wrong = client.post(
        reverse("accounts:password_change"),
        {"old_password": "nope", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert wrong.status_code == 200 and wrong.context["form"].errors
    response = client.post(
        reverse("accounts:password_change"),
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response["Location"] == reverse("accounts:password_change_done")
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert client.get(reverse("accounts:password_change_done")).status_code == 200


@pytest.mark.django_db
def test_play_as_guest(client):
    response = client.post(reverse("accounts:guest"))
    assert response.status_code == 302
    guest = logged_in_user(client)
    assert guest.profile.is_guest and not guest.has_usable_password()
    assert guest.profile.display_name.startswith("Guest ")
    # Playing as guest again while logged in makes no second account.
    client.post(reverse("accounts:guest"))
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_guest_plays_practice_but_not_match_tables(client):
    client.post(reverse("accounts:guest"))
    response = client.post(reverse("games:create_table"), {"kind": "match", "tier": "junior", "think_time": 30, "bot_speed": "1.0", "bot_level": "normal"})
    assert response.status_code == 400  # the form offers guests no match tables (R10.1)
    assert "match" not in dict(response.context["create_form"].fields["kind"].choices)
    response = client.post(reverse("games:create_table"), {"kind": "practice", "tier": "", "think_time": 30, "bot_speed": "1.0", "bot_level": "normal"})
    assert response.status_code == 302


@pytest.mark.django_db
def test_guest_password_change_leads_to_registration(client):
    client.post(reverse("accounts:guest"))
    response = client.get(reverse("accounts:password_change"))
    assert response["Location"] == reverse("accounts:claim")


@pytest.mark.django_db
def test_claim_turns_the_guest_into_a_registered_player_keeping_history(client):
    client.post(reverse("accounts:guest"))
    guest = logged_in_user(client)
    table = services.create_table(host=guest, kind="practice")
    match = services.start_match(table=table, user=guest)

    response = client.post(
        reverse("accounts:claim"),
        {"username": "former-guest", "display_name": "Ah Fu", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response["Location"] == reverse("accounts:profile")
    user = User.objects.get(pk=guest.pk)
    assert user.username == "former-guest" and user.check_password(NEW_PASSWORD)
    assert (user.profile.is_guest, user.profile.display_name) == (False, "Ah Fu")
    # Same user: the seat and the match stay theirs, and the session stays logged in.
    assert Seat.objects.get(table=table, position=0).user_id == user.pk
    assert Participant.objects.get(match=match, position=0).user_id == user.pk
    assert logged_in_user(client) == user
    page = client.get(reverse("accounts:profile"))
    assert page.context["recent_matches"][0]["match"] == match
    # Registered now: match tables open.
    services.leave_seat(table=table, user=user)
    assert services.create_table(host=user, kind="match", tier="junior").kind == "match"


@pytest.mark.django_db
def test_claim_refusals(client, make_user):
    make_user(username="taken")
    client.post(reverse("accounts:guest"))
    guest = logged_in_user(client)
    response = client.post(
        reverse("accounts:claim"), {"username": "TAKEN", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )
    assert response.status_code == 200 and "username" in response.context["form"].errors
    response = client.post(reverse("accounts:claim"), {"username": "fresh", "password1": NEW_PASSWORD, "password2": "other"})
    assert "password2" in response.context["form"].errors
    guest.refresh_from_db()
    assert guest.profile.is_guest and guest.username.startswith("guest-")


@pytest.mark.django_db
def test_registered_players_have_nothing_to_claim(client, make_user):
    client.force_login(make_user())
    assert client.get(reverse("accounts:claim"))["Location"] == reverse("accounts:profile")


@pytest.mark.django_db
def test_profile_shows_name_points_tier_and_recent_matches(client, make_user, full_table):
    table, users = full_table
    match = services.start_match(table=table, user=users[0])
    player = users[1]
    from accounts import services as account_services

    account_services.adjust_points(user=player, delta=120, note="")
    client.force_login(player)
    response = client.get(reverse("accounts:profile"))
    html = response.content.decode()
    assert player.profile.display_name in html
    assert response.context["profile"].career_points == 120
    assert response.context["profile"].tier.key == "senior"
    assert [row["match"] for row in response.context["recent_matches"]] == [match]
    assert response.context["recent_matches"][0]["outcome"] == "playing"
    response = client.post(reverse("accounts:profile"), {"display_name": "Xiao Long"})
    assert response.status_code == 302
    assert Profile.objects.get(user=player).display_name == "Xiao Long"


@pytest.mark.django_db
def test_public_profile_and_leaderboard(client, make_user):
    star = make_user(username="star", display_name="Star Player", points=600)
    make_user(points=5)
    response = client.get(reverse("player_profile", args=["star"]))
    assert response.status_code == 200 and "Star Player" in response.content.decode()
    assert client.get(reverse("player_profile", args=["nobody"])).status_code == 404
    board = client.get(reverse("leaderboard") + "?by=points")
    assert board.status_code == 200
    assert board.context["rows"][0]["user_id"] == star.pk
    assert "Grandmaster" in board.content.decode()


@pytest.mark.django_db
def test_profile_and_player_page_link_each_match_to_its_history_and_last_finished_deal(client, make_user):
    from tests.replays.factories import play_deals, start_match_with_bots

    host, partner = make_user(username="hui"), make_user(username="ping")
    match = start_match_with_bots(host=host, partner=partner)
    client.force_login(host)
    # Only the deal in play: nothing to replay yet (no replay of an unfinished deal).
    for url in (reverse("accounts:profile"), reverse("player_profile", args=["hui"])):
        response = client.get(url)
        assert response.context["recent_matches"][0]["last_deal"] is None
        assert reverse("replays:match", args=[match.pk]) in response.content.decode()
    finished = play_deals(match, 2)[-1].deal
    for url in (reverse("accounts:profile"), reverse("player_profile", args=["hui"])):
        html = client.get(url).content.decode()
        assert f'href="{reverse("replays:deal", args=[finished.pk])}"' in html
        assert reverse("replays:match", args=[match.pk]) in html
