"""The table plays under the site's Content Security Policy: htmx, its WebSocket
extension and the pages' own scripts work, and the browser reports no violation."""

from __future__ import annotations

import pytest

from .test_table_browser import (
    act_by_reading_the_page,
    create_practice_table_from_the_lobby,
    player_page,
    start_from_the_page,
    wait_for_turn_or_settlement,
)

pytestmark = pytest.mark.browser

VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline')));
"""


def test_a_practice_table_plays_under_the_csp(new_context, site_url, make_user):
    page = player_page(new_context, make_user(display_name="Strict Sam"), site_url)
    page.context.add_init_script(VIOLATIONS)
    policies = []
    page.on("response", lambda r: policies.append(r.headers.get("content-security-policy"))
            if r.request.resource_type == "document" else None)
    create_practice_table_from_the_lobby(page)
    start_from_the_page(page)
    assert policies and all(p and "script-src 'self'" in p for p in policies), policies
    moves = []
    while len(moves) < 3 and wait_for_turn_or_settlement(page) == "turn":
        moves.append(act_by_reading_the_page(page))
    assert moves
    assert page.evaluate("window.__csp") == []
    assert not page.js_errors
