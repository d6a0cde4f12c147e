"""A tournament in a real browser: a player registers and sends the partner link, the
partner joins by it; both wait on the tournament's page, which takes them to their
table when round 1 starts (the server's own scheduler closes registration and starts
the round); they play the board through the table's page; then the tournament's page
shows the final standings live, and the board's page every table's result and who held
which cards (R13.1-R13.6)."""

from __future__ import annotations

import re
import time
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from games.tournaments import services
from games.tournaments.models import Registration, Tournament

from .test_accessibility import axe_problems
from .test_table_browser import act_by_reading_the_page, log_in

pytestmark = pytest.mark.browser

BUDGET = 240  # seconds for the whole test


def test_a_pair_registers_plays_a_board_and_sees_the_standings(new_context, site_url, make_user):
    organiser = make_user(is_staff=True)
    first, second = make_user(display_name="Mei"), make_user(display_name="Li")
    others = [[make_user(), make_user()] for _ in range(2)]
    now = timezone.now()
    start = now + timedelta(seconds=30)
    tournament = services.create_tournament(
        organiser=organiser, name="Browser cup", format="duplicate", rounds=1, boards_per_round=1, think_time=60,
        registration_closes_at=start, starts_at=start, round_break=0, bot_speed=Decimal("0.3"))
    for a, b in others:  # two more pairs, away: the autopilot plays them (R13.5)
        entrant = services.register(tournament=tournament, user=a)
        services.join_partner(tournament=tournament, user=b, code=entrant.partner_code)
    Registration.objects.filter(tournament=tournament).update(seen_at=now - timedelta(hours=1))

    pages = []
    for user in (first, second):
        context = new_context()
        log_in(context, user, site_url)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
        page.js_errors = errors
        pages.append(page)
    mei, li = pages

    # Mei registers alone and copies her partner link; Li opens it and joins.
    mei.goto(f"/tournaments/{tournament.pk}/")
    mei.get_by_role("button", name="Register").click()
    link = mei.get_by_test_id("trn-partner-link").get_attribute("href")
    assert re.search(rf"/tournaments/{tournament.pk}/partner/\w+/$", link)
    li.goto(link)
    li.get_by_role("button", name="Join as partner").click()
    expect(li.get_by_test_id("trn-you")).to_contain_text("Mei")
    mei.reload()
    expect(mei.get_by_test_id("trn-you")).not_to_contain_text("partner link")

    # Round 1 starts by itself: both pages go to the table.
    for page in pages:
        page.wait_for_url(re.compile(r"/tables/\d+/$"), timeout=60_000)
        expect(page.locator("#tbl-hand")).to_be_visible()
    assert mei.url == li.url, "partners sit at one table"
    assert "Board 1" in mei.locator("#tbl-status .deal-no").inner_text()

    # They play the board from the page until it is settled.
    deadline = time.monotonic() + BUDGET
    settled = set()
    while len(settled) < 2:
        assert time.monotonic() < deadline, "the board did not end"
        for index, page in enumerate(pages):
            if index in settled:
                continue
            state = page.evaluate("""() => document.querySelector('#tbl-trick .settlement') ? 'over'
                : (document.querySelector('#tbl-status .turn.is-mine') ? 'turn' : '')""")
            if state == "over":
                settled.add(index)
            elif state == "turn":
                act_by_reading_the_page(page)
        time.sleep(0.1)
    expect(mei.get_by_test_id("settlement")).to_contain_text("win the board")

    # Back on the tournament's page, the final standings arrive when the other table is done.
    follow_the_settlements_link(mei, "Back to the tournament", re.compile(rf"/tournaments/{tournament.pk}/$"))
    expect(mei.get_by_test_id("trn-standings")).to_contain_text("Final standings", timeout=120_000)
    expect(mei.get_by_test_id("trn-standings")).to_contain_text("Mei & Li")
    assert Tournament.objects.get(pk=tournament.pk).status == "finished"
    mei.get_by_role("link", name="Board 1").click()
    comparison = mei.get_by_test_id("board-comparison")
    expect(comparison).to_contain_text("Mei & Li")
    assert comparison.locator("tbody tr").count() == 2
    assert mei.locator(".trn-hand [data-card]").count() == 108
    assert all(not page.js_errors for page in pages), [page.js_errors for page in pages]

    # The tournament's pages have no serious accessibility violation (axe-core), in the
    # player's view, on a phone and a laptop.
    problems = []
    for width, height in ((390, 844), (1280, 800)):
        context = new_context(bypass_csp=True, viewport={"width": width, "height": height}, reduced_motion="reduce")
        log_in(context, first, site_url)
        page = context.new_page()
        for path in ("/tournaments/", f"/tournaments/{tournament.pk}/", f"/tournaments/{tournament.pk}/rounds/1/boards/1/",
                     f"/tournaments/{tournament.pk}/pairs/1/", "/tournaments/new/"):
            page.goto(path)
            page.wait_for_load_state("networkidle")
            problems += axe_problems(page, f"{path} at {width}x{height}")
    assert not problems, problems


def follow_the_settlements_link(page, name: str, url, attempts: int = 3) -> None:
    """Click a link of the settlement until the page has gone where it leads. The table's
    socket can swap the settlement in again while the click lands (any change to the
    table after the board: a seat's presence, the next round's news), and a click on the
    node being replaced goes nowhere; a player would click again. Seen once on a loaded
    machine: the page stayed on the table for the whole two minutes."""
    for attempt in range(attempts):
        page.get_by_role("link", name=name).click()
        try:
            page.wait_for_url(url, timeout=15_000)
            return
        except PlaywrightTimeoutError:
            if attempt == attempts - 1:
                raise
