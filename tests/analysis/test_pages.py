"""The analysis on the replay page: the panel and its button, marks in the log, the
step's verdict, the plot, next mistake, the one-seat filter, and what is refused."""

import random
import re

import pytest
from django.urls import reverse

from games.analysis import services
from games.models import DealAnalysis

from ..replays import factories

pytestmark = pytest.mark.django_db

CARD = re.compile(r'data-card="(\d+)"')


@pytest.fixture
def analysed(finished, players, timers, quick_analysis, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        services.request_analysis(deal=finished, user=players[0])
    assert timers.run_background() == 1
    return DealAnalysis.objects.get(deal=finished)


def _url(deal, **query):
    return reverse("replays:deal", args=[deal.pk]) + "?" + "&".join(f"{k}={v}" for k, v in query.items())


def test_a_player_sees_the_button_asks_and_comes_back_to_a_progress_bar(client, finished, players, timers,
                                                                        django_capture_on_commit_callbacks):
    client.force_login(players[0])
    page = client.get(_url(finished, step=0)).content.decode()
    assert 'data-testid="analysis-request"' in page and "Not analysed yet." in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("analysis:request", args=[finished.pk]))
    assert response.status_code == 303 and response["Location"].startswith(reverse("replays:deal", args=[finished.pk]))
    page = client.get(response["Location"]).content.decode()
    assert 'data-testid="analysis-progress"' in page
    assert f'ws-connect="/ws/analysis/deals/{finished.pk}/"' in page
    assert 'data-testid="analysis-request"' not in page  # queued: nothing to ask again


def test_someone_not_of_the_deal_may_not_ask(client, finished, make_user):
    page = client.get(_url(finished, step=0)).content.decode()
    assert 'data-testid="analysis-request"' not in page
    client.force_login(make_user())
    assert client.post(reverse("analysis:request", args=[finished.pk])).status_code == 403
    assert not DealAnalysis.objects.exists()


def test_asking_for_a_deal_in_play_is_refused_with_the_rule(client, players, match):
    deal = factories.play(factories.deal_next(match), rng=random.Random(2), max_actions=5).deal
    client.force_login(players[0])
    response = client.post(reverse("analysis:request", args=[deal.pk]))
    assert response.status_code == 403 and "R9.3" in response.content.decode()
    assert not DealAnalysis.objects.exists()
    # And its replay (the player's own seat) carries no analysis at all.
    page = client.get(_url(deal, step=3)).content.decode()
    assert "analysis-panel" not in page and "analysis-step" not in page


def test_asking_needs_a_post(client, finished, players):
    client.force_login(players[0])
    assert client.get(reverse("analysis:request", args=[finished.pk])).status_code == 405


def test_an_analysed_deal_shows_marks_verdicts_plot_and_accuracy(client, analysed, finished):
    decisions = analysed.data["decisions"]
    page = client.get(_url(finished, step=0, seat="all")).content.decode()
    assert 'data-testid="analysis-plot"' in page and "<svg" in page
    assert page.count("data-log-mark=") == sum(d["mark"] not in ("only",) for d in decisions)
    for seat in range(1, 5):
        assert f'data-testid="accuracy-{seat}"' in page
    judged = next(d for d in decisions if d["mark"] not in ("only", "best"))
    step = judged["index"] + 1
    fragment = client.get(_url(finished, step=step, seat="all"), HTTP_HX_REQUEST="true").content.decode()
    assert f'data-mark="{judged["mark"]}"' in fragment
    assert "Better:" in fragment or judged["better"] is None


def test_next_mistake_goes_to_the_next_mistake_of_the_seat_shown(client, analysed, finished):
    decisions = analysed.data["decisions"]
    mistakes = [d for d in decisions if d["mark"] in ("mistake", "blunder")]
    assert mistakes, "random players make mistakes"
    first = mistakes[0]
    page = client.get(_url(finished, step=0, seat="all")).content.decode()
    link = re.search(r'href="([^"]+)"[^>]*data-analysis-nav="next-mistake"', page)
    assert link and f"step={first['index'] + 1}&" in link.group(1).replace("&amp;", "&")
    # Filtered to another seat: next mistake is that seat's.
    seat = next((s for s in range(4) if s != first["seat"] and any(m["seat"] == s for m in mistakes)), None)
    if seat is not None:
        theirs = next(m for m in mistakes if m["seat"] == seat)
        page = client.get(_url(finished, step=0, seat="all", marks=seat + 1)).content.decode()
        link = re.search(r'href="([^"]+)"[^>]*data-analysis-nav="next-mistake"', page)
        assert f"step={theirs['index'] + 1}&" in link.group(1).replace("&amp;", "&")
        assert f"marks={seat + 1}" in link.group(1)


def test_a_bad_filter_is_refused(client, analysed, finished):
    response = client.get(_url(finished, step=0, marks=9))
    assert response.status_code == 400 and "marks" in response.content.decode()


def test_the_verdicts_show_the_better_cards_only_once_the_deal_is_finished(client, analysed, finished, players):
    """A finished deal is public with every hand: the better move's cards may show. The
    page of a seat's view shows the verdicts too (nothing is hidden any more)."""
    judged = next(d for d in analysed.data["decisions"] if d["better_cards"])
    fragment = client.get(_url(finished, step=judged["index"] + 1, seat=1), HTTP_HX_REQUEST="true").content.decode()
    shown = {int(c) for c in CARD.findall(fragment)}
    assert set(judged["better_cards"]) <= shown


def test_the_match_page_shows_each_seats_accuracy(client, analysed, finished):
    page = client.get(reverse("replays:match", args=[finished.match_id])).content.decode()
    assert 'data-testid="match-accuracy"' in page
