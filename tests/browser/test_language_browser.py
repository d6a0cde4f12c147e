"""The site in Chinese and in English, in a real browser (issue 14).

A player whose browser asks for zh-Hans plays a practice table from the lobby through
two deals (play, tribute and return, the settlement), then opens practice, a drill, the
replay of the first deal, the match history, the profile and the leaderboard; a visitor
opens login and sign-up. Everything the pages show is read as text (not markup), at every
message the table's socket brought: in Chinese no English word may appear outside player
names, rule ids, card ranks and key caps; the same journey in English shows no Chinese
character outside names and the site's 掼 mark. Text in an element that says it is in
another language (``lang``: the switcher's 中文 / English) is that language on purpose.

Switching language mid-deal from the header changes the table's text at the next
fragment without a reload, and a spectator's page keeps its own language.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from games.models import Deal, Table

from .test_table_browser import (
    DEAL_BUDGET, act_by_reading_the_page, button, clear_selection, log_in, select_cards, submit_and_wait,
    wait_for_turn_or_settlement,
)

pytestmark = pytest.mark.browser

NAME = "Mei Lin"

# Every piece of visible text of the page, with the elements it sits in: text inside an
# element of another language than the page's (lang="..."), scripts, styles, hidden
# elements and key caps (<kbd>) are left out.
VISIBLE_TEXT = """
(root) => {
  const pageLang = document.documentElement.lang;
  const out = [];
  const walker = document.createTreeWalker(root || document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    if (!el || !node.textContent.trim()) { continue; }
    if (el.closest('script, style, template, kbd, [hidden], [aria-hidden="true"] .never')) { continue; }
    const marked = el.closest('[lang]');
    if (marked && marked.getAttribute('lang') !== pageLang) { continue; }
    if (!el.getClientRects().length && !el.closest('.visually-hidden, .skip-link')) { continue; }
    out.push(node.textContent.trim());
  }
  return out.join(' \\u2016 ');
}
"""

# Recorded at every socket message: what the table showed then (tribute and return last
# one bot move each; the settlement a few seconds).
RECORD_SCRIPT = """
(() => {
  window.__texts = [];
  const text = %s;
  document.addEventListener('htmx:wsAfterMessage', () => {
    const play = document.getElementById('play');
    if (!play) { return; }
    const phase = document.querySelector('#tbl-trick .settlement') ? 'settlement'
      : (document.querySelector('#tbl-trick .tribute') ? 'tribute' : 'play');
    if (window.__texts.length < 600) { window.__texts.push([phase, text(document.body)]); }
  });
})();
""" % VISIBLE_TEXT

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# Rule ids (R4.2, R10), card ranks (J Q K A, 10), the card notation of R1.4 (suits S H C D,
# faces such as TH, jokers SJ BJ), team letters, the file format's name and the seconds'
# unit.
NOT_ENGLISH = re.compile(r"^(?:R\d+(?:\.\d+)?|[2-9JQKAB]|10|[SHCD]|[2-9TJQKA][SHCD]|SJ|BJ|JSON|s)$")


def english_words(text: str, names=(NAME,)) -> list[str]:
    for name in names:
        text = text.replace(name, " ")
    words = re.findall(r"[A-Za-z][A-Za-z0-9.]*", text)
    return [w for w in words if not NOT_ENGLISH.match(w.rstrip("."))]


def chinese_characters(text: str, names=(NAME,)) -> list[str]:
    for name in names:
        text = text.replace(name, " ")
    return [c for c in CJK.findall(text) if c != "掼"]


def foreign(language: str, text: str, names=(NAME,)) -> list[str]:
    return english_words(text, names) if language == "zh-hans" else chinese_characters(text, names)


def page_text(page) -> str:
    return page.evaluate(VISIBLE_TEXT)


def check_page(page, language: str, where: str, names=(NAME,)) -> None:
    expect(page.locator("html")).to_have_attribute("lang", language)
    text = page_text(page)
    assert text.strip(), where
    wrong = foreign(language, text, names)
    assert not wrong, f"{where} at {language}: {sorted(set(wrong))[:12]}\n{text[:800]}"


def play_to_the_settlement(page) -> None:
    deadline = time.monotonic() + DEAL_BUDGET
    while wait_for_turn_or_settlement(page) != "over":
        assert time.monotonic() < deadline, f"the deal did not end in {DEAL_BUDGET} s"
        act_by_reading_the_page(page)


@pytest.mark.parametrize("locale, language", [("zh-CN", "zh-hans"), ("en-US", "en")])
def test_the_whole_journey_reads_in_one_language(new_context, site_url, make_user, locale, language):
    user = make_user(display_name=NAME)
    context = new_context(locale=locale)
    log_in(context, user, site_url)
    context.add_init_script(RECORD_SCRIPT)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto("/")
    check_page(page, language, "lobby")
    form = page.get_by_test_id("create-table-form")
    form.locator('select[name="kind"]').select_option("practice")
    form.locator('select[name="think_time"]').select_option("120")
    form.locator('select[name="bot_speed"]').select_option("0.3")
    form.locator('button[type="submit"]').click()
    expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
    table_id = int(re.search(r"/tables/(\d+)/", page.url).group(1))
    check_page(page, language, "waiting room")
    page.locator(f'form[action="/tables/{table_id}/start/"] button[type="submit"]').click()
    expect(page.locator("#tbl-hand")).to_be_visible()
    page.wait_for_function("() => window.__texts.length > 0")
    check_page(page, language, "table")

    # A refusal, in the page's language, citing its rule as a link.
    if wait_for_turn_or_settlement(page) == "turn" and button(page, "pass").is_enabled() is False:
        cards = page.locator("#tbl-hand .hand-check:not([disabled])").evaluate_all("els => els.map(e => e.value)")
        select_cards(page, cards[:2] if len(cards) > 1 else cards)
        submit_and_wait(page, button(page, "play").click)
        message = page.locator("#tbl-message")
        if message.inner_text().strip():
            assert message.locator("a.rule-link").count() >= 1
            check_page(page, language, "table with a refusal")
        clear_selection(page)

    play_to_the_settlement(page)
    check_page(page, language, "settlement")
    expect(page.locator("#tbl-status .deal-no")).to_contain_text("2", timeout=20_000)
    play_to_the_settlement(page)

    texts = page.evaluate("window.__texts")
    phases = {phase for phase, _text in texts}
    assert {"play", "settlement"} <= phases, phases
    second = Deal.objects.filter(match__table__pk=table_id, number=2).first()
    if second is not None and not second.state["tribute"]["resisted"]:
        assert "tribute" in phases, phases
    for phase, text in texts:
        wrong = foreign(language, text)
        assert not wrong, f"table ({phase}) at {language}: {sorted(set(wrong))[:12]}\n{text[:600]}"

    first = Deal.objects.get(match__table__pk=table_id, number=1)
    page.goto("/practice/")
    check_page(page, language, "practice")
    page.goto("/practice/drills/keep-the-bomb/")
    check_page(page, language, "drill")
    page.locator('#drill-board button[name="action"][value="hint"]').click()
    expect(page.locator("#drill-message")).not_to_be_empty()
    check_page(page, language, "drill with its hint")
    page.goto(f"/replays/deals/{first.pk}/?step=12")
    check_page(page, language, "replay")
    page.goto(f"/matches/{first.match_id}/")
    check_page(page, language, "match history")
    page.goto("/accounts/profile/")
    check_page(page, language, "profile")
    page.goto("/leaderboard/")
    check_page(page, language, "leaderboard")
    page.goto("/rules/")
    check_page(page, language, "rules")

    visitor = new_context(locale=locale).new_page()
    visitor.goto("/accounts/login/")
    check_page(visitor, language, "login")
    visitor.goto("/accounts/signup/")
    check_page(visitor, language, "sign-up")
    assert not errors, errors
    assert Table.objects.filter(pk=table_id).exists()


def test_switching_language_mid_deal_keeps_the_socket_and_the_other_pages_language(new_context, site_url, make_user):
    user = make_user(display_name=NAME)
    context = new_context(locale="en-US")
    log_in(context, user, site_url)
    # Counts the table socket's openings since each page load.
    context.add_init_script("document.addEventListener('htmx:wsOpen', () => { window.__opens = (window.__opens || 0) + 1; })")
    page = context.new_page()
    page.goto("/")
    form = page.get_by_test_id("create-table-form")
    form.locator('select[name="kind"]').select_option("practice")
    form.locator('select[name="think_time"]').select_option("120")
    form.locator('select[name="bot_speed"]').select_option("1.0")
    form.locator('button[type="submit"]').click()
    table_id = int(re.search(r"/tables/(\d+)/", page.url).group(1))
    page.locator(f'form[action="/tables/{table_id}/start/"] button[type="submit"]').click()
    expect(page.locator("#tbl-hand")).to_be_visible()
    page.wait_for_function("() => (window.__opens || 0) >= 1")
    opens = page.evaluate("window.__opens")
    page.evaluate("window.__sameDocument = true")

    watcher = new_context(locale="en-US").new_page()
    watcher.goto(f"/tables/{table_id}/")
    expect(watcher.locator("#tbl-status")).to_be_visible()

    assert not chinese_characters(page.evaluate(VISIBLE_TEXT, None))
    # While a deal is on, the site's header gives way to the table; the switcher is in
    # the table's menu.
    page.locator(".drawer-toggle").click()
    page.locator('#table-drawer form[data-language-switch] button[value="zh-hans"]').click()
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(page.locator("#tbl-status")).to_contain_text("第")
    expect(page.locator(".site-header")).to_contain_text("大厅")
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
    assert page.evaluate("window.__opens") == opens, "the socket reconnected"

    # The table goes on: at the next step the page reads Chinese, the spectator English.
    seq = int(page.locator("#tbl-status").get_attribute("data-seq"))
    past_that_step = "() => Number(document.getElementById('tbl-status').getAttribute('data-seq')) > %d" % seq
    outcome = wait_for_turn_or_settlement(page)
    if outcome == "turn":
        act_by_reading_the_page(page)
    page.wait_for_function(past_that_step, timeout=30_000)
    watcher.wait_for_function(past_that_step, timeout=30_000)
    table_text = page.evaluate(VISIBLE_TEXT, None)
    assert not english_words(table_text), sorted(set(english_words(table_text)))[:12]
    watcher_text = watcher.evaluate(VISIBLE_TEXT, None)
    assert not chinese_characters(watcher_text), watcher_text[:400]
    assert page.evaluate("window.__sameDocument === true")
    assert page.evaluate("window.__opens") == opens
    # The choice is kept: a reload shows Chinese again.
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
