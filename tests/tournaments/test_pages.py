"""The tournament pages: list, create, register with a partner link, the tournament's
page, a board (hidden until its round ends, R13.6), a pair's page, privacy."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.tournaments.models import Entrant, Registration, Round, Tournament

from ..rule_ids import unlinked_rule_ids
from .conftest import absent, close_registration, run_to_the_end

pytestmark = pytest.mark.django_db(transaction=True)


def client_for(user=None):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_a_player_creates_a_private_tournament_and_a_partner_joins_by_link(make_user):
    organiser, partner = make_user(), make_user()
    client = client_for(organiser)
    start = (timezone.now() + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    closes = (timezone.now() + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    response = client.post(reverse("tournaments:create"), {
        "name": "Thursday club", "format": "duplicate", "rounds": 3, "boards_per_round": 4, "think_time": 30,
        "registration_closes_at": closes, "starts_at": start, "round_break": 120, "bot_level": "normal"})
    assert response.status_code == 302, response.content.decode()[:2000]
    tournament = Tournament.objects.get(name="Thursday club")
    assert tournament.is_private and tournament.invite_code  # R13.1: a player's tournament is private
    page = client.get(reverse("tournaments:detail", args=[tournament.pk]))
    assert tournament.invite_code in page.content.decode()
    # Private: nobody else sees it without the invitation link.
    assert client_for(partner).get(reverse("tournaments:detail", args=[tournament.pk])).status_code == 404
    assert client_for().get(reverse("tournaments:list")).content.decode().count("Thursday club") == 0
    # The organiser registers alone and gets a partner link; the partner opens it and joins.
    client.post(reverse("tournaments:register", args=[tournament.pk]))
    entrant = Entrant.objects.get(tournament=tournament)
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    link = reverse("tournaments:partner", args=[tournament.pk, entrant.partner_code])
    assert link in page
    other = client_for(partner)
    assert "Join as partner" in other.get(link).content.decode()
    other.post(link)
    assert Registration.objects.filter(entrant=entrant).count() == 2
    assert other.get(reverse("tournaments:detail", args=[tournament.pk])).status_code == 200


def test_bad_settings_are_refused_with_the_rule(make_user):
    client = client_for(make_user(is_staff=True))
    now = timezone.now()
    response = client.post(reverse("tournaments:create"), {
        "name": "Late", "format": "duplicate", "rounds": 2, "boards_per_round": 2, "think_time": 30,
        "registration_closes_at": (now + timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M"),
        "starts_at": (now + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M"), "round_break": 0, "bot_level": "normal"})
    assert response.status_code == 400
    assert "R13.1: registration closes no later than the start." in response.content.decode()
    assert not Tournament.objects.exists()


def test_guests_and_a_second_registration_are_refused(make_tournament, make_guest):
    from games.tournaments import services
    from games.tournaments.services import TournamentError

    tournament, players = make_tournament(pairs=1)
    with pytest.raises(TournamentError, match="R13.1"):
        services.register(tournament=tournament, user=players[0][0])
    with pytest.raises(TournamentError, match="R13.1: tournaments are for registered players"):
        services.register(tournament=tournament, user=make_guest())
    assert Registration.objects.filter(tournament=tournament).count() == 2


def test_pages_of_a_played_tournament(make_tournament, timers, make_user):
    tournament, players = make_tournament(pairs=3, rounds=2, boards_per_round=2)
    close_registration(tournament)
    absent(tournament)
    from games.tournaments import services

    services.advance(tournament_id=tournament.pk)
    viewer = client_for(make_user())
    # Round 1 in play: the board page says R13.6 and shows no card.
    hidden = viewer.get(reverse("tournaments:board", args=[tournament.pk, 1, 1]))
    assert hidden.status_code == 403 and "R13.6" in hidden.content.decode() and "data-card" not in hidden.content.decode()
    assert unlinked_rule_ids(hidden.content.decode()) == []  # every rule id shown links to its rule
    page = viewer.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert "Bot pair" in page and "data-card" not in page
    assert unlinked_rule_ids(page) == []
    run_to_the_end(tournament, timers)
    assert tournament.status == Tournament.Status.FINISHED
    page = viewer.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert "Final standings" in page and "The bot pair is not ranked" in page
    assert unlinked_rule_ids(page) == []
    # Two sentences from two messages: a space between them in English, none after 。.
    assert re.search(r"head to head\. The bot pair is not ranked", page)
    zh = viewer.get(reverse("tournaments:detail", args=[tournament.pk]), HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert re.search(r"。机器人对不计入排名", zh), "the bot pair's sentence follows the full stop with no space"
    board = viewer.get(reverse("tournaments:board", args=[tournament.pk, 2, 1])).content.decode()
    assert unlinked_rule_ids(board) == []
    assert len(re.findall(r'data-card="\d+"', board)) == 108  # who held which cards
    assert board.count(reverse("replays:deal", args=[1]).rsplit("/", 2)[0]) >= 2  # each table's replay
    pair = Entrant.objects.filter(tournament=tournament, is_bot_pair=False).first()
    own = viewer.get(reverse("tournaments:entrant", args=[tournament.pk, pair.number]))
    assert own.status_code == 200 and unlinked_rule_ids(own.content.decode()) == []
    assert Round.objects.filter(tournament=tournament, status="finished").count() == 2
