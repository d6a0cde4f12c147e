#!/usr/bin/env python
"""A local competition-protocol server that plays seat-swapped deals between two teams of
clients, for measuring this site's bots against the published competition bots.

    .venv/bin/python scripts/protocol_arena.py --port 23456 --deals 40 --seed 21

listens on ``ws://127.0.0.1:PORT/game/client1`` .. ``client4`` (seat = N - 1) and, once
four clients are connected, plays ``--deals`` deals twice each with the same cards: team
A (clients 1 and 3) holding the cards of seats 1 and 3, then holding those of seats 2 and
4 (the hands move one seat, so the teams swap cards). Deals are drawn as in
``games.bots.arena`` (``deal_setup``: a level per deal, every other deal a later deal of
a match with its tribute and return). Each seat is sent exactly what this site's
endpoint would send it (``games.botapi.messages.SeatFeed``, built from the seat's view),
and one ``act`` at a time: to the first seat to act. An answer that is not a valid
``actIndex`` within ``--timeout`` seconds is a timeout (R9.2: the engine's automatic
action) and is counted. As at the site, a client that disconnects is not waited for: its
seat is played by the site's normal bot (the autopilot) at once until the client connects
again to the same address, when it is sent the deal so far (``beginning`` with its dealt
hand, then what happened since); those moves are counted too.

Prints team A's deal win rate and mean level change per deal with 95% intervals over the
seat-swapped pairs, the timeouts and the autopilot's moves, as JSON on stdout (progress on stderr).
``--record PATH`` also writes every game played, one JSON line each (the hands dealt, the
level, the previous places, the deal's seed, the actions in the engine's log format and
the places), for ``scripts/inference_quality.py`` or a look at a lost deal. Typical
use, each client in its own process:

    .venv/bin/python -m games.bots.client --url ws://127.0.0.1:23456/game/client1 --bot expert
    .venv/bin/python -m games.bots.client --url ws://127.0.0.1:23456/game/client3 --bot expert
    (the other team's bot on client2 and client4)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from websockets.asyncio.server import serve  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from games.botapi.messages import SeatFeed, action_behind  # noqa: E402
from games.bots.arena import deal_setup  # noqa: E402
from games.bots.fastsim import level_change  # noqa: E402
from games.bots.registry import get_bot  # noqa: E402
from games.engine.deal import Action, apply, new_deal, timeout_action  # noqa: E402
from games.engine.errors import RuleError  # noqa: E402
from games.engine.replay import action_to_json  # noqa: E402
from games.engine.views import view_for  # noqa: E402


class Arena:
    def __init__(self, deals: int, seed: int, timeout: float, record=None):
        self.deals, self.seed, self.timeout = deals, seed, timeout
        self.record = record  # an open text file: one JSON line per game played
        self.sockets: dict[int, object] = {}
        self.answers = {seat: asyncio.Queue() for seat in range(4)}
        self.gone = {seat: asyncio.Event() for seat in range(4)}  # set while a seat has no client
        self.ready = asyncio.Event()
        self.done = asyncio.Event()
        self.timeouts = [0, 0, 0, 0]
        self.autopilot = [0, 0, 0, 0]
        self.answer_ms: list[float] = []
        self.feeds: list[SeatFeed] = []
        self.autopilot_bot = get_bot("normal")

    async def handler(self, socket):
        path = socket.request.path
        try:
            seat = int(path.rstrip("/").rsplit("client", 1)[1]) - 1
            assert 0 <= seat < 4 and seat not in self.sockets
        except (ValueError, IndexError, AssertionError):
            await socket.close(1008, "connect to /game/client1 .. /game/client4, one client each")
            return
        self.sockets[seat] = socket
        self.gone[seat].clear()
        while not self.answers[seat].empty():
            self.answers[seat].get_nowait()  # answers of a client that is gone
        if self.feeds:
            self.feeds[seat] = SeatFeed(position=seat)  # the deal so far, from its beginning
        print(f"client{seat + 1} connected", file=sys.stderr)
        if len(self.sockets) == 4:
            self.ready.set()
        try:
            async for text in socket:
                await self.answers[seat].put(text)
        except ConnectionClosed:
            pass  # the client went away without a close frame
        finally:
            if self.sockets.get(seat) is socket:
                del self.sockets[seat]
                self.gone[seat].set()
                if not self.done.is_set():
                    print(f"client{seat + 1} disconnected: its seat is on autopilot", file=sys.stderr)

    async def send(self, seat: int, message: dict) -> None:
        socket = self.sockets.get(seat)
        if socket is None:
            return
        try:
            await socket.send(json.dumps(message, separators=(",", ":")))
        except Exception:  # closed meanwhile: the handler notices
            pass

    async def answer(self, seat: int):
        """The client's answer text, or None when it is gone or runs out of time."""
        if seat not in self.sockets:
            return None
        get = asyncio.ensure_future(self.answers[seat].get())
        gone = asyncio.ensure_future(self.gone[seat].wait())
        finished, _ = await asyncio.wait({get, gone}, timeout=self.timeout, return_when=asyncio.FIRST_COMPLETED)
        for task in (get, gone):
            if task not in finished:
                task.cancel()
        return get.result() if get in finished else ""

    async def play_game(self, game: int, index: int, swapped: bool) -> tuple[int, bool]:
        hands, level, prev, deal_seed = deal_setup(self.seed, index)
        if swapped:  # the hands (and the previous places) move one seat: the teams swap cards
            hands = tuple(hands[(seat - 1) % 4] for seat in range(4))
            prev = None if prev is None else tuple((p + 1) % 4 for p in prev)
        state = new_deal(hands=hands, level=level, team_levels=(level, level), prev_places=prev, seed=deal_seed)
        self.feeds = [SeatFeed(position=seat) for seat in range(4)]
        log: list[dict] = []
        while True:
            seat = None if state.is_over else state.to_act[0]
            for s in range(4):
                feed = self.feeds[s]
                for message in feed.feed(game, view_for(state, s)):
                    if message["type"] == "act" and s != seat:
                        feed.asked_step, feed.pending = None, None  # asked when first to act
                        continue
                    await self.send(s, message)
            if state.is_over:
                break
            pending = self.feeds[seat].pending
            started = time.perf_counter()
            action = None
            text = await self.answer(seat)
            if text is None:  # no client: the autopilot plays the seat (R9.2)
                self.autopilot[seat] += 1
                self.feeds[seat].asked_step, self.feeds[seat].pending = None, None
                action = self.autopilot_bot.choose(view_for(state, seat), rng_seed=deal_seed).as_actor("bot")
            else:
                try:
                    index_chosen = json.loads(text)["actIndex"]
                    if isinstance(index_chosen, int) and not isinstance(index_chosen, bool) \
                            and 0 <= index_chosen < len(pending.behind):
                        kind, cards, reading = action_behind(pending, index_chosen)
                        action = Action(kind, seat, cards, reading, "human")
                except (ValueError, KeyError, TypeError, AttributeError):
                    pass
                self.answer_ms.append((time.perf_counter() - started) * 1000)
            if action is None:
                self.timeouts[seat] += 1
                action = timeout_action(state, seat)
            try:
                state = apply(state, action)
            except RuleError:
                self.timeouts[seat] += 1
                action = timeout_action(state, seat)
                state = apply(state, action)
            log.append(action_to_json(action))
        places = state.result.places
        if self.record is not None:
            self.record.write(json.dumps({
                "game": game, "index": index, "swapped": swapped, "seed": self.seed,
                "hands": [list(h) for h in hands], "level": level,
                "prev_places": None if prev is None else list(prev), "deal_seed": deal_seed,
                "actions": log, "places": list(places)}, separators=(",", ":")) + "\n")
            self.record.flush()
        return level_change(places, 0), (places[0] & 1) == 0

    async def run(self) -> dict:
        await self.ready.wait()
        wins, changes, pairs = [], [], []
        started = time.monotonic()
        game = 0
        for index in range(self.deals):
            pair = []
            for swapped in (False, True):
                game += 1
                change, won = await self.play_game(game, index, swapped)
                wins.append(won)
                changes.append(change)
                pair.append((won, change))
            pairs.append(pair)
            rate = sum(wins) / len(wins)
            print(f"deal {index + 1}/{self.deals}: team A won {sum(wins)}/{len(wins)} ({rate:.1%}), "
                  f"{time.monotonic() - started:.0f} s", file=sys.stderr)
        self.done.set()
        for socket in list(self.sockets.values()):
            await socket.close()
        win_rate, win_ci = _mean_ci([(a[0] + b[0]) / 2 for a, b in pairs])
        change, change_ci = _mean_ci([(a[1] + b[1]) / 2 for a, b in pairs])
        answers = sorted(self.answer_ms)
        return {
            "deals": self.deals, "games": len(wins), "seed": self.seed,
            "team_a_win_rate": round(win_rate, 4), "win_rate_ci95": round(win_ci, 4),
            "team_a_level_change": round(change, 3), "level_change_ci95": round(change_ci, 3),
            "timeouts_by_seat": self.timeouts,
            "autopilot_moves_by_seat": self.autopilot,
            "answer_ms_p50_p95_max": [round(_percentile(answers, q), 1) for q in (0.5, 0.95, 1.0)],
            "seconds": round(time.monotonic() - started),
        }


def _mean_ci(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]


async def main_async(args) -> dict:
    record = open(args.record, "w", encoding="utf-8") if args.record else None
    arena = Arena(args.deals, args.seed, args.timeout, record)
    async with serve(arena.handler, "127.0.0.1", args.port, max_size=2 ** 24):
        print(f"listening on ws://127.0.0.1:{args.port}/game/client1..4", file=sys.stderr)
        return await arena.run()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=23456)
    parser.add_argument("--deals", type=int, default=20, help="deals, each played twice (teams swapped)")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds a client has to answer (R9.2)")
    parser.add_argument("--record", metavar="PATH",
                        help="write every game played (its setup and its actions) to PATH, one JSON line each")
    args = parser.parse_args(argv)
    print(json.dumps(asyncio.run(main_async(args))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
