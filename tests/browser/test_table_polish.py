"""What a player still tripped over at the table, checked in a real browser at the five
viewports players use: auto play visible on the table with one tap to stop it, even over
the settlement; every seat's play, its badge and its caption inside the viewport; the
card counter."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import Table
from games.live.render import forget_scenes
from games.tables import services

from .test_table_browser import player_page, wait_connected
from .test_table_surface import VIEWPORTS

pytestmark = pytest.mark.browser

SETTLEMENT_TIMEOUT_MS = 180_000

HIT_SCRIPT = """
(el) => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return Boolean(hit && (hit === el || el.contains(hit)));
}
"""


def shown_and_inside(page, locator, what: str) -> None:
    """``locator`` is inside the viewport and nothing lies over its middle (a tap lands on it)."""
    width, height = page.evaluate("() => [innerWidth, innerHeight]")
    box = locator.bounding_box()
    assert box is not None, f"{what} is not shown at {width}x{height}"
    assert box["x"] >= -0.5 and box["y"] >= -0.5, (what, box, width, height)
    assert box["x"] + box["width"] <= width + 0.5 and box["y"] + box["height"] <= height + 0.5, (what, box, width, height)
    assert locator.evaluate(HIT_SCRIPT), f"{what} is covered at {width}x{height}"


def practice_table(make_user, name):
    user = make_user(display_name=name)
    table = services.create_table(host=user, kind=Table.Kind.PRACTICE, think_time=120, bot_speed=0.3)
    services.start_match(table=table, user=user)
    return table, user


def test_auto_play_shows_on_the_table_with_one_tap_to_stop_it(new_context, site_url, make_user):
    """In Chinese, at every viewport, during the deal and over its settlement."""
    table, user = practice_table(make_user, "Ai Auto")
    pages = []
    for width, height in VIEWPORTS:
        page = player_page(new_context, user, site_url, viewport={"width": width, "height": height},
                           reduced_motion="reduce", locale="zh-CN")
        page.goto(f"/tables/{table.pk}/")
        wait_connected(page)
        pages.append(page)
    first = pages[0]
    expect(first.locator("[data-testid=auto-play-on]")).to_have_count(0)
    # Switched on from the menu, as a player does.
    first.locator(".drawer-toggle").click()
    first.locator("#auto-interval").select_option("0.3")
    first.locator("#auto-form button[value=auto-on]").click()
    first.keyboard.press("Escape")
    for page in pages:
        note = page.locator("[data-testid=auto-play-on]")
        expect(note).to_be_visible(timeout=15_000)
        size = page.viewport_size
        shown_and_inside(page, note.locator("button[value=auto-off]"), f"auto play's stop at {size}")
        shown_and_inside(page, note.locator(".badge"), f"auto play's badge at {size}")
    # It carries on to the deal's end: the stop is still there over the settlement.
    for page in pages:
        page.wait_for_selector("#tbl-trick .settlement", timeout=SETTLEMENT_TIMEOUT_MS)
        expect(page.locator("#tbl-trick .settlement")).to_be_visible()
        shown_and_inside(page, page.locator("[data-testid=auto-play-on] button[value=auto-off]"),
                         f"auto play's stop over the settlement at {page.viewport_size}")
        # The settlement's title never breaks a word of its own (我方 / 对方) across lines.
        for tag in page.locator("#tbl-trick .settlement .us-tag, #tbl-trick .settlement .them-tag").all():
            if tag.is_visible():
                assert tag.evaluate("e => e.getClientRects().length") == 1, (tag.inner_text(), page.viewport_size)
    first.locator("[data-testid=auto-play-on] button[value=auto-off]").click()
    for page in pages:
        expect(page.locator("[data-testid=auto-play-on]")).to_have_count(0, timeout=15_000)


def table_of_long_plays(make_user):
    """A friend table of four players whose trick holds four long plays: a triple run (钢板,
    6 cards), a straight flush, an 8-card bomb and, on top, a 10-card bomb with both wilds
    (level 2), each played through the door by its seat."""
    from dataclasses import replace

    from games.engine.cards import parse_faces
    from games.engine.deal import new_deal
    from games.engine.replay import state_to_json
    from games.live import door
    from games.live.selectors import current_deal

    users = [make_user(display_name=f"Long Play {n}") for n in range(1, 5)]
    table = services.create_table(host=users[0], kind=Table.Kind.FRIEND, think_time=120)
    for position, other in enumerate(users[1:], start=1):
        services.take_seat(table=table, user=other, position=position, invite_code=table.invite_code)
    services.start_match(table=table, user=users[0])
    plays = [["7S", "7H", "7C", "8S", "8H", "8C"], ["5C", "6C", "7C", "8C", "9C"],
             ["4S", "4S", "4H", "4H", "4C", "4C", "4D", "4D"],
             ["QS", "QS", "QH", "QH", "QC", "QC", "QD", "QD", "2H", "2H"]]
    ids = parse_faces([face for play in plays for face in play])
    chosen, start = [], 0
    for play in plays:
        chosen.append(ids[start:start + len(play)])
        start += len(play)
    rest = [c for c in range(108) if c not in ids]
    hands = []
    for play in chosen:
        need = 27 - len(play)
        hands.append(play + rest[:need])
        rest = rest[need:]
    deal = current_deal(table)
    state = replace(new_deal(hands=hands, level=0, team_levels=(0, 0), prev_places=None, seed=deal.seed),
                    lead_seat=0, turn=0)
    deal.hands, deal.state = hands, state_to_json(state)
    deal.save()
    forget_scenes()  # the deal changed outside the door
    for seat, play in enumerate(chosen):
        deal.refresh_from_db()
        door.submit_action(table_id=table.pk, seat=seat, kind="play", cards=play, reading=None,
                           expected_deal=deal.pk, expected_seq=deal.seq, user=users[seat])
    return table, users


@pytest.mark.rigged_deal
def test_every_seats_longest_play_stays_inside_the_viewport(new_context, site_url, make_user):
    table, users = table_of_long_plays(make_user)
    for width, height in VIEWPORTS:
        for seat, user in enumerate(users):
            page = player_page(new_context, user, site_url, viewport={"width": width, "height": height},
                               reduced_motion="reduce")
            page.goto(f"/tables/{table.pk}/")
            wait_connected(page)
            lasts = page.locator("#tbl-seats .seat-last")
            expect(lasts.locator(".move")).to_have_count(4)
            expect(page.locator("#tbl-seats .top-mark")).to_have_count(1)
            for n in range(4):
                last = lasts.nth(n)
                where = f"seat {n + 1}'s play seen from seat {seat + 1} at {width}x{height}"
                cards = last.locator(".card")
                shown_and_inside(page, cards.first, where + ", first card")
                shown_and_inside(page, cards.last, where + ", last card")
                shown_and_inside(page, last.locator(".move-reading"), where + ", caption")
                reading = last.locator(".move-reading")
                assert reading.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), where + ": caption cut"
            shown_and_inside(page, page.locator("#tbl-seats .top-mark"), f"the top badge seen from seat {seat + 1} at {width}x{height}")
            page.context.close()


# The contrast of an element's text with what lies behind it: its colour against the first
# ancestor's solid background (WCAG 2's relative luminance), from computed styles.
CONTRAST_SCRIPT = """
(el) => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  let bg = null;
  for (let node = el; node; node = node.parentElement) {
    const c = rgb(getComputedStyle(node).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] >= 0.99)) { bg = c.slice(0, 3); break; }
  }
  bg = bg || [255, 255, 255];
  const fg = rgb(getComputedStyle(el).color).slice(0, 3);
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return Math.round((a + 0.05) / (b + 0.05) * 100) / 100;
}
"""


def show_a_refusal(page) -> None:
    """Select two plain cards of different ranks (never a combination, R4.11) and press
    Play: the table refuses, citing the rule, with a link to it."""
    from games.engine.cards import RANK_OF

    from .test_table_browser import button, select_cards

    cards = page.locator("#tbl-hand .hand label.card:not(.card-wild)").evaluate_all(
        "els => els.map(e => Number(e.getAttribute('data-card')))")
    first = cards[0]
    second = next(c for c in cards if RANK_OF[c] != RANK_OF[first])
    select_cards(page, [first, second])
    button(page, "play").click()
    expect(page.locator("#tbl-message.tbl-message-error a.rule-link")).to_be_visible()


def test_a_refusals_rule_link_reads_clearly(new_context, site_url, make_user):
    from .test_table_surface import to_play_phase_turn

    table, user = practice_table(make_user, "Ru Refused")
    for width, height in ((390, 844), (1280, 800)):
        page = player_page(new_context, user, site_url, viewport={"width": width, "height": height},
                           reduced_motion="reduce")
        page.goto(f"/tables/{table.pk}/")
        wait_connected(page)
        to_play_phase_turn(page)
        show_a_refusal(page)
        link = page.locator("#tbl-message a.rule-link").first
        assert link.evaluate(CONTRAST_SCRIPT) >= 4.5, f"the refusal's rule link at {width}x{height}"
        assert page.locator("#tbl-message").evaluate(CONTRAST_SCRIPT) >= 4.5
        shown_and_inside(page, link, "the refusal's rule link")
        href = link.get_attribute("href")
        assert href.startswith("/rules/#R"), href
        page.context.close()


def test_the_page_comes_back_within_2_s_of_the_network(new_context, live_site, site_url, make_user):
    """After a real cut long enough for htmx's own backoff to grow (up to a minute), the
    table's socket is open again within 2 s of the server being reachable; the wait
    between tries never exceeds a second; and "online" retries at once."""
    import time

    from .test_table_browser import WATCH_SCRIPT, log_in
    from .test_table_surface import Proxy

    table, user = practice_table(make_user, "Re Connect")
    proxy = Proxy(live_site.port).start()
    try:
        url = f"http://127.0.0.1:{proxy.port}"
        context = new_context(base_url=url, viewport={"width": 390, "height": 844})
        log_in(context, user, url)
        context.add_init_script(WATCH_SCRIPT)
        page = context.new_page()
        page.goto(f"/tables/{table.pk}/")
        wait_connected(page)
        delays = page.evaluate("() => Array.from({length: 30}, (_, n) => htmx.config.wsReconnectDelay(n))")
        assert max(delays) <= 1000, delays

        for how in ("backoff", "online"):
            opened = page.evaluate("() => window.__table.wsOpen")
            proxy.cut()
            expect(page.locator("#play-connection")).to_be_visible(timeout=5_000)
            page.wait_for_timeout(8_000)  # several failed tries: htmx alone would now wait up to 16 s
            proxy.restore()
            back = time.monotonic()
            if how == "online":
                page.evaluate("() => window.dispatchEvent(new Event('online'))")
            page.wait_for_function("n => window.__table.wsOpen > n", arg=opened, timeout=20_000)
            took = time.monotonic() - back
            print(f"\nreconnected {took:.2f} s after the network came back ({how})")
            assert took < 2.0, f"the page took {took:.1f} s to reconnect ({how})"
            expect(page.locator("#play-connection")).to_be_hidden(timeout=5_000)
    finally:
        proxy.cut()
