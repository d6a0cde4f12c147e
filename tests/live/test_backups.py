"""Backups that restore: the recipe's own scripts (deploy/backup/) dump a database with
matches in play, keep only the days they should, restore the dump into a fresh database
and check it there; every deal there equals the fold of its log (R11.1), and a table
resumes from the restored state: its next step is accepted by the door and logged.
PostgreSQL lane of .ci/run (pg_dump and pg_restore from Debian's postgresql-client)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from games.models import Action, Deal, Match

from ..replays import factories
from .processes import ROOT

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("pg_dump") is None, reason="needs pg_dump and pg_restore (postgresql-client)"),
]
BACKUP = ROOT / "deploy/backup/guandan-backup"
RESTORE = ROOT / "deploy/backup/guandan-restore"

RESUME = """
from games.live import door, selectors
from games.live.bot_moves import choose_for_seat
from games.models import Seat, Table
from games.replays.log import check_deal

table = Table.objects.get(pk={table_id})
deal = selectors.current_deal(table)
state = selectors.deal_state(deal)
seat = state.to_act[0]
action = choose_for_seat(state, seat, level="normal", seed=1, actor="human")
user = Seat.objects.get(table=table, position=seat).user
outcome = door.submit_action(table_id=table.pk, seat=seat, kind=action.kind, cards=action.cards,
                             reading=action.reading, expected_deal=deal.pk, expected_seq=deal.seq,
                             actor="human", user=user)
deal.refresh_from_db()
print("resumed", deal.pk, outcome.seq, deal.seq, check_deal(deal))
"""


def _url(name: str) -> str:
    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{name}"


def _env(database: str, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update(DATABASE_URL=_url(database), GUANDAN_PYTHON=sys.executable, DJANGO_SETTINGS_MODULE="guandan_site.settings",
               **extra)
    return env


def _drop(name: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", [name])
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')


def test_a_nightly_dump_restores_into_a_fresh_database_where_tables_resume(tmp_path, make_user, playing_table):
    # Live matches: a finished deal and a deal in play at one table, a deal in play at another.
    table, users = playing_table
    match = Match.objects.get(table=table)
    factories.play_deals(match, 1, seed=4)
    factories.play(factories.deal_next(match), rng=random.Random(2), max_actions=20)
    other = factories.start_match_with_bots(host=make_user(), partner=make_user())
    factories.play(factories.PlayedDeal(other.deals.get()), rng=random.Random(3), max_actions=12)
    deals = {deal.pk: (deal.seq, deal.finished_at is not None) for deal in Deal.objects.all()}
    assert len(deals) == 3 and sum(finished for _seq, finished in deals.values()) == 1

    backups = tmp_path / "backups"
    backups.mkdir()
    stale = backups / "guandan-20000101T000000Z.dump"
    stale.write_bytes(b"an old dump")
    os.utime(stale, (time.time() - 3 * 86400, time.time() - 3 * 86400))
    name = settings.DATABASES["default"]["NAME"]
    made = subprocess.run([str(BACKUP)], env=_env(name, GUANDAN_BACKUP_DIR=str(backups), GUANDAN_BACKUP_KEEP_DAYS="2"),
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    [dump] = list(backups.iterdir())  # the stale one is gone, no partial file is left
    assert dump.name.startswith("guandan-") and dump.suffix == ".dump" and oct(dump.stat().st_mode)[-3:] == "600"

    restored = f"{name}_restored"
    _drop(restored)
    try:
        owner = settings.DATABASES["default"]["USER"]
        done = subprocess.run([str(RESTORE), str(dump), restored], env=_env(name, GUANDAN_DB_OWNER=owner),
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"checked {len(deals)} deals, 0 differ" in done.stdout  # every deal is the fold of its log
        resumed = subprocess.run([sys.executable, "manage.py", "shell", "-c", RESUME.format(table_id=table.pk)],
                                 cwd=ROOT, env=_env(restored), capture_output=True, text=True, timeout=120)
        assert resumed.returncode == 0, resumed.stderr
        words = next(line for line in resumed.stdout.splitlines() if line.startswith("resumed")).split()
        deal_id, seq, stored = int(words[1]), int(words[2]), int(words[3])
        assert words[0] == "resumed" and words[4] == "None"  # still the fold of its log
        assert seq == stored == deals[deal_id][0] + 1  # the next step, taken on the restored state
        # The site's own database did not move.
        assert Deal.objects.get(pk=deal_id).seq == deals[deal_id][0]
        assert Action.objects.filter(deal_id=deal_id).count() == deals[deal_id][0]
    finally:
        _drop(restored)
