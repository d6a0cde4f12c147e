"""Take a screenshot of a page of a running site with Debian's headless Chromium.

    .venv/bin/python scripts/screenshot.py http://127.0.0.1:8000/ docs/screenshot-lobby.png \
        --login demo:demo-password

Used for the README's picture of the lobby (start the site with scripts/dev.sh first).
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
    args = parser.parse_args()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": args.width, "height": args.height}, device_scale_factor=1)
        if args.login:
            username, password = args.login.split(":", 1)
            page.goto(urljoin(args.url, "/accounts/login/"))
            page.get_by_label("Username").fill(username)
            page.get_by_label("Password").fill(password)
            page.get_by_role("button", name="Log in").first.click()
            page.wait_for_load_state("networkidle")
        page.goto(args.url)
        page.wait_for_load_state("networkidle")
        page.screenshot(path=args.output, full_page=args.full_page)
        browser.close()
    print(f"Saved {args.output}")


if __name__ == "__main__":
    main()
