"""The table as a card table, in a real browser at the five viewports players use.

During the viewer's turn, at a practice table and at a table of four humans:

- the page does not scroll (document height <= viewport height, nothing wider);
- the hand, Play, Pass, Suggestion, the trick and all four seats' names are inside the
  viewport;
- every card of the hand leaves a visible strip of at least 24 x 44 CSS px;
- pressing on one card and sliding across others selects them all (a swipe);

and, once per viewport set: a straight played from the hand is drawn in ascending order
on the felt; the connection banner shows within 2 s of the server going away (a proxy
in front of the test server closes every connection) and is gone once it is back.
"""

from __future__ import annotations

import socket
import threading

import pytest
from playwright.sync_api import expect

from games.engine.cards import is_wild
from games.engine.deal import legal_actions
from games.engine.reading import STRAIGHT
from games.engine.replay import state_from_json
from games.models import Table
from games.tables import services

from .test_table_browser import (
    WATCH_SCRIPT, act_by_reading_the_page, button, current_deal_row, log_in, play_selected, player_page, select_cards,
    wait_connected, wait_for_turn_or_settlement,
)

pytestmark = pytest.mark.browser

VIEWPORTS = [(390, 844), (844, 390), (768, 1024), (1280, 800), (1920, 1080)]
MIN_STRIP = (24, 44)

# Each card's visible part: its box minus the cards drawn after it (they lie on top).
STRIPS_SCRIPT = """
() => {
  const cards = Array.from(document.querySelectorAll('#tbl-hand .hand label.card'));
  const boxes = cards.map(c => c.getBoundingClientRect());
  return boxes.map((r, i) => {
    let w = r.width, h = r.height;
    for (const o of boxes.slice(i + 1)) {
      const overlapsRows = o.top < r.bottom - 1 && o.bottom > r.top + 1;
      const overlapsCols = o.left < r.right - 1 && o.right > r.left + 1;
      if (overlapsRows && overlapsCols && o.left > r.left + 1 && Math.abs(o.top - r.top) < 2) { w = Math.min(w, o.left - r.left); }
      if (overlapsRows && overlapsCols && o.top > r.top + 2) { h = Math.min(h, o.top - r.top); }
    }
    return [Math.round(w * 10) / 10, Math.round(h * 10) / 10];
  });
}
"""


def inside(page, locator, what: str) -> None:
    width, height = page.evaluate("() => [innerWidth, innerHeight]")
    box = locator.bounding_box()
    assert box is not None, f"{what} is not shown"
    assert box["x"] >= -0.5 and box["y"] >= -0.5, (what, box)
    assert box["x"] + box["width"] <= width + 0.5 and box["y"] + box["height"] <= height + 0.5, (what, box, width, height)


def check_the_surface(page, width: int, height: int) -> None:
    """Everything a turn needs on one screen, at this viewport."""
    sizes = page.evaluate("""() => [document.documentElement.scrollHeight, document.documentElement.scrollWidth,
                                    innerHeight, innerWidth]""")
    assert sizes[2] == height and sizes[3] == width
    assert sizes[0] <= height, f"the page scrolls at {width}x{height}: {sizes[0]} px tall"
    assert sizes[1] <= width, f"the page scrolls sideways at {width}x{height}: {sizes[1]} px wide"
    inside(page, page.locator("#tbl-hand .hand"), "the hand")
    for value in ("play", "pass", "suggest"):
        inside(page, button(page, value), value)
    inside(page, page.locator("#tbl-trick"), "the trick")
    names = page.locator("#tbl-seats .seat-name")
    expect(names).to_have_count(4)
    for i in range(4):
        inside(page, names.nth(i), f"seat name {i + 1}")
    strips = page.evaluate(STRIPS_SCRIPT)
    assert strips, "no cards in the hand"
    for i, (w, h) in enumerate(strips):
        assert w >= MIN_STRIP[0] and h >= MIN_STRIP[1], f"card {i + 1} of {len(strips)} shows {w}x{h} at {width}x{height}"
    for i in range(len(strips)):
        inside(page, page.locator("#tbl-hand .hand label.card").nth(i), f"card {i + 1}")


