"""Nothing a player must read is drawn below 11 CSS px (font sizes from computed styles):
the table on a phone (the hand, the plates and badges, the card counter), the rules page
(the examples and the bomb ladder) and a replay (every hand at step 0, so both jokers);
and the small and big jokers differ by more than their colour."""

from __future__ import annotations

import pytest
from django.db import transaction

from games.models import Table
from games.tables import services
from tests.replays import factories

from .test_table_browser import player_page, wait_connected
from .test_table_surface import to_play_phase_turn

pytestmark = pytest.mark.browser

MIN_PX = 11

# Every element that draws text of its own (not a visually hidden one), with its font size.
SMALL_TEXT_SCRIPT = """
(min) => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = Array.from(el.childNodes).filter(n => n.nodeType === 3 && n.textContent.trim()).map(n => n.textContent.trim()).join(' ');
    if (!own) { continue; }
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.visibility === 'hidden' || style.display === 'none' || box.width < 2 || box.height < 2) { continue; }
    if (el.closest('[hidden], .visually-hidden')) { continue; }
    const size = parseFloat(style.fontSize);
    if (size < min) { out.push(`${el.tagName.toLowerCase()}.${el.className} "${own.slice(0, 30)}" ${size.toFixed(1)}px`); }
  }
  return out;
}
"""

# The two jokers' faces as drawn: their corner's words and symbol, besides the colour.
JOKER_FACES_SCRIPT = """
() => {
  const face = (sel) => { const c = document.querySelector(sel); return c ? c.querySelector('.card-rank').textContent.trim() + '|' + c.querySelector('.card-suit').textContent.trim() : null; };
  return [face('.card-sj'), face('.card-bj')];
}
"""


def small_text(page, where: str) -> list[str]:
    return [f"{where}: {found}" for found in page.evaluate(SMALL_TEXT_SCRIPT, MIN_PX)]


def jokers_differ_by_more_than_colour(page, where: str) -> None:
    small, big = page.evaluate(JOKER_FACES_SCRIPT)
    assert small and big, f"{where}: both jokers are drawn"
    assert small.split("|")[0] != big.split("|")[0], f"{where}: the jokers' corners read the same: {small} / {big}"


@pytest.fixture
def finished_deal(make_user, site_url):
    with transaction.atomic():
        host, partner, staff = make_user(), make_user(), make_user(is_staff=True)
        match = factories.start_match_with_bots(host=host, partner=partner)
        (played,) = factories.play_deals(match, 1, seed=3)
        services.close_table(table=match.table, user=staff)
    return played.deal


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_nothing_a_player_reads_is_below_11_px(new_context, site_url, make_user, finished_deal, locale):
    problems = []
    visitor = new_context(locale=locale, viewport={"width": 390, "height": 844}).new_page()
    visitor.goto("/")
    problems += small_text(visitor, "lobby")
    visitor.goto("/rules/")
    problems += small_text(visitor, "rules")
    jokers_differ_by_more_than_colour(visitor, "rules")
    visitor.goto(f"/replays/deals/{finished_deal.pk}/?step=0")
    problems += small_text(visitor, "replay")
    jokers_differ_by_more_than_colour(visitor, "replay")

    user = make_user(display_name="Xi Small")
    table = services.create_table(host=user, kind=Table.Kind.PRACTICE, think_time=120, bot_speed=0.3)
    services.start_match(table=table, user=user)
    for width, height in ((390, 844), (844, 390)):
        page = player_page(new_context, user, site_url, viewport={"width": width, "height": height}, locale=locale)
        page.goto(f"/tables/{table.pk}/")
        wait_connected(page)
        to_play_phase_turn(page)
        page.locator("[data-counter-toggle]").click()
        problems += small_text(page, f"table {width}x{height}")
        page.context.close()
    assert not problems, "\n".join(problems)
