"""Quick play (R10.9) and ratings (R10.10) in real browsers.

- Two players press Quick play at Junior in two browsers: both pages go to the same new
  match table by themselves, seated with two bots, within the bot-fill wait (the test
  server's ``GUANDAN_QUICKPLAY_BOT_FILL_AFTER``, tests/browser/conftest.py) plus a few
  seconds.
- They play the whole deal there through the page; the settlement shows each player's
  rating change, the seat plates the new ratings, and the player page the rating after
  the deal.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from games.engine.deal import PLAY, legal_actions
from games.live import selectors as live_selectors
from games.models import Table
from games.players.models import Rating

from .test_table_browser import button, play_selected, player_page, select_cards, submit_and_wait, wait_connected, \
    wait_for_turn_or_settlement

pytestmark = pytest.mark.browser

FILL_AFTER = 4.0  # the test server's bot-fill wait (tests/browser/conftest.py)
DEAL_BUDGET = 120


def press_quick_play(page) -> None:
    page.goto("/")
    panel = page.get_by_test_id("quickplay-panel")
    panel.get_by_label("Junior").check()
    panel.get_by_test_id("quickplay-go").click()
    expect(page.get_by_test_id("quickplay-waited")).to_be_visible()


def table_id_of(page) -> int:
    return int(re.search(r"/tables/(\d+)/", page.url).group(1))


def act_quickly(page, table_id: int, position: int) -> None:
    """Lead the play of the most cards (a short deal), follow by passing; tribute and
    return the first card the page allows."""
    if button(page, "tribute").count() or button(page, "return").count():
        kind = "tribute" if button(page, "tribute").count() else "return"
        select_cards(page, [page.locator("#tbl-hand .hand-check:not([disabled])").first.get_attribute("value")])
        assert submit_and_wait(page, button(page, kind).click) == "moved"
        return
    if button(page, "pass").is_enabled():
        assert submit_and_wait(page, button(page, "pass").click) == "moved"
        return
    state = live_selectors.deal_state(live_selectors.current_deal(Table.objects.get(pk=table_id)))
    plays = [a for a in legal_actions(state, position) if a.kind == PLAY]
    longest = max(plays, key=lambda action: (len(action.cards), -min(action.cards)))
    select_cards(page, [str(card) for card in longest.cards])
    assert play_selected(page) == "moved", page.locator("#tbl-message").inner_text()


def test_two_players_press_quick_play_and_play_a_rated_deal(new_context, site_url, make_user):
    players = [make_user(display_name="Quick Mei"), make_user(display_name="Quick Lan")]
    pages = [player_page(new_context, player, site_url) for player in players]
    for page in pages:
        press_quick_play(page)
    pressed = time.monotonic()
    for page in pages:
        page.wait_for_url(re.compile(r"/tables/\d+/$"), timeout=int((FILL_AFTER + 8) * 1000))
    seated_after = time.monotonic() - pressed
    assert seated_after < FILL_AFTER + 6, seated_after
    table_id = table_id_of(pages[0])
    assert table_id_of(pages[1]) == table_id
    table = Table.objects.get(pk=table_id)
    assert (table.kind, table.tier, table.status) == ("match", "junior", "playing")
    seats = {seat.user_id: seat.position for seat in table.seats.all() if seat.user_id}
    assert set(seats) == {p.pk for p in players} and table.seats.filter(is_bot=True).count() == 2
    for page in pages:
        wait_connected(page)
        expect(page.locator("#tbl-seats .seat-rating")).to_have_count(4)  # "1500?" and the bots' fixed ratings
        expect(page.locator("#tbl-seats")).to_contain_text("1500?")
    # Bots at their quickest, so the deal is short (the players act at once anyway).
    Table.objects.filter(pk=table_id).update(bot_speed="0.3")

    deadline = time.monotonic() + DEAL_BUDGET
    over = [False, False]
    while not all(over):
        assert time.monotonic() < deadline, f"the deal did not end in {DEAL_BUDGET} s"
        for index, (page, player) in enumerate(zip(pages, players)):
            if over[index]:
                continue
            outcome = wait_for_turn_or_settlement(page, timeout=3_000) if page.locator(
                "#tbl-status .turn.is-mine, #tbl-trick .settlement").count() else None
            if outcome == "over":
                over[index] = True
            elif outcome == "turn":
                act_quickly(page, table_id, seats[player.pk])
        time.sleep(0.05)

    for page, player in zip(pages, players):
        ratings = page.locator("#tbl-trick .settlement .settle-ratings li")
        expect(ratings).to_have_count(2)
        expect(ratings.filter(has_text="Quick Mei")).to_contain_text(re.compile(r"[+-]\d+"))
        row = Rating.objects.get(user=player)
        assert row.rated_deals == 1
        expect(page.locator("#tbl-trick .settlement")).to_contain_text(f"→ {round(row.mu)}?")
    # The player page shows the new rating and its first change on the chart.
    page = pages[0]
    page.goto(f"/players/{players[0].username}/")
    row = Rating.objects.get(user=players[0])
    expect(page.get_by_test_id("player-rating")).to_have_text(f"{round(row.mu)}?")
    expect(page.get_by_test_id("rating-chart")).to_be_visible()
    expect(page.get_by_test_id("deal-figures")).to_contain_text("Match")
    # On a phone the page does not scroll sideways: its wide tables scroll in their cards.
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    assert not pages[0].js_errors and not pages[1].js_errors


def test_the_community_pages_have_no_serious_accessibility_violations(new_context, site_url, make_user):
    """axe-core on the lobby's quick-play panel (choosing, then waiting), the quick-play
    page, the leaderboards, a player page, a waiting player's bar, and the table talk
    panel open at a table, on a phone and a laptop."""
    from django.core.management import call_command

    from games.tables import services as table_services

    from .test_accessibility import axe_problems

    call_command("seed_players", 60, prefix="axe", verbosity=0)
    player = make_user(display_name="Axe Quick")
    problems = []
    for width, height in ((390, 844), (1280, 800)):
        page = player_page(new_context, player, site_url, viewport={"width": width, "height": height},
                           reduced_motion="reduce", bypass_csp=True)
        page.goto("/")
        problems += axe_problems(page, f"lobby, quick play {width}")
        page.get_by_test_id("quickplay-go").click()
        expect(page.get_by_test_id("quickplay-waited")).to_be_visible()
        problems += axe_problems(page, f"lobby, waiting {width}")
        for path in ("/play/", "/leaderboard/", "/leaderboard/?by=points&period=season", "/leaderboard/?provisional=1",
                     f"/players/{player.username}/", "/players/axe000001/"):
            page.goto(path)
            problems += axe_problems(page, f"{path} {width}")
        page.goto("/leaderboard/?period=season")
        expect(page.locator("#qp-bar")).to_be_visible()
        problems += axe_problems(page, f"the waiting bar {width}")
        page.goto("/")
        page.get_by_test_id("quickplay-cancel").click()
        expect(page.get_by_test_id("quickplay-go")).to_be_visible()
        page.context.close()

    table = table_services.create_table(host=player, kind="practice", think_time=120, bot_speed=3.0)
    table_services.start_match(table=table, user=player)
    page = player_page(new_context, player, site_url, reduced_motion="reduce", bypass_csp=True)
    page.goto(f"/tables/{table.pk}/")
    wait_connected(page)
    page.locator("[data-talk-toggle]").click()
    expect(page.locator("#tbl-talk")).to_be_visible()
    problems += axe_problems(page, "table talk panel")
    page.locator('#talk-form button[value="thanks"]').click()
    expect(page.locator("#tbl-talk-1")).to_contain_text("Thanks!")
    problems += axe_problems(page, "a phrase by the seat")
    assert not problems, "\n".join(problems)