def swipe_selects(page) -> None:
    """Press on the first card, slide over the next three, release: four are selected."""
    labels = page.locator("#tbl-hand .hand label.card")
    checks = page.locator("#tbl-hand .hand .hand-check")
    page.evaluate("() => document.querySelectorAll('#tbl-hand .hand-check').forEach(c => { c.checked = false; })")
    enabled = [i for i in range(labels.count()) if not checks.nth(i).is_disabled()][:4]
    first = labels.nth(enabled[0]).bounding_box()
    page.mouse.move(first["x"] + 6, first["y"] + 12)
    page.mouse.down()
    for i in enabled[1:]:
        box = labels.nth(i).bounding_box()
        page.mouse.move(box["x"] + 6, box["y"] + 12, steps=4)
    page.mouse.up()
    states = checks.evaluate_all("els => els.map(e => e.checked)")
    assert [states[i] for i in enabled] == [True] * len(enabled), (enabled, states, page.viewport_size)
    assert sum(states) == len(enabled)
    page.evaluate("() => document.querySelectorAll('#tbl-hand .hand-check').forEach(c => { c.checked = false; })")


def practice_table_at_my_turn(make_user):
    user = make_user(display_name="Mei Practice")
    table = services.create_table(host=user, kind=Table.Kind.PRACTICE, think_time=120, bot_speed=0.3)
    services.start_match(table=table, user=user)
    return table, user


def open_at_turn(new_context, user, site_url, table, width, height):
    page = player_page(new_context, user, site_url, viewport={"width": width, "height": height},
                       has_touch=width < 900)
    page.goto(f"/tables/{table.pk}/")
    wait_connected(page)
    to_play_phase_turn(page)
    return page


def to_play_phase_turn(page):
    """Wait for the player's turn, past a settlement, and give the tribute or the return
    when that is the turn (they show other buttons), until a turn of the play phase."""
    while wait_for_turn_or_settlement(page) != "turn":
        page.wait_for_function("() => !document.querySelector('#tbl-trick .settlement')", timeout=30_000)
    while not button(page, "play").count():
        assert act_by_reading_the_page(page) in ("tribute", "return")
        assert wait_for_turn_or_settlement(page) == "turn"


def test_practice_table_fits_one_screen_at_every_viewport(new_context, site_url, make_user):
    table, user = practice_table_at_my_turn(make_user)
    for width, height in VIEWPORTS:
        page = open_at_turn(new_context, user, site_url, table, width, height)
        check_the_surface(page, width, height)
        swipe_selects(page)
        assert not page.js_errors
        page.context.close()


def test_four_human_table_fits_one_screen_at_every_viewport(new_context, site_url, make_user):
    users = [make_user(display_name=name) for name in ("Ana Li", "Bo Chen", "Cai Wu", "Dan Xu")]
    table = services.create_table(host=users[0], kind=Table.Kind.FRIEND, think_time=120)
    for position, user in enumerate(users[1:], start=1):
        services.take_seat(table=table, user=user, position=position, invite_code=table.invite_code)
    services.start_match(table=table, user=users[0])
    deal = current_deal_row(table.pk)
    seat = state_from_json(deal.state).to_act[0]
    for width, height in VIEWPORTS:
        page = player_page(new_context, users[seat], site_url, viewport={"width": width, "height": height},
                           has_touch=width < 900)
        page.goto(f"/tables/{table.pk}/")
        wait_connected(page)
        assert wait_for_turn_or_settlement(page) == "turn"
        check_the_surface(page, width, height)
        swipe_selects(page)
        assert not page.js_errors
        page.context.close()


def natural_straights(state) -> list:
    """The seat's legal straights made without a wild card (R3.1)."""
    return [a for a in legal_actions(state, 0) if a.kind == "play" and a.reading.shape == STRAIGHT
            and not any(is_wild(c, state.level) for c in a.cards)]


