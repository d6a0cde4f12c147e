"""The table page's first load as a player's browser downloads it: static files gzipped,
named by their content and cached for a year, and the whole load (the page, its styles,
scripts and icon; not the socket) under 80 KB on the wire. The figure is printed."""

from __future__ import annotations

import re

import pytest

from games.models import Table
from games.tables import services

from .test_table_browser import player_page, wait_connected

pytestmark = pytest.mark.browser

BUDGET = 80 * 1024


def test_the_table_pages_first_load_is_small_compressed_and_cacheable(new_context, site_url, make_user, capsys):
    user = make_user(display_name="Bo Bytes")
    table = services.create_table(host=user, kind=Table.Kind.PRACTICE, think_time=120, bot_speed=0.3)
    services.start_match(table=table, user=user)
    page = player_page(new_context, user, site_url, viewport={"width": 390, "height": 844})
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    requests, finished = {}, {}
    cdp.on("Network.responseReceived", lambda e: requests.__setitem__(e["requestId"], e["response"]))
    cdp.on("Network.loadingFinished", lambda e: finished.__setitem__(e["requestId"], e["encodedDataLength"]))
    page.goto(f"/tables/{table.pk}/")
    wait_connected(page)
    page.wait_for_load_state("networkidle")

    loaded = {rid: (requests[rid], size) for rid, size in finished.items() if rid in requests}
    total = sum(size for _response, size in loaded.values())
    lines = [f"{size:>7,} B  {response['url'].replace(site_url, '')}" for response, size in loaded.values()]
    with capsys.disabled():
        print(f"\nThe table page's first load: {total:,} bytes transferred ({total / 1024:.1f} KB) in {len(loaded)} responses")
        print("\n".join(lines))

    statics = [response for response, _size in loaded.values() if "/static/" in response["url"]]
    assert statics, "no static file was loaded"
    for response in statics:
        headers = {k.lower(): v for k, v in response["headers"].items()}
        name = response["url"].rsplit("/", 1)[-1]
        assert re.search(r"\.[0-9a-f]{12}\.\w+$", name), f"{name} is not named by its content"
        assert "immutable" in headers.get("cache-control", "") or "max-age=315360000" in headers.get("cache-control", ""), (
            name, headers.get("cache-control"))
        if name.endswith((".css", ".js", ".svg")):
            assert headers.get("content-encoding") == "gzip", (name, headers.get("content-encoding"))
    assert total < BUDGET, f"the table page's first load transferred {total:,} bytes (budget {BUDGET:,})"
