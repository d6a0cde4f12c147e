"""axe-core (pinned in package.json, installed by scripts/test.sh) on the site's pages:
the lobby, the table mid-deal (also with a refusal on screen and with the card counter
open), in its tribute phase and at the settlement, the practice
page, a drill and a replay. No serious or critical violation may remain, and no colour
contrast axe could not measure (text over a gradient, an image, a pseudo-element or an
overlapping element counts as unchecked); one-character ranks and card symbols, which axe
leaves unmeasured whatever their colours, are the only exception."""

from __future__ import annotations

import time
from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import expect

from games.bots import DRILLS
from games.models import DealAnalysis, Table
from games.practice import services as practice_services
from games.tables import services

from .test_table_browser import current_deal_row, player_page, wait_connected
from .test_table_polish import show_a_refusal
from .test_table_surface import to_play_phase_turn

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


def axe_problems(page, where: str) -> list[str]:
    """Serious and critical violations, and colour contrasts left unmeasured, on ``page``."""
    if not AXE.exists():
        pytest.fail("axe-core is missing: run scripts/test.sh (npm ci installs it from package-lock.json)")
    if not page.evaluate("() => Boolean(window.axe)"):
        page.add_script_tag(path=str(AXE))
    results = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations', 'incomplete']});
        // Unmeasured contrasts: why axe could not measure each node (bgGradient, bgImage,
        // pseudoContent, bgOverlap, ...); a one-character rank ("shortTextContent") or a
        // symbol ("nonBmp") is text axe leaves to people, not a colour it could not find.
        const why = (n) => [...n.any, ...n.all, ...n.none].map(c => c.data && c.data.messageKey).filter(Boolean);
        // The colours axe read, to tell a real clash from a page caught mid-change.
        const colours = (n) => [...n.any, ...n.all, ...n.none].filter(c => c.data && c.data.fgColor)
            .map(c => `${c.data.fgColor} on ${c.data.bgColor}`).join(' ');
        const pick = (list) => list.map(v => ({id: v.id, impact: v.impact,
            nodes: v.nodes.filter(n => v.id !== 'color-contrast' || !why(n).every(k => ['shortTextContent', 'nonBmp'].includes(k))
                                       || why(n).length === 0)
                          .slice(0, 5).map(n => n.target.join(' ') + ' ' + why(n).join(',') + ' ' + colours(n) + ' '
                                           + (n.failureSummary || '').slice(0, 160))}));
        return {violations: pick(r.violations), incomplete: pick(r.incomplete)};
    }""")
    problems = [f"{where}: {v['id']} ({v['impact']}): {v['nodes']}"
                for v in results["violations"] if v["impact"] in ("serious", "critical")]
    problems += [f"{where}: contrast not measurable: {v['nodes']}"
                 for v in results["incomplete"] if v["id"] == "color-contrast" and v["nodes"]]
    return problems


def moving_axe_problems(page, where: str) -> list[str]:
    """``axe_problems`` on a table that keeps moving (auto play, bots, the next deal): a
    swap landing while axe reads the page can leave a node it cannot measure. A real
    problem is there a moment later too, a swap in flight is not."""
    found = axe_problems(page, where)
    if found:
        page.wait_for_timeout(1000)
        found = axe_problems(page, where)
    return found


def wait_analysed(deal, timeout: float = 120.0) -> None:
    """Wait until the analysis the site asked for at ``deal``'s end has finished."""
    deadline = time.monotonic() + timeout
    pending = (DealAnalysis.Status.QUEUED, DealAnalysis.Status.RUNNING)
    while DealAnalysis.objects.filter(deal=deal, status__in=pending).exists() or not DealAnalysis.objects.filter(deal=deal).exists():
        if time.monotonic() > deadline:
            pytest.fail(f"deal {deal.pk}: its end-of-deal analysis did not finish within {timeout:.0f} s")
        time.sleep(0.2)


