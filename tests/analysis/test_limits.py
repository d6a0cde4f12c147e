"""What waits for the analysis worker is bounded (games/analysis/services.py): a player
has at most so many analyses waiting and asks for at most so many an hour, the site
queues at most so many, and the site's own request at a practice deal's end is dropped
rather than queued past the bound. Refusals name the reason, answer 429 on the page, and
change nothing."""

import pytest
from django.urls import reverse

from games.analysis import services
from games.models import DealAnalysis

from ..replays import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_finished(match):
    return [played.deal for played in factories.play_deals(match, 3, seed=9)]


def test_a_player_has_only_so_many_waiting(three_finished, players, timers, settings):
    settings.GUANDAN_ANALYSES_WAITING_PER_PLAYER = 2
    host, _partner = players
    first, second, third = three_finished
    services.request_analysis(deal=first, user=host)
    services.request_analysis(deal=second, user=host)
    assert services.request_analysis(deal=second, user=host).deal_id == second.pk  # asking again: no new one
    with pytest.raises(services.AnalysisBusy, match="2 analyses waiting"):
        services.request_analysis(deal=third, user=host)
    assert DealAnalysis.objects.count() == 2
    DealAnalysis.objects.filter(deal=first).update(status=DealAnalysis.Status.DONE, data={"decisions": []})
    assert services.request_analysis(deal=third, user=host).status == DealAnalysis.Status.QUEUED


def test_the_site_queues_only_so_many_and_drops_its_own_requests_beyond(three_finished, players, make_user,
                                                                          timers, settings):
    settings.GUANDAN_ANALYSIS_QUEUE = 1
    host, partner = players
    first, second, third = three_finished
    services.request_analysis(deal=first, user=host)
    with pytest.raises(services.AnalysisBusy, match="queue is full"):
        services.request_analysis(deal=second, user=partner)
    assert services.request_analysis(deal=second) is None  # a practice deal's end: dropped, no error
    staff = make_user(is_staff=True)
    assert services.request_analysis(deal=third, user=staff).status == DealAnalysis.Status.QUEUED  # staff: not limited
    assert DealAnalysis.objects.count() == 2


def test_a_player_asks_for_only_so_many_an_hour(three_finished, players, timers, settings):
    settings.GUANDAN_ANALYSES_PER_HOUR = 2
    host, _partner = players
    for deal in three_finished[:2]:
        services.request_analysis(deal=deal, user=host)
        DealAnalysis.objects.filter(deal=deal).update(status=DealAnalysis.Status.DONE, data={"decisions": []})
    with pytest.raises(services.AnalysisBusy, match="this hour"):
        services.request_analysis(deal=three_finished[2], user=host)


def test_the_page_answers_429_and_says_why(client, three_finished, players, timers, settings):
    settings.GUANDAN_ANALYSIS_QUEUE = 0
    client.force_login(players[0])
    response = client.post(reverse("analysis:request", args=[three_finished[0].pk]))
    assert response.status_code == 429 and "queue is full" in response.content.decode()
    assert not DealAnalysis.objects.exists()
