"""Friend tables stay private after play too (R10.3): their match history, replays and
JSON exports answer 404 to everybody but the match's players, invitees and staff."""

import random

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Table
from games.tables import services

from . import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def friend_deal(players):
    host, partner = players
    table = services.create_table(host=host, kind="friend", tier="")
    services.take_seat(table=table, user=partner, position=2, invite_code=table.invite_code)
    services.fill_with_bots(table=table, user=host)
    match = services.start_match(table=table, user=host)
    played = factories.play(factories.deal_next(match), rng=random.Random(3))
    assert played.deal.finished_at is not None
    return played.deal


def addresses(deal):
    return [
        reverse("replays:match", args=[deal.match_id]),
        reverse("replays:deal", args=[deal.pk]),
        reverse("replays:deal_json", args=[deal.pk]),
    ]


def client_for(user=None):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_strangers_get_404(friend_deal, make_user):
    for client in (client_for(), client_for(make_user())):
        for url in addresses(friend_deal):
            assert client.get(url).status_code == 404, url


def test_players_invitees_and_staff_see_it(friend_deal, players, make_user):
    invitee = client_for()
    table = friend_deal.match.table
    assert table.status == Table.Status.PLAYING
    invitee.get(reverse("games:join_invite", args=[table.invite_code]))
    viewers = [client_for(players[0]), client_for(players[1]), client_for(make_user(is_staff=True)), invitee]
    for client in viewers:
        for url in addresses(friend_deal):
            assert client.get(url).status_code == 200, url


def test_a_players_profile_lists_friend_matches_only_to_who_may_see_them(friend_deal, players, make_user):
    history = reverse("replays:match", args=[friend_deal.match_id])
    profile = reverse("player_profile", args=[players[1].username])
    assert history not in client_for(make_user()).get(profile).content.decode()
    assert history not in client_for().get(profile).content.decode()
    assert history in client_for(players[0]).get(profile).content.decode()
