"""A deal's analysis (复盘) in a real browser: a player asks for it from the replay, the
progress bar moves over the deal's analysis socket while the server works, the page
shows the verdicts when done, and "Next mistake" steps to the first mistake."""

import pytest
from django.db import transaction

from games.models import DealAnalysis
from games.tables import services
from tests.replays import factories

from .test_table_browser import log_in


@pytest.fixture
def finished_deal(make_user, site_url):
    """A finished deal played at random by its two humans (so with mistakes), the table
    closed so no timer plays on."""
    with transaction.atomic():
        host, partner, staff = make_user(), make_user(), make_user(is_staff=True)
        match = factories.start_match_with_bots(host=host, partner=partner)
        (played,) = factories.play_deals(match, 1, seed=3)
        services.close_table(table=match.table, user=staff)
    return host, played.deal


@pytest.mark.browser
def test_ask_watch_the_progress_and_step_to_the_first_mistake(finished_deal, site_url, new_context):
    host, deal = finished_deal
    context = new_context(viewport={"width": 390, "height": 844})
    log_in(context, host, site_url)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # Every value the progress bar shows while the analysis runs, kept in the session's
    # storage across the reload that shows the verdicts.
    context.add_init_script("""
        new MutationObserver(() => {
          const bar = document.querySelector('[data-testid=analysis-progress]');
          if (!bar || !bar.hasAttribute('value')) return;
          const seen = JSON.parse(sessionStorage.getItem('progress') || '[]');
          const value = Number(bar.getAttribute('value'));
          if (seen[seen.length - 1] !== value) sessionStorage.setItem('progress', JSON.stringify(seen.concat([value])));
        }).observe(document, {subtree: true, childList: true, attributes: true});
    """)
    page.goto(f"{site_url}/replays/deals/{deal.pk}/?step=0&seat=all")
    page.locator("[data-testid=analysis-request]").click()
    page.wait_for_selector("[data-testid=analysis-progress]", timeout=15_000)
    # Shown where the player is looking: the page comes back at the progress bar, not at its top.
    # Measured in one go in the page: the socket replaces the bar every quarter second, so a
    # handle taken in one call may be gone by the next.
    page.wait_for_function("""() => {
      const bar = document.querySelector('[data-testid=analysis-progress]');
      if (!bar) return false;
      const box = bar.getBoundingClientRect();
      return box.height > 0 && box.top >= 0 && box.bottom <= innerHeight;
    }""", timeout=10_000)
    # The socket's "done" reloads the page with the verdicts (at most ~15 s of analysis).
    page.wait_for_selector("[data-testid=analysis-plot]", timeout=90_000)
    progress = page.evaluate("JSON.parse(sessionStorage.getItem('progress') || '[]')")
    analysis = DealAnalysis.objects.get(deal=deal)
    assert analysis.status == DealAnalysis.Status.DONE
    decisions = analysis.data["decisions"]
    marks = page.locator("[data-log-mark]")
    assert marks.count() == sum(d["mark"] != "only" for d in decisions)
    assert page.locator("[data-testid=accuracy-1]").inner_text().strip().isdigit()
    # The plot's last point is the deal's result: 100% when team A took 1st, else 0%.
    plot = page.locator("[data-testid=analysis-plot]")
    last_y = float(plot.locator(".analysis-plot__line").get_attribute("points").split()[-1].split(",")[1])
    top = float(plot.locator(".analysis-plot__a").get_attribute("y"))
    middle = float(plot.locator(".analysis-plot__even").get_attribute("y1"))
    deal.refresh_from_db()
    a_won = deal.result["winner_team"] == 0
    assert last_y == (top if a_won else 2 * middle - top), (last_y, top, middle, deal.result["winner_team"])

    first = next(d for d in decisions if d["mark"] in ("mistake", "blunder"))
    page.locator('[data-analysis-nav="next-mistake"]').click()
    page.wait_for_function(
        "step => document.getElementById('replay-board').dataset.step === String(step)", arg=first["index"] + 1
    )
    verdict = page.locator("[data-testid=analysis-step] .analysis-verdict")
    assert verdict.get_attribute("data-mark") == first["mark"]
    assert f"Seat {first['seat'] + 1}" in verdict.inner_text()
    # The keyboard's M goes on to the next one.
    second = next((d for d in decisions if d["mark"] in ("mistake", "blunder") and d["index"] > first["index"]), None)
    if second is not None:
        page.keyboard.press("m")
        page.wait_for_function(
            "step => document.getElementById('replay-board').dataset.step === String(step)", arg=second["index"] + 1
        )
    assert errors == []
    # The bar moved: several values, rising (the reload may come before the last one).
    assert len(progress) >= 3 and progress == sorted(progress) and progress[-1] > progress[0]
