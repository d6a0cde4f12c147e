"""The client (``python -m games.bots.client``) against the site's own endpoint, served
by Daphne in another process: one of the site's bots, seated through a bot account,
plays whole deals at a practice table in place of a built-in bot."""

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.db import connection

from accounts import bots
from games.models import Action, Deal, Seat
from games.practice import services as practice
from games.live import door

pytestmark = [
    pytest.mark.django_db(transaction=True),
    # The served site's bot turns and auto play are timers: with REDIS_URL they go to a
    # Celery worker, which these tests do not start (the browser tests', in the embedded
    # lane, have the server run them itself); the embedded lane runs these tests.
    pytest.mark.skipif(os.environ.get("REDIS_URL", "") != "",
                       reason="the served site's timers would need a Celery worker: runs in the embedded lane"),
]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(django_db_setup, django_db_blocker):
    from guandan_site.testing import LiveSite

    with django_db_blocker.unblock():
        name = connection.settings_dict["NAME"]
    with LiveSite(database_name=name) as live:
        yield live


def practice_with_bot(make_user, settings):
    settings.GUANDAN_BOTS_AUTO_APPROVE = True
    owner = make_user()
    table = practice.start_practice(user=owner, bot_speed="0.3")
    # The owner's own seat plays itself (auto play), so the deal runs without a person.
    door.set_auto_play(table=table, user=owner, interval="0.3")
    new = bots.create_bot(owner=owner, name="Client")
    return table, owner, new


def test_the_client_plays_whole_deals_through_the_sites_endpoint(site, make_user, settings):
    from games.bots.client import play, site_url

    table, owner, new = practice_with_bot(make_user, settings)
    url = site_url(f"{site.ws_url}/ws/bot/", table=table.pk, seat=2)
    assert new.token not in url
    stats: dict = {}
    result: dict = {}
    thread = threading.Thread(
        target=lambda: result.setdefault("answered", play(url, "heuristic", stats=stats, deals=1, token=new.token)),
        daemon=True)
    thread.start()
    thread.join(timeout=240)
    assert not thread.is_alive(), f"the deal did not end; answered so far: {len(stats.get('move_ms', []))}"
    assert result["answered"] > 5 and not stats.get("errors")
    assert Seat.objects.get(table=table, position=1).user_id == new.bot.user_id
    deal = Deal.objects.filter(match__table=table).order_by("pk").first()
    assert deal.finished_at is not None
    mine = list(Action.objects.filter(deal=deal, seat=1).values_list("actor", flat=True))
    assert mine and set(mine) == {"human"}, "every move of the bot's seat came from the client, in time"
    over = stats["deals"][0]
    assert sorted(over["order"]) == [0, 1, 2, 3]


def test_the_command_line_client_connects_and_reports(site, make_user, settings):
    table, owner, new = practice_with_bot(make_user, settings)
    done = subprocess.run(
        [sys.executable, "-m", "games.bots.client", "--url", f"{site.ws_url}/ws/bot/", "--table", str(table.pk),
         "--seat", "3", "--bot", "greedy", "--deals", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "", "GUANDAN_BOT_TOKEN": new.token},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "answered" in done.stderr
    assert Deal.objects.filter(match__table=table, finished_at__isnull=False).exists()


def test_a_ticket_url_is_all_a_competition_client_needs(site, make_user, settings):
    """A program given nothing but a URL (as the competition's own clients are) connects
    with a ticket from the bots page, hears only the protocol's messages, and plays."""
    from games.botapi import tickets
    from games.bots.client import play

    table, owner, new = practice_with_bot(make_user, settings)
    issued = tickets.issue_ticket(owner=owner, bot_id=new.bot.pk, table_id=table.pk, position=3)
    url = f"{site.ws_url}/ws/bot/?ticket={issued.secret}"
    stats: dict = {}
    assert play(url, "greedy", stats=stats, deals=1) > 5
    assert Seat.objects.get(table=table, position=3).user_id == new.bot.user_id
    assert not stats.get("errors")
    # Used once: the same URL opens nothing more; the close says why.
    again: dict = {}
    assert play(url, "greedy", stats=again, deals=1) == 0
    assert again["closed"][0] == 4401 and "ticket" in again["closed"][1]


def test_the_client_is_plain_python():
    """The client runs where Django is not installed: it imports none of it."""
    code = "import sys, games.bots.client; print(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'channels')))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr
