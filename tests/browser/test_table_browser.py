"""The live table in a real browser (Daphne in a subprocess, headless Chromium).

- One human plays two whole deals against three fast bots through the page, the second
  with its tribute phase (R8) shown or resisted (R8.5).
- Four registered players play one deal together at a friend table; no page ever holds a
  card of another seat's hand (the hidden-information MUST of the architecture).
- A reload in the middle of a deal resumes: the same hand, step and turn, and play goes on.
- On a phone (390 x 844) the hand and the Play button fit without scrolling sideways, and
  the cards work from the keyboard with accessible names.
- A message lost on the way leaves a gap in the steps a page saw: the page asks for a
  fresh render and catches up.

The tests use the shared server (``live_site``): one server process, so no second server's
timers act on these tables behind their pages' backs. That fixture takes no settings of
its own, so the next deal comes after the site's default ``GUANDAN_NEXT_DEAL_DELAY``.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from games.engine.cards import card_name
from games.engine.deal import Action as EngineAction
from games.engine.deal import legal_actions, new_deal, partner_of
from games.engine.reading import Reading
from games.engine.replay import states as replay_states
from games.models import Deal, Table

pytestmark = pytest.mark.browser

# Upper bounds (seconds) for one deal and for a whole test; tests fail rather than hang.
DEAL_BUDGET = 75
TURN_TIMEOUT_MS = 20_000

# Records, in every page, what the table showed between two looks of the test: each
# WebSocket message swaps fragments in, so a phase that lasts one bot move (a tribute
# given in 0.3 s) is still seen.
WATCH_SCRIPT = """
(() => {
  const seen = window.__table = {wsOpen: 0, messages: 0, deals: {}};
  const look = () => {
    const trick = document.getElementById('tbl-trick');
    const status = document.getElementById('tbl-status');
    if (!trick || !status) { return; }
    const deal = status.getAttribute('data-deal');
    const mark = seen.deals[deal] = seen.deals[deal] || {tribute: false, resisted: false, settled: false, phases: [], steps: []};
    const step = Number(status.getAttribute('data-seq'));
    if (mark.steps[mark.steps.length - 1] !== step) { mark.steps.push(step); }
    if (trick.querySelector('.tribute')) { mark.tribute = true; }
    if (trick.textContent.includes('Tribute resisted')) { mark.resisted = true; }
    if (trick.querySelector('.settlement')) { mark.settled = true; }
    const phase = document.querySelector('#tbl-status .deal-no');
    if (phase) {
      const text = phase.textContent.trim();
      if (mark.phases[mark.phases.length - 1] !== text) { mark.phases.push(text); }
    }
  };
  new MutationObserver(look).observe(document, {childList: true, subtree: true});
  document.addEventListener('htmx:wsOpen', () => { seen.wsOpen += 1; });
  document.addEventListener('htmx:wsAfterMessage', () => { seen.messages += 1; look(); });
  document.addEventListener('DOMContentLoaded', look);
})();
"""


# ------------------------------------------------------------------------------------
# Where the timers run


# ------------------------------------------------------------------------------------
# Helpers


def log_in(context, user, base_url: str) -> None:
    """Give the browser context a session of ``user`` (as after the login form)."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": base_url}])


def player_page(new_context, user, base_url, **options):
    context = new_context(**options)
    log_in(context, user, base_url)
    context.add_init_script(WATCH_SCRIPT)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors
    return page


def status_seq(page) -> tuple[int, int]:
    """(deal id, seq) the page's own fragments show."""
    status = page.locator("#tbl-status")
    return int(status.get_attribute("data-deal")), int(status.get_attribute("data-seq"))


def hand_ids(page) -> list[int]:
    """The card ids of the viewer's own hand, in the order shown (not the partner's)."""
    return [int(v) for v in page.locator("#tbl-hand .hand [data-card]").evaluate_all(
        "els => els.map(e => e.getAttribute('data-card'))")]


def page_card_ids(html: str) -> set[int]:
    return {int(v) for v in re.findall(r'data-card="(\d+)"', html)}


def wait_connected(page) -> None:
    page.wait_for_function("() => window.__table && window.__table.wsOpen > 0 && window.__table.messages > 0")


def wait_for_turn_or_settlement(page, timeout=TURN_TIMEOUT_MS) -> str:
    """Wait until it is the viewer's turn ("turn") or the deal is settled ("over")."""
    handle = page.wait_for_function(
        """() => {
          if (document.querySelector('#tbl-trick .settlement')) { return 'over'; }
          if (document.querySelector('#tbl-status .turn.is-mine')) { return 'turn'; }
          return false;
        }""",
        timeout=timeout,
    )
    return handle.json_value()


def submit_and_wait(page, press, *, may_offer_readings: bool = True) -> str:
    """Run ``press`` (clicks that submit an action) and wait for its answer: the page
    moves to a new step ("moved"), shows a refusal ("refused") or offers readings to
    choose from ("choose", R3.5; only looked for when ``may_offer_readings``)."""
    before = page.locator("#tbl-status").get_attribute("data-seq")
    deal = page.locator("#tbl-status").get_attribute("data-deal")
    press()
    handle = page.wait_for_function(
        """([deal, seq, offers]) => {
          const s = document.getElementById('tbl-status');
          if (s && (s.getAttribute('data-seq') !== seq || s.getAttribute('data-deal') !== deal)) { return 'moved'; }
          if (offers && document.querySelector('#play-form .play-as button')) { return 'choose'; }
          const m = document.getElementById('tbl-message');
          if (m && m.classList.contains('tbl-message-error') && m.textContent.trim()) { return 'refused'; }
          return false;
        }""",
        arg=[deal, before, may_offer_readings],
        timeout=TURN_TIMEOUT_MS,
    )
    return handle.json_value()


def clear_selection(page) -> None:
    """Press Clear and wait for its answer: no card selected and no refusal shown. (A clear
    does not move the deal, so waiting for a new step or a refusal would race the refusal
    still on the page from before.)"""
    button(page, "clear").click()
    page.wait_for_function(
        """() => {
          const m = document.getElementById('tbl-message');
          const refused = m && m.classList.contains('tbl-message-error') && m.textContent.trim();
          return !document.querySelector('#tbl-hand .hand-check:checked') && !refused;
        }""",
        timeout=TURN_TIMEOUT_MS,
    )


def select_cards(page, cards) -> None:
    """Select cards by clicking them, as a player does (the checkbox is behind the card).

    A card already checked is left alone (a refusal draws the hand again with the cards
    that were sent still selected, and a click would clear it). A step that arrives
    between the click and the check may draw the hand afresh without the selection:
    the card is then clicked again, a few times at most."""
    for card in cards:
        check = page.locator(f"#hc-{card}")
        for _attempt in range(5):
            if not check.is_checked():
                page.locator(f'#tbl-hand label[for="hc-{card}"]').click()
            try:
                expect(check).to_be_checked(timeout=2_000)
                break
            except AssertionError:
                continue
        else:
            expect(check).to_be_checked()


def button(page, value: str):
    return page.locator(f'#play-form button[name="action"][value="{value}"]')


def play_selected(page, reading_name: str | None = None) -> str:
    """Press Play for the selected cards; when several readings are offered (R3.5), press
    the one named ``reading_name`` (or the first)."""
    outcome = submit_and_wait(page, button(page, "play").click)
    if outcome == "choose":
        options = page.locator("#play-form .play-as button")
        chosen = options.filter(has_text=reading_name) if reading_name else options
        if chosen.count() == 0:
            chosen = options
        outcome = submit_and_wait(page, chosen.first.click, may_offer_readings=False)
    return outcome


def act_by_reading_the_page(page) -> str:
    """A simple player that only reads the page: give the first card it may give in the
    tribute and return phases (R8.3, R8.4: the others are disabled); follow by passing
    (R6.2); lead the lowest card it holds as a single (R6.1). On a refusal, read the
    reason and fall back to passing, then to another card."""
    if button(page, "tribute").count() or button(page, "return").count():
        kind = "tribute" if button(page, "tribute").count() else "return"
        if page.locator("#tbl-message.tbl-message-error").count() and page.locator("#tbl-message").inner_text().strip():
            clear_selection(page)  # a refused give (stale, R9.1) is tried again from a clean hand
        card = page.locator("#tbl-hand .hand-check:not([disabled])").first.get_attribute("value")
        select_cards(page, [card])
        outcome = submit_and_wait(page, button(page, kind).click)
        assert outcome == "moved", page.locator("#tbl-message").inner_text()
        # Both tributes (or both returns) are due at once (R8.3, R8.4): the step that
        # moved the page may be the other giver's. Ours is done when the card has left
        # the hand; a refusal (stale, R9.1, when the other's step came first) leaves the
        # button for the next round of the caller's loop.
        page.wait_for_function(
            """([card, kind]) => {
              if (!document.getElementById('hc-' + card)) { return true; }
              const m = document.getElementById('tbl-message');
              if (m && m.classList.contains('tbl-message-error') && m.textContent.trim()) { return true; }
              return !document.querySelector('#play-form button[name="action"][value="' + kind + '"]');
            }""",
            arg=[card, kind],
            timeout=TURN_TIMEOUT_MS,
        )
        return kind
    if button(page, "pass").is_enabled():
        outcome = submit_and_wait(page, button(page, "pass").click)
        assert outcome == "moved", page.locator("#tbl-message").inner_text()
        return "pass"
    for card in page.locator("#tbl-hand .hand-check:not([disabled])").evaluate_all("els => els.map(e => e.value)"):
        select_cards(page, [card])
        outcome = play_selected(page)
        if outcome == "moved":
            return "play"
        message = page.locator("#tbl-message").inner_text()
        assert re.match(r"R\d+\.\d+", message), f"a refusal names its rule: {message!r}"
        clear_selection(page)
    raise AssertionError("no card of the hand could be led")


def start_from_the_page(page) -> None:
    page.get_by_role("button", name="Start the match").click()
    expect(page.locator("#tbl-hand")).to_be_visible()
    wait_connected(page)


def current_deal_row(table_id: int) -> Deal:
    return Deal.objects.filter(match__table_id=table_id).order_by("-match__number", "-number").first()


def states_of(deal: Deal) -> list:
    """Every state of the deal by step: the fold of its action log (R11.1)."""
    initial = new_deal(
        hands=deal.hands, level=deal.active_level, team_levels=deal.team_levels_before,
        prev_places=deal.prev_places, seed=deal.seed,
    )
    actions = [
        EngineAction(row.kind, row.seat, tuple(row.cards), Reading.from_json(row.reading) if row.reading else None,
                     row.actor)
        for row in deal.actions.order_by("seq")
    ]
    return replay_states(initial, actions)


def create_practice_table_from_the_lobby(page) -> int:
    page.goto("/")
    form = page.get_by_test_id("create-table-form")
    form.get_by_label("Kind of table").select_option("practice")
    form.get_by_label("Think time").select_option("120")
    form.get_by_label("Bot speed").select_option("0.3")
    form.get_by_role("button", name="Create table").click()
    expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
    return int(re.search(r"/tables/(\d+)/", page.url).group(1))


# ------------------------------------------------------------------------------------
# 1. One human, three bots, two deals with the tribute


def test_one_human_plays_two_deals_against_bots_with_the_tribute(new_context, site_url, make_user):
    started = time.monotonic()
    page = player_page(new_context, make_user(display_name="Mei Lin"), site_url)
    table_id = create_practice_table_from_the_lobby(page)
    start_from_the_page(page)
    first_deal, _seq = status_seq(page)
    expect(page.locator("#tbl-status .deal-no")).to_contain_text("Deal 1")

    moves = {1: [], 2: []}
    for number in (1, 2):
        deadline = time.monotonic() + DEAL_BUDGET
        while True:
            assert time.monotonic() < deadline, f"deal {number} did not end in {DEAL_BUDGET} s"
            if wait_for_turn_or_settlement(page) == "over":
                break
            moves[number].append(act_by_reading_the_page(page))
        settlement = page.locator("#tbl-trick .settlement")
        expect(settlement).to_contain_text(re.compile(r"win the (deal|match)"))
        expect(settlement.locator(".places .place")).to_have_count(4)
        # Us/Them from the viewer's seat (seat 1, with Bot 3), never "Team A".
        expect(settlement.locator(".settle-teams li").first).to_contain_text("(Us)", use_inner_text=True)
        expect(settlement.locator(".settle-teams li").last).to_contain_text("(Them)", use_inner_text=True)
        expect(settlement).not_to_contain_text("Team A")
        expect(page.locator("#tbl-status .turn")).to_have_text("The deal is over.")
        # The next deal comes on its own after a moment (the second with its tribute).
        expect(page.locator("#tbl-status .deal-no")).to_contain_text(f"Deal {number + 1}", timeout=15_000)

    seen = page.evaluate("window.__table.deals")
    deals = list(Deal.objects.filter(match__table_id=table_id).order_by("number"))[:2]
    assert [d.number for d in deals] == [1, 2]
    assert all(d.finished_at is not None for d in deals)
    first, second = (seen[str(d.pk)] for d in deals)
    assert first["settled"] and second["settled"]
    assert not first["tribute"] and not first["resisted"], "no tribute in a match's first deal (R8)"
    second_state = Deal.objects.get(pk=deals[1].pk)
    resisted = second_state.state["tribute"]["resisted"]
    if resisted:
        assert second["resisted"], "resistance is announced (R8.5)"
    else:
        assert second["tribute"], f"the tribute phase was shown (steps seen: {second['steps']}): {second}"
        assert any("Tribute" in p or "Return" in p for p in second["phases"]), second["phases"]
    assert moves[1] and moves[2], moves
    assert deals[0].pk == first_deal
    assert not page.js_errors
    assert time.monotonic() - started < 170


# ------------------------------------------------------------------------------------
# 2. Four players, one deal, and no page ever holds another seat's cards


def hidden_from(state, seat: int) -> set[int]:
    """The cards ``seat`` may not see in ``state``: the other hands, except its partner's
    once it has finished (R9.4); nothing once the deal is over (all is public then)."""
    if state.is_over:
        return set()
    shown = {seat, partner_of(seat)} if seat in state.finished else {seat}
    return {card for other in range(4) if other not in shown for card in state.hands[other]}


