"""In a real browser: sign up, create a practice table, and see it live in another
visitor's lobby as watchable but not joinable (R10.4)."""

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import PASSWORD

pytestmark = pytest.mark.browser


def sign_up(page, username, display_name):
    page.goto("/accounts/signup/")
    form = page.get_by_test_id("signup-form")
    form.get_by_label("Username").fill(username)
    form.get_by_label("Display name").fill(display_name)
    form.get_by_label("Password:", exact=True).fill(PASSWORD)
    form.get_by_label("Password confirmation").fill(PASSWORD)
    form.get_by_role("button", name="Create my account").click()
    expect(page.get_by_role("heading", name="Lobby", exact=True)).to_be_visible()
    expect(page.get_by_text(f"Welcome, {display_name}!")).to_be_visible()


def test_practice_table_is_watchable_not_joinable_from_another_browser(new_page):
    # A second visitor plays as a guest and keeps the lobby open (live over the WebSocket).
    watcher = new_page()
    watcher.goto("/")
    watcher.get_by_role("button", name="Play as guest").click()
    expect(watcher.get_by_text("You are playing as Guest")).to_be_visible()
    practice_section = watcher.locator('[data-section="practice"]')
    expect(practice_section.get_by_text("No practice tables right now.")).to_be_visible()

    # The host signs up and creates a practice table: seat 1 and three bots.
    host = new_page()
    sign_up(host, "lily", "Lily Wang")
    create = host.get_by_test_id("create-table-form")
    create.get_by_label("Kind of table").select_option("practice")
    create.get_by_role("button", name="Create table").click()
    expect(host).to_have_url(re.compile(r"/tables/\d+/$"))
    table_id = re.search(r"/tables/(\d+)/", host.url).group(1)
    seats = host.locator("#table-seats")
    expect(seats.locator(".seat")).to_have_count(4)
    expect(seats.get_by_text("Lily Wang")).to_be_visible()
    expect(seats.get_by_text("Bot")).to_have_count(3)
    expect(host.get_by_role("button", name="Start the match")).to_be_visible()

    # Without reloading, the watcher's lobby shows the table: watchable, not joinable.
    card = practice_section.locator(f'[data-table-id="{table_id}"]')
    expect(card).to_be_visible()
    expect(card.get_by_text("Lily Wang")).to_be_visible()
    expect(card.get_by_role("link", name=re.compile("^Watch"))).to_be_visible()
    expect(card.get_by_role("button")).to_have_count(0)

    # The same after a reload (the page's own render), and on the table page.
    watcher.reload()
    card = watcher.locator(f'[data-section="practice"] [data-table-id="{table_id}"]')
    expect(card.get_by_role("button")).to_have_count(0)
    card.get_by_role("link", name=re.compile("^Watch")).click()
    expect(watcher).to_have_url(re.compile(rf"/tables/{table_id}/$"))
    expect(watcher.get_by_test_id("watching")).to_contain_text("R10.4")
    expect(watcher.locator("#table-seats").get_by_role("button")).to_have_count(0)


def test_waiting_room_follows_seat_changes(new_page, make_user, make_table):
    """A match table's waiting room updates when another player sits down."""
    host_user = make_user(username="host", display_name="Host Player")
    table = make_table(host_user)

    guest_view = new_page()
    guest_view.goto(f"/tables/{table.pk}/")
    expect(guest_view.locator("#table-seats").get_by_text("Host Player")).to_be_visible()

    player = new_page()
    player.goto("/accounts/login/")
    player.get_by_label("Username").fill(make_user(username="second", display_name="Second Player").username)
    player.get_by_label("Password").fill(PASSWORD)
    player.get_by_role("button", name="Log in").click()
    player.goto(f"/tables/{table.pk}/")
    player.get_by_role("button", name="Take seat 3").click()
    expect(player.locator("#table-seats .seat--you")).to_contain_text("Second Player")

    expect(guest_view.locator("#table-seats").get_by_text("Second Player")).to_be_visible()
