"""Staff in the admin: take players out of the quick-play queue, run the matcher now,
recompute every rating from the stored deals."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.players.models import Rating
from games.quickplay import services
from games.quickplay.models import QueueEntry

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def staff_client(client):
    client.force_login(get_user_model().objects.create_superuser("boss", "boss@example.com", "boss-password-123"))
    return client


def test_staff_take_players_out_of_the_queue_and_run_the_matcher(staff_client, make_user):
    players = [make_user() for _ in range(5)]
    for player in players:
        services.join(user=player, tier="junior")
    url = reverse("admin:quickplay_queueentry_changelist")
    out = QueueEntry.objects.get(user=players[4])
    response = staff_client.post(url, {"action": "take_out", "_selected_action": [out.pk]}, follow=True)
    assert "1 player left the queue." in response.content.decode()
    response = staff_client.post(url, {"action": "match_now", "_selected_action": [QueueEntry.objects.first().pk]},
                                 follow=True)
    assert "1 table opened." in response.content.decode()
    assert QueueEntry.objects.filter(status="seated").count() == 4


def test_staff_recompute_the_ratings(staff_client, make_user):
    player = make_user()
    Rating.objects.create(user=player, mu=1900, sigma=50, rated_deals=40)  # no deal behind it
    url = reverse("admin:players_rating_changelist")
    response = staff_client.post(url, {"action": "recompute", "_selected_action": [player.pk]}, follow=True)
    assert "1 ratings differed" in response.content.decode()
    assert not Rating.objects.filter(user=player).exists()