def test_four_players_play_a_deal_and_see_only_their_own_cards(new_context, site_url, make_user):
    from games.engine.replay import state_from_json
    from games.live.bot_moves import choose_for_seat
    from games.tables import services

    users = [make_user(display_name=name) for name in ("Ana Li", "Bo Chen", "Cai Wu", "Dan Xu")]
    table = services.create_table(host=users[0], kind=Table.Kind.FRIEND, think_time=120)
    for position, user in enumerate(users[1:], start=1):
        services.take_seat(table=table, user=user, position=position, invite_code=table.invite_code)

    pages, frames = [], {seat: [] for seat in range(4)}
    for seat, user in enumerate(users):
        page = player_page(new_context, user, site_url)
        page.on("websocket", lambda ws, seat=seat: ws.on(
            "framereceived", lambda payload, seat=seat: frames[seat].append(payload)))
        page.goto(f"/tables/{table.pk}/")
        pages.append(page)
    expect(pages[3].locator("#table-seats")).to_contain_text("Dan Xu")
    start_from_the_page(pages[0])
    # The other pages notice the start on their own (the waiting room asks every 3 s).
    for page in pages[1:]:
        expect(page.locator("#tbl-hand")).to_be_visible()
        wait_connected(page)

    deal = current_deal_row(table.pk)
    seen_in_hand = {seat: set() for seat in range(4)}
    html_scans = 0
    deadline = time.monotonic() + DEAL_BUDGET
    while True:
        assert time.monotonic() < deadline, "the deal did not end in time"
        deal.refresh_from_db()
        state = state_from_json(deal.state)
        for seat, page in enumerate(pages):
            seen_in_hand[seat].update(hand_ids(page))
        if deal.seq % 10 == 0 or state.is_over:
            # Scan the whole page of every seat; hands only shrink in a first deal, so the
            # cards hidden now were hidden whenever the page was drawn.
            contents = [page.content() for page in pages]
            deal.refresh_from_db()
            now = state_from_json(deal.state)
            for seat, html in enumerate(contents):
                leaked = page_card_ids(html) & hidden_from(now, seat)
                assert not leaked, f"seat {seat + 1}'s page holds hidden cards {sorted(leaked)} at step {now.step}"
            html_scans += 1
        if state.is_over:
            break
        seat = state.to_act[0]
        page = pages[seat]
        # The turn shows on that page (and on no other) once it has drawn this step.
        page.wait_for_function(
            "seq => document.querySelector('#tbl-status .turn.is-mine')"
            " && document.getElementById('tbl-status').getAttribute('data-seq') === String(seq)",
            arg=deal.seq, timeout=TURN_TIMEOUT_MS,
        )
        for other, other_page in enumerate(pages):
            if other != seat and other_page.locator("#tbl-status").get_attribute("data-seq") == str(deal.seq):
                expect(other_page.locator("#tbl-status .turn")).not_to_have_class(re.compile("is-mine"))
        action = choose_for_seat(state, seat, level="normal", seed=deal.seq, actor="human")
        if action.kind == "pass":
            outcome = submit_and_wait(page, button(page, "pass").click)
        else:
            select_cards(page, action.cards)
            outcome = play_selected(page, action.reading.name)
        assert outcome == "moved", page.locator("#tbl-message").inner_text()

    for page in pages:  # every page showed the settlement (it may be replaced by the next deal)
        page.wait_for_function("deal => window.__table.deals[deal] && window.__table.deals[deal].settled",
                               arg=str(deal.pk))
    assert html_scans >= 3

    # Every page's hand held only that seat's cards: the union over the deal is disjoint
    # across seats and within the seat's dealt hand (no tribute in a first deal).
    for seat in range(4):
        assert seen_in_hand[seat] <= set(deal.hands[seat])
        assert len(seen_in_hand[seat]) == 27
        for other in range(seat + 1, 4):
            assert not seen_in_hand[seat] & seen_in_hand[other]

    # Every WebSocket message each page received, checked at the step it was drawn for:
    # no card of a hand the viewer may not see at that step (the wild cards of the deal
    # are drawn as faces, without an id).
    history = states_of(deal)
    assert history[-1] == state_from_json(deal.state), "the snapshot is the fold of the log"
    for seat in range(4):
        assert len(frames[seat]) > deal.seq // 2
        for payload in frames[seat]:
            steps = [int(s) for s in re.findall(r'data-seq="(\d+)"', payload)]
            assert steps, payload[:200]
            leaked = page_card_ids(payload) & hidden_from(history[max(steps)], seat)
            assert not leaked, f"seat {seat + 1} was sent hidden cards {sorted(leaked)} at step {max(steps)}"
    # Every page moves on to the next deal by itself.
    for page in pages:
        expect(page.locator("#tbl-status .deal-no")).to_contain_text("Deal 2", timeout=15_000)
        assert not page.js_errors


# ------------------------------------------------------------------------------------
# 3. A reload in the middle of a deal resumes


def what_the_page_shows(page):
    """The table as the page shows it: steps, hand, turn, counts and the log."""
    return {
        "deal_seq": status_seq(page),
        "hand": hand_ids(page),
        "turn": page.locator("#tbl-status .turn").text_content(),
        "counts": page.locator("#tbl-seats .seat-count").all_inner_texts(),
        # The log lives in the table's menu, closed here: its text, not what is painted.
        "log": " ".join(page.locator("#tbl-log").text_content().split()),
    }


def test_a_reload_mid_deal_resumes_the_same_hand_step_and_turn(new_context, site_url, make_user):
    page = player_page(new_context, make_user(), site_url)
    table_id = create_practice_table_from_the_lobby(page)
    start_from_the_page(page)
    deadline = time.monotonic() + DEAL_BUDGET
    while True:
        assert time.monotonic() < deadline
        assert wait_for_turn_or_settlement(page) == "turn", "the deal ended before a reload"
        if status_seq(page)[1] >= 6:
            break
        act_by_reading_the_page(page)

    # Mid-deal, the player to act: the bots wait, so nothing moves during the reload.
    before = what_the_page_shows(page)
    deal = current_deal_row(table_id)
    assert before["deal_seq"] == (deal.pk, deal.seq)
    page.reload()
    wait_connected(page)
    expect(page.locator("#tbl-status .turn.is-mine")).to_have_text(before["turn"])
    after = what_the_page_shows(page)
    assert after == before
    assert sorted(after["hand"]) == sorted(deal.state["hands"][0])

    # Play goes on from the reloaded page: the player acts, then the bots do.
    seq = after["deal_seq"][1]
    assert act_by_reading_the_page(page) in ("play", "pass")
    page.wait_for_function(
        "seq => Number(document.getElementById('tbl-status').getAttribute('data-seq')) >= seq",
        arg=seq + 2, timeout=TURN_TIMEOUT_MS,
    )
    deal.refresh_from_db()
    assert deal.seq >= seq + 2
    assert deal.actions.get(seq=seq + 1).actor == "human"
    assert not page.js_errors


# ------------------------------------------------------------------------------------
# 4. A phone: the layout fits, the cards work from the keyboard


