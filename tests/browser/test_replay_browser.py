"""A replay in a real browser: open a finished deal, step with the button and the keyboard,
and find a known play from the stored log at its step (issue 6, R11.1)."""

import pytest
from django.db import transaction

from games.replays.log import replay_states
from games.tables import services
from tests.replays import factories


@pytest.fixture
def base_url(site_url):
    return site_url


@pytest.fixture
def finished_deal(make_user, base_url):
    """A finished deal, written in one transaction so the server's timers (bot turns, the
    sweep) never act on it half-built; then a staff member closes the table, so no timer
    deals or plays on while the browser looks."""
    with transaction.atomic():
        host, partner, staff = make_user(), make_user(), make_user(is_staff=True)
        match = factories.start_match_with_bots(host=host, partner=partner)
        (played,) = factories.play_deals(match, 1, seed=3)
        services.close_table(table=match.table, user=staff)
    return played.deal


def board_step(page) -> int:
    return int(page.locator("#replay-board").get_attribute("data-step"))


def wait_for_step(page, step: int) -> None:
    page.wait_for_function(
        "step => { const b = document.getElementById('replay-board');"
        " return b && b.dataset.step === String(step) && !b.classList.contains('htmx-request'); }",
        arg=step,
    )
    assert f"step={step}&" in page.url


@pytest.mark.browser
def test_step_through_a_replay_and_see_a_known_play(finished_deal, base_url, new_page):
    deal = finished_deal
    row = deal.actions.filter(kind="play").order_by("seq")[4]
    states = replay_states(deal)
    reading = states[row.seq].history[-1].reading.name
    expected = f"Seat {row.seat + 1} plays {reading}"

    page = new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    start = row.seq - 2
    page.goto(f"{base_url}/replays/deals/{deal.pk}/?step={start}&seat=all")
    assert board_step(page) == start
    assert expected not in page.locator(".replay-events").inner_text()

    # One step with the button: the address follows (hx-push-url).
    page.locator("#replay-next").click()
    wait_for_step(page, start + 1)

    # One step with the keyboard: the known play is on the table, with its reading.
    page.keyboard.press("ArrowRight")
    wait_for_step(page, row.seq)
    events = page.locator(".replay-events")
    assert expected in events.inner_text()
    for card in row.cards:
        assert events.locator(f'[data-card="{card}"]').count() == 1
    trick = page.locator(".replay-trick")
    assert reading in trick.inner_text()
    assert page.locator(".replay-log__list li.is-current").get_attribute("data-step") == str(row.seq)

    # Back, to the end (places and settlement), and home to the deal as dealt.
    page.keyboard.press("ArrowLeft")
    wait_for_step(page, row.seq - 1)
    page.keyboard.press("End")
    wait_for_step(page, deal.seq)
    deal.refresh_from_db()
    assert deal.result["explanation"] in page.locator("[data-testid=settlement]").inner_text()
    page.keyboard.press("Home")
    wait_for_step(page, 0)
    assert page.locator("#replay-board [data-card]").count() == 108

    # Play runs the steps on its own until paused.
    page.select_option("[data-replay-speed]", "0.5")
    page.locator("[data-replay-play]").click()
    page.wait_for_function("() => Number(document.getElementById('replay-board').dataset.step) >= 2")
    page.keyboard.press("Space")
    assert page.locator("[data-replay-play]").get_attribute("aria-pressed") == "false"

    # The browser's back button returns to an earlier step.
    page.go_back()
    page.wait_for_function("() => document.getElementById('replay-board') !== null")
    assert "step=" in page.url
    assert errors == []


@pytest.mark.browser
def test_a_step_link_opens_at_its_step(finished_deal, base_url, new_page):
    deal = finished_deal
    row = deal.actions.filter(kind="play").order_by("seq")[2]
    page = new_page()
    page.goto(f"{base_url}/replays/deals/{deal.pk}/?step={row.seq}&seat={row.seat + 1}")
    assert board_step(page) == row.seq
    shared = page.locator("[data-replay-share]").input_value()
    assert shared.endswith(f"/replays/deals/{deal.pk}/?step={row.seq}&seat={row.seat + 1}")
    # The seat's own hand is shown, the other hands are not (a seat's view, R9.3).
    hand = page.locator(f'.replay-seat[data-seat="{row.seat + 1}"] .replay-hand [data-card]')
    assert hand.count() > 0
    other = (row.seat + 1) % 4 + 1
    assert page.locator(f'.replay-seat[data-seat="{other}"] .replay-hand').count() == 0
