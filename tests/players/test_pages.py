"""Leaderboards (R10.11) and player pages: what they list, the viewer's row, paging,
privacy (R10.3), and how many queries a page costs."""

import datetime

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts import services as account_services
from games.players.models import PlayedDeal, Rating, RatingChange, SeasonScore
from games.players.selectors import PAGE_SIZE
from games.players.models import season_of

pytestmark = pytest.mark.django_db


def rate(user, mu, deals, season_deals=0, season_mu=None):
    Rating.objects.update_or_create(user=user, defaults={"mu": mu, "sigma": 100, "rated_deals": deals})
    if season_deals:
        SeasonScore.objects.update_or_create(
            user=user, season=season_of(timezone.now()),
            defaults={"rated_deals": season_deals, "mu": season_mu or mu, "provisional": deals < 20})


def names_on(response):
    return [row["username"] for row in response.context["rows"]]


def test_rating_board_lists_established_players_best_first_and_provisional_apart(client, make_user):
    a, b, c, new, guest_like = (make_user(username=n) for n in ("ann", "bob", "cai", "new", "zero"))
    rate(a, 1600, 25)
    rate(b, 1700, 40)
    rate(c, 1600, 30)  # ties by the older account: ann first
    rate(new, 1800, 5)
    Rating.objects.create(user=guest_like)  # never rated: on no board
    board = client.get(reverse("leaderboard"))
    assert names_on(board) == ["bob", "ann", "cai"]
    assert [row["value"] for row in board.context["rows"]] == ["1700", "1600", "1600"]
    provisional = client.get(reverse("leaderboard") + "?provisional=1")
    assert names_on(provisional) == ["new"] and provisional.context["rows"][0]["value"] == "1800?"
    assert "R10.10" in provisional.content.decode()


def test_season_boards_count_this_month_only(client, make_user):
    a, b, c = (make_user(username=n) for n in ("ann", "bob", "cai"))
    rate(a, 1600, 25, season_deals=3, season_mu=1610)
    rate(b, 1700, 40)  # no deal this season
    rate(c, 1550, 21, season_deals=8)
    SeasonScore.objects.create(user=b, season=datetime.date(2020, 1, 1), rated_deals=9, mu=1900, provisional=False)
    board = client.get(reverse("leaderboard") + "?period=season")
    assert names_on(board) == ["ann", "cai"]
    account_services.adjust_points(user=c, delta=30, note="")
    account_services.adjust_points(user=a, delta=12, note="")
    points = client.get(reverse("leaderboard") + "?by=points&period=season")
    assert names_on(points) == ["cai", "ann"] and [r["value"] for r in points.context["rows"]] == [30, 12]


