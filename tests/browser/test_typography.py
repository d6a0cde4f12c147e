"""Chinese typography, read from the pages as a browser lays them out (zh-Hans): no fake
italics (CJK fonts have none), full-width colons after Chinese words (理牌：点数), the
sign-up form's help texts clear of their inputs and of their focus rings, no space
around Chinese punctuation where two messages meet (。此操作无法撤销), and the phone
saying whose turn it is when it is the player's (轮到你…)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.models import Table
from games.tables import services

from .test_table_browser import player_page, wait_connected
from .test_table_surface import to_play_phase_turn

pytestmark = pytest.mark.browser

# Visible elements with text of their own: (tag.class, text, font-style).
TEXTS_SCRIPT = """
() => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = Array.from(el.childNodes).filter(n => n.nodeType === 3 && n.textContent.trim()).map(n => n.textContent).join('');
    if (!own.trim()) { continue; }
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.display === 'none' || style.visibility === 'hidden' || box.width < 2 || box.height < 2) { continue; }
    out.push([el.tagName.toLowerCase() + '.' + el.className, el.innerText || own, style.fontStyle]);
  }
  return out;
}
"""
CJK_THEN_COLON = re.compile(r"[\u4e00-\u9fff]\s*:")
# A space after Chinese punctuation before Chinese text, or before Chinese punctuation
# ("。 此操作", "A。 排行榜"): two messages joined with the English sentence gap.
SPACED_PUNCTUATION = re.compile(r"[。，；：！？、）」][ \u00a0]+[\u4e00-\u9fff（]|[\u4e00-\u9fff][ \u00a0]+[。，；：！？、（）]")


def typography_problems(page, where: str) -> list[str]:
    problems = []
    for name, text, style in page.evaluate(TEXTS_SCRIPT):
        if style != "normal":
            problems.append(f"{where}: {name} {text[:30]!r} is {style}")
        if CJK_THEN_COLON.search(text):
            problems.append(f"{where}: {name} {text[:40]!r} has a half-width colon after Chinese")
        if (gap := SPACED_PUNCTUATION.search(text)):
            problems.append(f"{where}: {name} {text[max(0, gap.start() - 20):gap.end() + 10]!r} has a space at Chinese punctuation")
    return sorted(set(problems))


def test_chinese_pages_set_colons_and_styles_as_chinese_is_written(new_context, site_url, make_user):
    problems = []
    visitor = new_context(locale="zh-CN", viewport={"width": 390, "height": 844}).new_page()
    for path in ("/", "/rules/", "/accounts/signup/", "/accounts/login/"):
        visitor.goto(path)
        problems += typography_problems(visitor, path)

    # The sign-up form: each help text ends before its input's focus ring begins.
    visitor.goto("/accounts/signup/")
    for field in visitor.locator("form input[aria-describedby]").all():
        field.focus()
        help_box = visitor.locator("#" + field.get_attribute("aria-describedby")).bounding_box()
        ring = field.evaluate("e => { const s = getComputedStyle(e); return (parseFloat(s.outlineWidth) || 0) + (parseFloat(s.outlineOffset) || 0); }")
        gap = field.bounding_box()["y"] - (help_box["y"] + help_box["height"])
        assert gap >= ring, f"the help of {field.get_attribute('name')} is {gap:.1f} px above its input, whose focus ring is {ring} px"

    user = make_user(display_name="Yu Type")
    table = services.create_table(host=user, kind=Table.Kind.PRACTICE, think_time=120, bot_speed=0.3)
    services.start_match(table=table, user=user)
    for width, height in ((390, 844), (844, 390), (1280, 800)):
        page = player_page(new_context, user, site_url, viewport={"width": width, "height": height}, locale="zh-CN",
                           reduced_motion="reduce")
        page.goto(f"/tables/{table.pk}/")
        wait_connected(page)
        to_play_phase_turn(page)
        problems += typography_problems(page, f"table {width}x{height}")
        # The turn prompt shows on a phone too, inside the screen.
        turn = page.locator("#tbl-status .turn.is-mine")
        expect(turn).to_be_visible()
        box = turn.bounding_box()
        assert box["width"] > 20 and box["x"] >= 0 and box["x"] + box["width"] <= width and box["y"] + box["height"] <= height
        assert "轮到你" in turn.inner_text()
        if width == 1280:
            # The player's own pages too: the profile, the player page, the data page.
            for path in ("/accounts/profile/", f"/players/{user.username}/", "/accounts/data/", "/leaderboard/", "/tournaments/"):
                page.goto(path)
                problems += typography_problems(page, path)
        page.context.close()
    assert not problems, "\n".join(problems)