def practice_table_leading_a_straight(make_user):
    """A practice table whose first deal the player leads holding a straight without a wild:
    deals are drawn until one comes (one in six or so), the others' tables closed. Waiting
    for such a lead in play could take the whole deal and the next."""
    staff = make_user(is_staff=True)
    for _ in range(100):
        table, user = practice_table_at_my_turn(make_user)
        state = state_from_json(current_deal_row(table.pk).state)
        if state.leading and state.turn == 0 and natural_straights(state):
            return table, user
        services.close_table(table=table, user=staff)
    raise AssertionError("a hundred deals and no lead with a straight")


def test_a_straight_is_drawn_in_ascending_order(new_context, site_url, make_user):
    table, user = practice_table_leading_a_straight(make_user)
    page = open_at_turn(new_context, user, site_url, table, 390, 844)
    # Nothing moves before the player's lead (the page opened at it).
    state = state_from_json(current_deal_row(table.pk).state)
    straights = natural_straights(state)
    assert state.leading and state.turn == 0 and straights
    action = straights[0]
    # Every announcement from here on (the bots' moves replace it within 0.3 s).
    page.evaluate("""() => {
        window.__announced = [];
        const box = document.getElementById('play-announce');
        new MutationObserver(() => window.__announced.push(box.textContent))
            .observe(box, {childList: true, characterData: true, subtree: true});
    }""")
    # Select in the order least like the reading: highest first.
    select_cards(page, [str(c) for c in reversed(action.cards)])
    assert play_selected(page, action.reading.name) == "moved"
    mine = page.locator("#tbl-seats .seat-1 .seat-last .move")
    expect(mine).to_contain_text("straight")
    ranks = mine.locator(".card .card-rank").all_inner_texts()
    order = "A 2 3 4 5 6 7 8 9 10 J Q K A".split()
    reading = mine.locator(".move-reading").inner_text()  # "straight 10-A"
    low, high = reading.split()[-1].split("-")
    start = order.index(low)
    assert ranks == order[start:start + 5], (ranks, reading)
    assert ranks[-1] == high
    # A screen reader hears each play as it is made, with the seat's name and the play.
    page.wait_for_function(
        "name => window.__announced.some(t => t.includes(name) && t.includes('Mei'))",
        arg=action.reading.name, timeout=20_000,
    )


class Proxy:
    """A TCP relay in front of the test server: ``cut()`` closes every connection and
    stops listening (the server went away for the browser); ``restore()`` listens again
    on the same port."""

    def __init__(self, upstream_port: int):
        self.upstream = ("127.0.0.1", upstream_port)
        self.port = None
        self.sockets: list[socket.socket] = []
        self.listener = None
        self.lock = threading.Lock()

    def start(self):
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", self.port or 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()
        return self

    def _accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self):
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
        except OSError:
            pass
        self.listener.close()
        with self.lock:
            for s in self.sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            self.sockets = []

    def restore(self):
        self.start()


def test_the_connection_banner_follows_the_server(new_context, live_site, site_url, make_user):
    table, user = practice_table_at_my_turn(make_user)
    proxy = Proxy(live_site.port).start()
    try:
        url = f"http://127.0.0.1:{proxy.port}"
        context = new_context(base_url=url, viewport={"width": 390, "height": 844})
        log_in(context, user, url)
        context.add_init_script(WATCH_SCRIPT)
        page = context.new_page()
        page.goto(f"/tables/{table.pk}/")
        banner = page.locator("#play-connection")
        expect(page.locator("#tbl-hand .hand")).to_be_visible()
        wait_connected(page)
        expect(banner).to_be_hidden()
        proxy.cut()
        expect(banner).to_be_visible(timeout=2_000)
        inside(page, banner, "the connection banner")
        expect(banner).to_contain_text("reconnecting")
        # Controls are off while offline.
        for b in page.locator("#tbl-controls button").all():
            expect(b).to_be_disabled()
        proxy.restore()
        expect(banner).to_be_hidden(timeout=30_000)
        expect(page.locator("#tbl-controls button[value='clear']")).to_be_enabled()
    finally:
        proxy.cut()