def tab_to(page, card: int, limit: int = 120) -> None:
    """Reach the checkbox of ``card`` as a keyboard user does: Tab until the focus is in
    the hand (one Tab stop for all its cards), then arrow keys along the hand."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("() => Boolean(document.activeElement && document.activeElement.matches('#tbl-hand .hand-check'))"):
            break
    else:
        raise AssertionError("Tab never reached the hand")
    page.keyboard.press("Home")
    for _ in range(limit):
        if page.evaluate("() => document.activeElement && document.activeElement.id") == f"hc-{card}":
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"the arrow keys never reached card {card}")


def test_phone_layout_and_keyboard_play(new_context, site_url, make_user):
    page = player_page(new_context, make_user(), site_url, viewport={"width": 390, "height": 844},
                       is_mobile=True, has_touch=True, device_scale_factor=3)
    table_id = create_practice_table_from_the_lobby(page)
    start_from_the_page(page)
    assert wait_for_turn_or_settlement(page) == "turn"

    # Nothing wider than the screen: no sideways scrolling, every card of the hand and the
    # Play button inside the 390 px.
    width = page.evaluate("() => window.innerWidth")
    assert width == 390
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    play_button = button(page, "play")
    expect(play_button).to_be_visible()
    for box in [play_button.bounding_box(), page.locator("#tbl-hand .hand").bounding_box()]:
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    for label in page.locator("#tbl-hand .hand label.card").all():
        box = label.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, box

    # Accessible names: every card is a checkbox named like "10 of hearts, wild".
    deal = current_deal_row(table_id)
    level = deal.active_level
    hand = hand_ids(page)
    for card in hand:
        expect(page.get_by_role("checkbox", name=card_name(card, level), exact=True).first).to_be_attached()
        expect(page.locator(f"#hc-{card}")).to_have_accessible_name(card_name(card, level))
    wild_names = [card_name(c, level) for c in hand if card_name(c, level).endswith(", wild")]
    for name in wild_names:
        assert re.fullmatch(r"\d+ of hearts, wild", name)

    # Keyboard: at a turn where a single card is legal, Tab to it, Space selects it,
    # Enter plays it; otherwise pass (R6.2) and wait for the next turn. A player who only
    # passes may never lead (the bots can end the deal meanwhile): then the next deal's
    # turns serve, its tribute or return given from the page first (R8).
    from games.engine.replay import state_from_json

    deadline = time.monotonic() + 2 * DEAL_BUDGET
    while True:
        assert time.monotonic() < deadline, "no turn with a legal single came"
        deal = current_deal_row(table_id)
        state = state_from_json(deal.state)
        singles = [a for a in legal_actions(state, 0) if a.kind == "play" and len(a.cards) == 1]
        if singles:
            break
        if state.phase == "play":
            assert submit_and_wait(page, button(page, "pass").click) == "moved"
        else:
            assert act_by_reading_the_page(page) in ("tribute", "return")
        if wait_for_turn_or_settlement(page) == "over":
            page.wait_for_function("""() => !document.querySelector('#tbl-trick .settlement')
                                         && document.querySelector('#tbl-status .turn.is-mine')""",
                                   timeout=3 * TURN_TIMEOUT_MS)
    card = singles[0].cards[0]
    tab_to(page, card)
    page.keyboard.press("Space")
    expect(page.locator(f"#hc-{card}")).to_be_checked()
    outcome = submit_and_wait(page, lambda: page.keyboard.press("Enter"))
    if outcome == "choose":  # R3.5: a wild single offers its readings as buttons
        outcome = submit_and_wait(page, page.locator("#play-form .play-as button").first.click,
                                  may_offer_readings=False)
    assert outcome == "moved", page.locator("#tbl-message").inner_text()
    assert card not in hand_ids(page)
    played = deal.actions.order_by("-seq").filter(seat=0).first()
    assert played.kind == "play" and played.cards == [card]
    expect(page.locator(f'#tbl-log [data-card="{card}"]').first).to_be_attached()
    assert not page.js_errors


# ------------------------------------------------------------------------------------
# 5. A missed message is noticed


def test_a_missed_step_is_noticed_and_the_page_asks_for_a_fresh_render(new_context, site_url, make_user):
    """A message lost on the way (a busy channel layer drops some) leaves a gap in the
    steps the page saw: the page asks its socket for a fresh render and catches up."""
    page = player_page(new_context, make_user(), site_url)
    dropped, sent = [], []
    drop = {"armed": False}

    def through(ws):
        server = ws.connect_to_server()

        def from_server(message):
            if drop["armed"]:
                drop["armed"] = False
                dropped.append(message)
                return
            ws.send(message)

        def from_page(message):
            sent.append(message)
            server.send(message)

        server.on_message(from_server)
        ws.on_message(from_page)

    page.route_web_socket(re.compile(r"/ws/tables/\d+/$"), through)
    table_id = create_practice_table_from_the_lobby(page)
    start_from_the_page(page)
    assert wait_for_turn_or_settlement(page) == "turn"
    _deal, seq = status_seq(page)

    # The broadcast of the player's own move is lost; the bots' next move shows a gap.
    drop["armed"] = True
    button_value = "pass" if button(page, "pass").is_enabled() else "play"
    if button_value == "play":
        select_cards(page, [page.locator("#tbl-hand .hand-check").first.get_attribute("value")])
    button(page, button_value).click()
    page.wait_for_function(
        "seq => Number(document.getElementById('tbl-status').getAttribute('data-seq')) >= seq",
        arg=seq + 2, timeout=TURN_TIMEOUT_MS,
    )
    assert len(dropped) == 1 and f'data-seq="{seq + 1}"' in dropped[0]
    deadline = time.monotonic() + 10
    while not any(json.loads(m).get("action") == "refresh" for m in sent):
        assert time.monotonic() < deadline, f"no fresh render was asked for: {sent}"
        page.wait_for_timeout(50)
    assert sum(json.loads(m).get("action") == "refresh" for m in sent) == 1, sent

    # Caught up: at the player's next turn the page shows what the database holds.
    assert wait_for_turn_or_settlement(page) == "turn"
    deal = current_deal_row(table_id)
    assert status_seq(page) == (deal.pk, deal.seq)
    assert sorted(hand_ids(page)) == sorted(deal.state["hands"][0])
    assert not page.js_errors
