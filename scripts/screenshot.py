"""Take a screenshot of a page of a running site with Debian's headless Chromium.

    .venv/bin/python scripts/screenshot.py http://127.0.0.1:8000/ docs/screenshot-lobby.png \
        --login demo:demo-password

Used for the README's pictures (start the site with scripts/dev.sh first). ``--locale``
sets the browser's language (zh-CN for the Chinese site; Chinese pictures need a CJK
font, Debian's fonts-noto-cjk); ``--start`` presses the waiting table's start button
first and waits for the player's turn, for a picture of a table in play:

    .venv/bin/python scripts/screenshot.py http://127.0.0.1:8000/tables/1/ docs/screenshot-table-zh-phone.png \
        --login demo:demo-password --locale zh-CN --start --width 390 --height 844 --scale 2
"""

import argparse
from urllib.parse import urljoin

from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("output")
    parser.add_argument("--login", help="username:password to log in with first")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--full-page", action="store_true")
    parser.add_argument("--locale", default="en-US", help="the browser's language, e.g. zh-CN")
    parser.add_argument("--start", action="store_true", help="start the waiting table and wait for a few moves")
    parser.add_argument("--scale", type=float, default=1)
    args = parser.parse_args()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": args.width, "height": args.height},
                                device_scale_factor=args.scale, locale=args.locale)
        if args.login:
            username, password = args.login.split(":", 1)
            page.goto(urljoin(args.url, "/accounts/login/"))
            page.locator('input[name="username"]').fill(username)
            page.locator('input[name="password"]').fill(password)
            page.locator('main form button[type="submit"]').first.click()
            page.wait_for_load_state("networkidle")
        page.goto(args.url)
        page.wait_for_load_state("networkidle")
        if args.start:
            start = page.locator('form[action$="/start/"] button[type="submit"]')
            if start.count():
                start.first.click()
            page.locator("#tbl-hand").wait_for()
            # The bots play until it is the player's turn.
            page.locator("#tbl-status .turn.is-mine").wait_for(timeout=30_000)
            page.wait_for_timeout(500)
        page.screenshot(path=args.output, full_page=args.full_page)
        browser.close()
    print(f"Saved {args.output}")


if __name__ == "__main__":
    main()
