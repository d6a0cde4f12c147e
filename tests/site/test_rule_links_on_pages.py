"""Every rule id the community pages show links to its rule (README, "Rules"): the lobby
and its quick-play panel, quick play's waiting page and a friend's invitation, the
leaderboards, a player's page and the tournaments' list and form. The table's panels are
checked in tests/live/test_rule_links.py, a played tournament's pages in
tests/tournaments/test_pages.py."""

import pytest
from django.test import Client
from django.urls import reverse

from games.players.models import Rating
from games.quickplay import services as quickplay

from ..rule_ids import unlinked_rule_ids

pytestmark = pytest.mark.django_db


def pages(client, paths, language):
    for path in paths:
        response = client.get(path, HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 200, path
        yield path, response.content.decode()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_visitor_and_a_player_see_every_rule_id_as_a_link(make_user, language):
    host = make_user(display_name="Xiao Mei")
    invitation = reverse("quickplay:invite", args=[quickplay.join(user=host, tier="junior").invite_code])
    visitor = Client()
    paths = [reverse("games:lobby"), reverse("leaderboard"), reverse("leaderboard") + "?by=points",
             reverse("leaderboard") + "?provisional=1", reverse("leaderboard") + "?period=season",
             reverse("tournaments:list"), invitation]
    for path, html in pages(visitor, paths, language):
        assert unlinked_rule_ids(html) == [], path

    player = make_user(points=20)
    Rating.objects.update_or_create(user=player, defaults={"mu": 1510, "sigma": 200, "rated_deals": 3})
    client = Client()
    client.force_login(player)
    quickplay.join(user=player, tier="junior")
    paths += [reverse("quickplay:play"), reverse("player_profile", args=[player.username]),
              reverse("player_profile", args=[host.username]), reverse("tournaments:create")]
    for path, html in pages(client, paths, language):
        assert unlinked_rule_ids(html) == [], path
