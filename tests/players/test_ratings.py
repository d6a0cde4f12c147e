"""Ratings (R10.10): the team model's updates (openskill's), who is rated at a
settlement, the stored history, and recomputing every rating from the stored deals."""

import math
import random

import pytest
from django.core.management import call_command
from hypothesis import given
from hypothesis import strategies as st

from games.live import door, render
from games.live import selectors as live_selectors
from games.models import Deal
from games.players import rating
from games.players.models import PlayedDeal, Rating, RatingChange, SeasonScore
from games.players.models import season_of
from games.players.services import recompute_ratings
from games.tables import services as table_services
from tests.live.helpers import play_out

# Settlements run their announcements and timers on commit.
pytestmark = pytest.mark.django_db(transaction=True)


def hand_computed_update(team_mus, sigma, winner):
    """Weng & Lin's Plackett-Luce update for two teams of two players of equal
    uncertainty, written out from the paper (Algorithm 4) with the model's parameters:
    the numbers the library must give."""
    beta, tau = rating.MODEL.beta, rating.MODEL.tau
    sigma = math.sqrt(sigma ** 2 + tau ** 2)  # the dynamics term first
    team_var = 2 * sigma ** 2
    c = math.sqrt(2 * (team_var + beta ** 2))
    strength = [math.exp(mu / c) for mu in team_mus]
    loser = 1 - winner
    p_winner_first = strength[winner] / (strength[0] + strength[1])
    out = {}
    for team in (0, 1):
        if team == winner:
            omega = (1 - p_winner_first)
            delta = p_winner_first * (1 - p_winner_first)
        else:
            p = strength[loser] / (strength[0] + strength[1])
            omega = -p
            delta = p * (1 - p)
        omega *= team_var / c
        delta *= team_var / c ** 2 * (math.sqrt(team_var) / c)
        share = sigma ** 2 / team_var
        out[team] = (share * omega, sigma * math.sqrt(max(1 - share * delta, rating.MODEL.kappa)))
    return out


@pytest.mark.parametrize(("mus", "winner"), [((1500, 1500), 0), ((1500, 1500), 1), ((1800, 1400), 1), ((1650, 1500), 0)])
def test_the_update_is_the_papers_plackett_luce_by_the_library(mus, winner):
    """A few updates computed by hand from Weng & Lin's formulas equal openskill's."""
    skills = [rating.Skill(mus[p % 2], 300) for p in range(4)]  # each team: two players of one rating
    after = rating.rate_deal(skills, winner)
    expected = hand_computed_update([2 * mus[0], 2 * mus[1]], 300, winner)
    for position in range(4):
        change, sigma = expected[position % 2]
        assert after[position].mu == pytest.approx(skills[position].mu + change, abs=1e-9)
        assert after[position].sigma == pytest.approx(sigma, abs=1e-9)


def test_two_new_teams_move_by_the_same_amount_up_and_down():
    after = rating.rate_deal([rating.Skill()] * 4, 1)
    assert after[1].mu - 1500 == pytest.approx(1500 - after[0].mu)
    assert after[1] == after[3] and after[0] == after[2]
    assert 100 < after[1].mu - 1500 < 140  # about a 118-point swing at the start
    assert after[0].sigma < rating.START_SIGMA


@given(st.lists(st.floats(800, 2400), min_size=4, max_size=4), st.lists(st.floats(40, 500), min_size=4, max_size=4),
       st.integers(0, 1))
def test_winners_never_lose_and_losers_never_gain(mus, sigmas, winner):
    skills = [rating.Skill(mu, sigma) for mu, sigma in zip(mus, sigmas)]
    after = rating.rate_deal(skills, winner)
    for position in range(4):
        if position % 2 == winner:
            assert after[position].mu >= skills[position].mu
        else:
            assert after[position].mu <= skills[position].mu
        assert 0 < after[position].sigma <= math.sqrt(skills[position].sigma ** 2 + rating.MODEL.tau ** 2)


def test_bots_have_a_fixed_rating_per_level_and_shown_ratings_mark_provisional():
    assert rating.bot_skill("easy").mu < rating.bot_skill("normal").mu < rating.bot_skill("hard").mu
    assert rating.shown(1511.6, 19) == "1512?" and rating.shown(1511.6, 20) == "1512"


# ----------------------------------------------------------------------------------------
# At a table