def test_the_viewers_row_is_highlighted_and_jump_to_me_finds_its_page(client, make_user):
    call_command("seed_players", 130, verbosity=0)
    me = make_user(username="me")
    established = Rating.objects.filter(rated_deals__gte=20).order_by("-mu", "user_id")
    # Somewhere on the third page.
    target = established[2 * PAGE_SIZE + 5].mu if established.count() > 2 * PAGE_SIZE + 5 else established.last().mu
    rate(me, target - 0.0001, 50)
    client.force_login(me)
    first = client.get(reverse("leaderboard"))
    rank = first.context["rank"]
    assert rank == established.filter(mu__gt=target - 0.0001).count() + 1
    assert 'data-testid="jump-to-me"' in first.content.decode()
    jump = client.get(reverse("leaderboard") + "?me=1")
    assert jump.status_code == 302 and jump.url.endswith(f"page={(rank - 1) // PAGE_SIZE + 1}#me")
    page = client.get(jump.url.split("#")[0])
    html = page.content.decode()
    assert 'class="is-you" id="me"' in html
    assert [row["rank"] for row in page.context["rows"] if row["username"] == "me"] == [rank]
    assert page.context["rows"][0]["rank"] == ((rank - 1) // PAGE_SIZE) * PAGE_SIZE + 1


def test_pages_and_their_bounds(client):
    call_command("seed_players", 130, verbosity=0)
    count = Rating.objects.filter(rated_deals__gte=20).count()
    last = (count - 1) // PAGE_SIZE + 1
    response = client.get(reverse("leaderboard") + "?page=999")
    assert response.context["page"] == last and len(response.context["rows"]) == count - (last - 1) * PAGE_SIZE
    assert client.get(reverse("leaderboard") + "?page=junk").context["page"] == 1
    assert client.get(reverse("leaderboard") + "?by=nonsense&period=;drop").context["board"].by == "rating"


def queries_of(client, url) -> int:
    with CaptureQueriesContext(connection) as context:
        assert client.get(url).status_code == 200
    return len(context)


@pytest.mark.parametrize("query", ["", "?period=season", "?by=points", "?by=points&period=season", "?provisional=1"])
def test_a_leaderboard_page_costs_a_few_queries_and_none_once_cached(client, make_user, query):
    """Beyond what every page of the site costs (the session, the viewer, the header),
    a leaderboard page reads its rows and their names, their count and the viewer's rank
    (three): six queries, and none while they are cached."""
    call_command("seed_players", 200, verbosity=0)
    me = make_user()
    rate(me, 1500, 30, season_deals=2)
    client.force_login(me)
    every_page = queries_of(client, "/rules/")
    assert queries_of(client, reverse("leaderboard") + query) <= every_page + 6
    assert queries_of(client, reverse("leaderboard") + query) == every_page


def test_season_points_follow_the_ledger(make_user):
    player = make_user()
    account_services.adjust_points(user=player, delta=40, note="")
    account_services.adjust_points(user=player, delta=-15, note="")
    assert SeasonScore.objects.get(user=player, season=season_of(timezone.now())).points == 25


# ----------------------------------------------------------------------------------------
# Player pages


def played(user, deal_id_offset, *, kind="match", won=True, place=1, partner=None, accuracy=None, match=None):
    from games.models import Deal, Match, Table

    table = Table.objects.create(kind=kind, tier="junior" if kind == "match" else "",
                                 invite_code=f"CODE{deal_id_offset:04d}" if kind == "friend" else None)
    match = match or Match.objects.create(table=table, number=1, seed=1)
    deal = Deal.objects.create(match=match, number=deal_id_offset, ruleset_version="test", seed=1,
                               hands=[[], [], [], []], active_level=0, team_levels_before=[0, 0])
    return PlayedDeal.objects.create(user=user, deal=deal, match=match, table_kind=kind, position=0, place=place,
                                     won=won, advance=1 if won else -1, partner=partner, accuracy=accuracy,
                                     finished_at=timezone.now())


@pytest.mark.rigged_deal
def test_the_player_page_shows_rating_history_figures_and_partners(client, make_user):
    player, friend, secret = make_user(username="mei", display_name="Mei"), make_user(display_name="Lan"), \
        make_user(display_name="Secret Friend")
    rate(player, 1523, 24)
    for number in range(1, 5):
        played(player, number, won=number != 2, place=1 if number in (1, 3) else 2, partner=friend,
               accuracy=80 + number)
    played(player, 5, kind="practice", won=False, place=4)
    played(player, 6, kind="friend", partner=secret)
    change = played(player, 7)
    for index, mu in enumerate((1500, 1540, 1510, 1523)):
        RatingChange.objects.create(user=player, deal=change.deal if index == 0 else played(player, 20 + index).deal,
                                    position=0, won=True, mu_before=mu - 10, sigma_before=100, mu_after=mu,
                                    sigma_after=99, rated_deals=21 + index,
                                    created_at=timezone.now() - datetime.timedelta(days=40 - index))
    response = client.get(reverse("player_profile", args=["mei"]))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-testid="player-rating">1523<' in html
    assert 'data-testid="rating-chart"' in html and "<polyline" in html
    figures = {row["kind"]: row for row in response.context["figures"]}
    assert set(figures) == {"match", "practice"}  # a friend table's play is the player's own business (R10.3)
    match = figures["match"]
    assert (match["deals"], match["wins"], match["firsts"]) == (8, 7, 6)
    assert match["accuracy"] == round((81 + 82 + 83 + 84) / 4) and match["analysed"] == 4
    assert [p["partner__profile__display_name"] for p in response.context["partners"]] == ["Lan"]
    assert "Secret Friend" not in html
    client.force_login(player)
    own = client.get(reverse("player_profile", args=["mei"]))
    assert {row["kind"] for row in own.context["figures"]} == {"match", "friend", "practice"}
    assert "Secret Friend" in own.content.decode()


def test_a_new_player_has_an_honest_empty_page(client, make_user):
    make_user(username="fresh")
    html = client.get(reverse("player_profile", args=["fresh"])).content.decode()
    assert "1500?" in html and "No rated deals yet" in html and "No finished deals yet" in html
    assert client.get(reverse("player_profile", args=["nobody"])).status_code == 404


@pytest.mark.rigged_deal
def test_a_player_page_costs_a_bounded_number_of_queries(client, make_user):
    """However many deals and matches: the user, profile, rating, rank (two), season,
    chart, figures, partners, matches (two) and their last deals."""
    player, partner = make_user(username="busy"), make_user()
    rate(player, 1600, 60)
    for number in range(1, 40):
        played(player, number, won=number % 3 != 0, partner=partner if number % 2 else None, accuracy=number)
    every_page = queries_of(client, "/rules/")
    assert queries_of(client, reverse("player_profile", args=["busy"])) <= every_page + 12