def test_pages_have_no_serious_accessibility_violations(new_context, site_url, make_user):
    problems = []
    # axe is injected as an inline script: the test's contexts bypass the site's CSP.
    visitor = new_context(bypass_csp=True).new_page()
    for path in ("/", "/practice/", f"/practice/drills/{DRILLS[0].id}/"):
        visitor.goto(path)
        problems += axe_problems(visitor, path)

    user = make_user(display_name="Lin Axe")
    table = services.create_table(host=user, kind=Table.Kind.PRACTICE, think_time=120, bot_speed=0.3)
    services.start_match(table=table, user=user)
    for width, height in ((390, 844), (1280, 800)):
        # Reduced motion: no transition is under way when axe reads the colours.
        page = player_page(new_context, user, site_url, viewport={"width": width, "height": height},
                           reduced_motion="reduce", bypass_csp=True)
        page.goto(f"/tables/{table.pk}/")
        wait_connected(page)
        to_play_phase_turn(page)
        problems += axe_problems(page, f"table mid-deal {width}x{height}")
        # A refusal on screen, with its rule link.
        show_a_refusal(page)
        problems += axe_problems(page, f"table with a refusal {width}x{height}")
        # The card counter open (practice tables have it, R10.8).
        page.locator("[data-counter-toggle]").click()
        expect(page.locator("#tbl-counter")).to_be_visible()
        problems += axe_problems(page, f"table with the card counter {width}x{height}")
        page.locator("[data-counter-toggle]").click()
        if width != 1280:
            page.context.close()

    # The menu open: the log, auto play and the bot controls.
    page.get_by_role("button", name="Menu: log, auto play, bots, leave").click()
    expect(page.locator("#table-drawer")).to_be_visible()
    problems += axe_problems(page, "table menu")
    # Auto play every 0.3 s and the bots' 0.3 s play the deal out.
    page.locator("#auto-interval").select_option("0.3")
    page.locator("#auto-form button[value='auto-on']").click()
    page.keyboard.press("Escape")
    page.locator("#tbl-trick .settlement").wait_for(timeout=240_000)
    # Slow bots keep the next deal's tribute on screen: 3 s a move from the settlement on
    # (the next deal is dealt GUANDAN_NEXT_DEAL_DELAY = 6 s after it), set through the
    # service the menu's control calls, at once (the control itself is tested in
    # tests/practice). Before, the bots played the whole deal at 3 s: 200 s of this test.
    practice_services.set_bot_speed(table=Table.objects.get(pk=table.pk), user=user, speed=Decimal("3.0"))
    problems += moving_axe_problems(page, "settlement")
    deal = current_deal_row(table.pk)
    page.wait_for_function(
        "() => document.querySelector('#tbl-trick .tribute') || /Tribute resisted/.test(document.getElementById('tbl-trick').textContent)",
        timeout=60_000)
    # The tribute stays on screen for the bots' 3 s.
    problems += moving_axe_problems(page, "tribute")

    # A practice deal is analysed at its end, and its replay page reloads itself when the
    # analysis is done: read the replays once it is, not while a reload may cut axe off.
    wait_analysed(deal)
    for path in (f"/replays/deals/{deal.pk}/", f"/replays/deals/{deal.pk}/?step=20", f"/matches/{deal.match_id}/", "/"):
        page.goto(path)
        page.wait_for_load_state("load")
        problems += axe_problems(page, path)
    assert not problems, "\n".join(problems)


def test_a_players_own_pages_have_no_serious_accessibility_violations(new_context, site_url, make_user):
    """The bots page with a connection line, your data (download and delete), the
    profile with its email, and the password-reset pages, on a phone and a laptop."""
    from accounts import bots

    user = make_user(display_name="Lin Axe")
    new = bots.create_bot(owner=user, name="Axe Bot")
    bots.approve_bots(bot_ids=[new.bot.pk])
    table = services.create_table(host=user, kind=Table.Kind.PRACTICE, think_time=120, bot_speed=0.3)
    services.start_match(table=table, user=user)
    problems = []
    for width, height in ((390, 844), (1280, 800)):
        page = player_page(new_context, user, site_url, viewport={"width": width, "height": height}, bypass_csp=True)
        page.goto("/accounts/bots/")
        page.locator("select[name=seat]").select_option("3")
        page.locator("button[value=ticket]").click()
        expect(page.get_by_test_id("ticket-url")).to_be_visible()
        problems += axe_problems(page, f"bots with a connection line {width}x{height}")
        # (The profile's recent matches scroll sideways on a phone: axe cannot read the
        # colours of the cells scrolled out of view, so the profile is read at 1280.)
        for path in ("/accounts/data/", "/accounts/profile/") if width == 1280 else ("/accounts/data/",):
            page.goto(path)
            problems += axe_problems(page, f"{path} {width}x{height}")
        page.context.close()
    visitor = new_context(bypass_csp=True).new_page()
    for path in ("/accounts/password/reset/", "/accounts/login/"):
        visitor.goto(path)
        problems += axe_problems(visitor, path)
    visitor.goto("/accounts/password/reset/")
    visitor.get_by_label("Email").fill("nobody@example.com")
    visitor.get_by_role("button", name="Send me the link").click()
    problems += axe_problems(visitor, "reset sent")
    assert not problems, "\n".join(problems)
