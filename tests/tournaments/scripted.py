"""Scripted players of a tournament: they keep the tournament's page open (present when
a round starts, R13.5) and play their own seats over the table's WebSocket, through the
site's ASGI application in this process, until the tournament ends. Used by
tests/tournaments/test_whole_tournament.py and scripts/bench_tournament.py."""

from __future__ import annotations

import asyncio
import random
import time
from collections import defaultdict

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games.engine.deal import PASS, PLAY, legal_actions
from games.live import selectors as live_selectors
from games.live.render import play_as_options
from games.tournaments.models import Pairing, Tournament

ORIGIN = (b"origin", b"http://127.0.0.1:8000")
HOST = (b"host", b"127.0.0.1:8000")


def choose(state, seat):
    """A legal action with one reading (no "play as" choice, R3.5): followers mostly pass."""
    rng = random.Random(f"{state.step}:{seat}")
    options = legal_actions(state, seat)
    plays = [a for a in options if a.kind == PLAY and len(play_as_options(state, a.cards)) <= 1]
    if state.phase == "play" and not state.leading and (rng.random() < 0.6 or not plays):
        return next(a for a in options if a.kind == PASS)
    return rng.choice(plays or options)


@database_sync_to_async
def turns(tournament_id: int, players: set[int]):
    """(status, [(user id, table id, deal id, seq, action)]): each scripted player to act."""
    tournament = Tournament.objects.get(pk=tournament_id)
    out = []
    for pairing in Pairing.objects.filter(round__tournament=tournament, round__number=tournament.current_round,
                                          table__status="playing").select_related("table"):
        seats = {s.user_id: s.position for s in pairing.table.seats.all() if s.user_id in players}
        if not seats:
            continue
        deal = live_selectors.current_deal(pairing.table)
        state = live_selectors.deal_state(deal)
        for user_id, position in seats.items():
            if position in state.to_act and not state.is_over:
                out.append((user_id, pairing.table_id, deal.pk, deal.seq, choose(state, position)))
    return tournament.status, out


class ScriptedPlayers:
    """``cookies``: {user id: the session cookie header}. Every message each page receives
    is kept (``tournament_messages``, ``table_messages``) for the hidden-information scan."""

    def __init__(self, application, tournament_id: int, cookies: dict[int, bytes]):
        self.application = application
        self.tournament_id = tournament_id
        self.cookies = cookies
        self.pages: dict[int, WebsocketCommunicator] = {}
        self.tables: dict[tuple[int, int], WebsocketCommunicator] = {}
        self.tournament_messages: dict[int, list[str]] = defaultdict(list)
        self.table_messages: dict[tuple[int, int], list[str]] = defaultdict(list)
        self.sent = 0

    async def open(self, path: str, user_id: int) -> WebsocketCommunicator:
        page = WebsocketCommunicator(self.application, path, headers=[ORIGIN, HOST, (b"cookie", self.cookies[user_id])])
        connected, _ = await page.connect(timeout=30)
        assert connected, path
        return page

    @staticmethod
    async def drain(page, into: list[str]) -> None:
        while not await page.receive_nothing(timeout=0.01):
            into.append(await page.receive_from(timeout=30))

    async def play(self, *, budget: float) -> str:
        """Play until the tournament finishes (or is cancelled); returns its status."""
        for user_id in self.cookies:
            self.pages[user_id] = await self.open(f"/ws/tournaments/{self.tournament_id}/", user_id)
        done = set()
        deadline = time.monotonic() + budget
        while True:
            status, due = await turns(self.tournament_id, set(self.cookies))
            if status in ("finished", "cancelled"):
                return status
            assert time.monotonic() < deadline, "the tournament did not finish in time"
            for user_id, page in self.pages.items():
                await self.drain(page, self.tournament_messages[user_id])
            for key, page in self.tables.items():
                await self.drain(page, self.table_messages[key])
            for user_id, table_id, deal_id, seq, action in due:
                key = (user_id, table_id)
                if key not in self.tables:
                    self.tables[key] = await self.open(f"/ws/tables/{table_id}/", user_id)
                    continue  # act once the page is open and drawn
                if (deal_id, seq, user_id) in done:
                    continue
                done.add((deal_id, seq, user_id))
                self.sent += 1
                await self.tables[key].send_json_to({"action": action.kind, "card": list(action.cards),
                                                     "deal": deal_id, "seq": seq})
            await asyncio.sleep(0.05)

    async def until_shown(self, text: str, *, timeout: float = 30) -> None:
        """Wait until a scripted player's tournament page shows ``text``."""
        user_id = next(iter(self.pages))
        messages = self.tournament_messages[user_id]
        while not any(text in m for m in messages):
            messages.append(await self.pages[user_id].receive_from(timeout=timeout))

    async def close(self) -> None:
        for page in list(self.pages.values()) + list(self.tables.values()):
            await page.disconnect()