def _play_deals(table, users, timers, count, seed=3):
    """Play ``count`` deals at the table (humans by seat in ``users``, bots by their
    timers), each settled and the next dealt; returns the table's finished deals."""
    rng = random.Random(seed)
    by_seat = dict(enumerate(users)) if isinstance(users, list) else users
    for _ in range(count):
        deal = play_out(table, by_seat, timers, rng=rng)
        assert deal.finished_at is not None
        timers.pending.clear()  # think-time timers of players who acted long before
        door.start_next_deal(table_id=table.pk, deal_id=deal.pk)
        table.refresh_from_db()
        if table.status != table.Status.PLAYING:
            break
    return Deal.objects.filter(match__table=table, finished_at__isnull=False).order_by("number")


def test_a_settled_match_deal_rates_its_four_players(playing_table, timers):
    """R10.10: after a deal at a match table every human's rating changes by the model,
    each change is stored with its deal, and the settlement shows it."""
    table, users = playing_table
    deal = _play_deals(table, users, timers, 1).first()
    winner_team = deal.result["winner_team"]
    changes = {change.user_id: change for change in RatingChange.objects.filter(deal=deal)}
    assert set(changes) == {user.pk for user in users}
    expected = rating.rate_deal([rating.Skill()] * 4, winner_team)
    for position, user in enumerate(users):
        change = changes[user.pk]
        assert (change.position, change.won) == (position, position % 2 == winner_team)
        assert (change.mu_before, change.sigma_before) == (rating.START_MU, rating.START_SIGMA)
        assert change.mu_after == pytest.approx(expected[position].mu)
        row = Rating.objects.get(user=user)
        assert (row.mu, row.sigma, row.rated_deals) == (change.mu_after, change.sigma_after, 1)
        assert deal.result["ratings"][str(position)] == {
            "before": "1500?", "after": rating.shown(change.mu_after, 1), "delta": change.delta}
        assert deal.result["seats"][position] == {"user": user.pk}
        season = SeasonScore.objects.get(user=user, season=season_of(deal.finished_at))
        assert (season.rated_deals, season.mu, season.provisional) == (1, change.mu_after, True)
    # The settlement overlay shows each change; the next deal's plates the new ratings.
    scene = render.scene_for(table, deal)
    html = render.render_public(scene)
    assert html.count('class="rating-delta') == 4
    for user in users:
        assert rating.shown(Rating.objects.get(user=user).mu, 1) in html
    current = render.scene_for(table, live_selectors.current_deal(table))
    assert current.deal_id != deal.pk
    assert {info.rating for info in current.seats.values()} == {rating.shown(r.mu, 1) for r in Rating.objects.all()}


def test_bots_keep_their_rating_and_sit_in_the_model_at_it(make_user, make_table, timers):
    """R10.10 with R10.2: two humans and two bots; only the humans change, each rated
    against the bots' fixed ratings."""
    host, partner = make_user(), make_user()
    table = make_table(host, bot_level="easy")
    table_services.take_seat(table=table, user=partner, position=2)
    table_services.fill_with_bots(table=table, user=host)
    table_services.start_match(table=table, user=host)
    deal = _play_deals(table, {0: host, 2: partner}, timers, 1).first()
    assert deal.result["seats"] == [{"user": host.pk}, {"bot": "easy"}, {"user": partner.pk}, {"bot": "easy"}]
    assert set(RatingChange.objects.filter(deal=deal).values_list("user_id", flat=True)) == {host.pk, partner.pk}
    expected = rating.rate_deal([rating.Skill(), rating.bot_skill("easy")] * 2, deal.result["winner_team"])
    assert Rating.objects.get(user=host).mu == pytest.approx(expected[0].mu)
    scene = render.scene_for(table, deal)
    assert scene.seats[1].rating == str(round(rating.BOT_MU["easy"]))


def test_a_mostly_automatic_player_is_not_rated(playing_table, timers, monkeypatch):
    """R10.8 and R10.10: a deal that earns a player no points does not change that
    player's rating (their rating still weighs in their team's)."""
    table, users = playing_table
    monkeypatch.setattr(door, "_mostly_automatic_seats", lambda deal, seats: [1])
    deal = _play_deals(table, users, timers, 1).first()
    assert deal.result["no_points_r10_8"] == [1]
    assert not RatingChange.objects.filter(deal=deal, user=users[1]).exists()
    assert RatingChange.objects.filter(deal=deal).count() == 3
    assert "1" not in deal.result["ratings"]
    played = PlayedDeal.objects.get(deal=deal, user=users[1])
    assert played.assisted


@pytest.mark.parametrize("kind", ["friend", "practice"])
def test_friend_and_practice_deals_are_recorded_but_not_rated(kind, make_user, make_table, timers):
    host = make_user()
    table = make_table(host, kind=kind)
    if kind == "friend":
        guest = make_user()
        table_services.take_seat(table=table, user=guest, position=2, invite_code=table.invite_code)
        table_services.fill_with_bots(table=table, user=host)
        humans = {0: host, 2: guest}
    else:
        humans = {0: host}
    table_services.start_match(table=table, user=host)
    deal = _play_deals(table, humans, timers, 1).first()
    assert not RatingChange.objects.exists() and deal.result["ratings"] == {}
    assert set(PlayedDeal.objects.filter(deal=deal).values_list("user_id", flat=True)) == {u.pk for u in humans.values()}
    played = PlayedDeal.objects.get(deal=deal, user=host)
    assert played.place == deal.result["places"].index(0) + 1
    assert played.won == (deal.result["winner_team"] == 0)
    assert render.scene_for(table, deal).seats[0].rating == ""  # no ratings off match tables


def test_ratings_are_provisional_for_twenty_rated_deals(playing_table, timers):
    table, users = playing_table
    row = Rating.objects.create(user=users[0], mu=1600, sigma=120, rated_deals=19)
    assert row.shown == "1600?"
    _play_deals(table, users, timers, 1)
    row.refresh_from_db()
    assert row.rated_deals == 20 and not row.shown.endswith("?")


def test_recompute_gives_the_same_numbers_from_the_stored_deals(playing_table, timers, make_user, make_table):
    """``manage.py recompute_ratings`` folds the model over the stored deals and finds
    exactly what the settlements stored, across two tables sharing a player."""
    table, users = playing_table
    _play_deals(table, users, timers, 2)
    table_services.leave_seat(table=table, user=users[3])  # a bot plays on for them (R10.7)
    _play_deals(table, users[:3], timers, 1, seed=8)
    other_host = make_user()
    other = make_table(other_host)
    table_services.take_seat(table=other, user=users[3], position=1)
    table_services.fill_with_bots(table=other, user=other_host)
    table_services.start_match(table=other, user=other_host)
    _play_deals(other, {0: other_host, 1: users[3]}, timers, 1, seed=9)
    stored = {r.user_id: (r.mu, r.sigma, r.rated_deals) for r in Rating.objects.all()}
    history = sorted(RatingChange.objects.values_list("user_id", "deal_id", "mu_before", "mu_after", "sigma_after"))
    seasons = sorted(SeasonScore.objects.values_list("user_id", "season", "points", "rated_deals", "mu", "provisional"))
    assert len(history) >= 4 * 2 + 3 + 2
    Rating.objects.update(mu=1000, sigma=1, rated_deals=99)  # garbage, then recompute
    outcome = recompute_ratings()
    assert outcome["differ"] == len(stored)
    assert {r.user_id: (r.mu, r.sigma, r.rated_deals) for r in Rating.objects.all()} == stored
    assert sorted(RatingChange.objects.values_list("user_id", "deal_id", "mu_before", "mu_after", "sigma_after")) == history
    assert sorted(SeasonScore.objects.values_list("user_id", "season", "points", "rated_deals", "mu", "provisional")) == seasons
    call_command("recompute_ratings", verbosity=0)
    assert recompute_ratings()["differ"] == 0


def test_a_finished_match_at_a_match_table_offers_quick_play_again(playing_table, timers):
    """The match's last settlement leads straight back to the queue (R10.9)."""
    table, users = playing_table
    deal = _play_deals(table, users, timers, 1).first()
    scene = render.scene_for(table, deal)
    assert 'data-testid="quickplay-again"' not in render.render_public(scene)  # the match goes on
    scene.match_status = "finished"
    assert 'data-testid="quickplay-again"' in render.render_public(scene)
    scene.kind = "friend"
    assert 'data-testid="quickplay-again"' not in render.render_public(scene)


def test_a_players_own_data_holds_their_rating_history_and_records(playing_table, timers):
    """"Download my data" (accounts.export) carries the rating, every change, the seasons
    and each deal's record."""
    from accounts.export import export_for

    table, users = playing_table
    deal = _play_deals(table, users, timers, 1).first()
    data = export_for(users[0])
    assert data["rating"]["rated_deals"] == 1 and len(data["rating"]["changes"]) == 1
    assert data["rating"]["changes"][0]["deal"] == deal.pk and data["rating"]["seasons"][0]["rated_deals"] == 1
    assert [record["deal"] for record in data["deal_records"]] == [deal.pk]
    assert data["deal_records"][0]["partner"] == users[2].get_username()
