"""Play one of this site's bots on any server that speaks the competition protocol.

    python -m games.bots.client --url ws://HOST:PORT/game/client1 --bot expert
    GUANDAN_BOT_TOKEN=... python -m games.bots.client --url ws://HOST/ws/bot/ --table 12 --seat 3 --bot expert

connects to a Guandan AI competition server, or to this site's own endpoint (with the
bot account's token, sent in the ``Authorization`` header, never in the URL; or with a
single-use ticket URL from the bots page), and answers every ``act`` message with the
index of the chosen action. The bot sees only what the messages say: ``Tracker``
turns them into the seat's view (the dict ``engine.views.view_for`` would give), which
is all a bot reads (``games.bots.view``). Card codes and action entries:
``games.bots.protocol``; the protocol itself: docs/bot-protocol.md.

Pure Python: the engine, the bots and the ``websockets`` library; no Django.

Physical ids: the protocol names faces (each exists twice, R1.3), the bots physical ids.
Each deal, ids are given out consistently: a face played takes a copy not already
played, and the hand takes the copies no play or known gift took.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from games.engine.cards import rank_index
from games.engine.reading import Reading

from . import protocol
from .registry import BOT_NAMES, TABLE_LEVELS, get_bot

__all__ = ["Tracker", "choose_index", "play", "site_url", "main"]

log = logging.getLogger(__name__)

DEALT = 27
PHASE_OF_STAGE = {"play": "play", "tribute": "tribute", "back": "return"}


class Tracker:
    """One seat's knowledge of the current deal, from the protocol's messages alone."""

    def __init__(self):
        self.position: int | None = None
        self.reset()

    def reset(self) -> None:
        self.history: list[dict[str, Any]] = []  # move views (engine.views.move_view shape)
        self.played: list[int] = []  # physical ids played so far, in order
        self.trick_no = 0
        self.top: dict[str, Any] | None = None
        self.passes = 0
        self.counts = [DEALT] * 4
        self.finished: list[int] = []
        self.gifts: list[dict[str, Any]] = []
        self.level: int | None = None

    # ---- notifications ------------------------------------------------------------------

    def notify(self, message: dict[str, Any]) -> None:
        stage = message.get("stage")
        if stage == "beginning":
            self.reset()
            self.position = message.get("myPos", self.position)
        elif stage == "play":
            self._played(message)
        elif stage == "tribute":
            for donor, recipient, code in message.get("result") or ():
                self.gifts.append({"from": donor, "to": recipient, "code": code, "returned_code": None})
        elif stage == "back":
            for giver, receiver, code in message.get("result") or ():
                for gift in self.gifts:
                    if gift["to"] == giver and gift["from"] == receiver:
                        gift["returned_code"] = code
                        gift["returned_done"] = True
        elif stage == "episodeOver":
            self.reset()

    def _played(self, message: dict[str, Any]) -> None:
        seat, entry = message["curPos"], message["curAction"]
        if not entry or entry[0] == "PASS":
            self.history.append({"seat": seat, "pass": True, "cards": [], "reading": None,
                                 "trick": self.trick_no})
            self.passes += 1
            self._maybe_end_trick()
            return
        cards = protocol.ids_for_codes(entry[2], self.played)
        level = self.level if self.level is not None else 0
        reading = protocol.reading_of_entry(entry, cards, level)
        self.played.extend(cards)
        self.counts[seat] -= len(cards)
        if self.counts[seat] <= 0 and seat not in self.finished:
            self.finished.append(seat)
        move = {"seat": seat, "pass": False, "cards": cards, "entry": entry, "level": level,
                "reading": reading.to_json() if reading is not None else None, "trick": self.trick_no}
        self.history.append(move)
        self.top = move if reading is not None else self.top
        self.passes = 0

    def _maybe_end_trick(self) -> None:
        """R6.3: the trick ends when every other seat still holding cards has passed."""
        if self.top is None:
            return
        holders = [s for s in range(4) if self.counts[s] > 0 and s != self.top["seat"]]
        if self.passes >= len(holders):
            self.top, self.passes = None, 0
            self.trick_no += 1

    # ---- the act message as a view ------------------------------------------------------

    def view(self, message: dict[str, Any]) -> dict[str, Any]:
        """The seat's view (``engine.views.view_for`` shape) at an ``act`` message."""
        self.level = rank_index(message["curRank"])
        self._reread(self.level)
        phase = PHASE_OF_STAGE[message["stage"]]
        known = list(self.played)
        hand = protocol.ids_for_codes(message["handCards"], known)
        for info, seat in zip(message.get("publicInfo") or (), range(4)):
            if isinstance(info, dict) and isinstance(info.get("rest"), int):
                self.counts[seat] = info["rest"]
        leading = message["stage"] == "play" and message.get("greaterPos", -1) in (-1, None)
        top = None
        if message["stage"] == "play" and not leading and message.get("greaterAction"):
            entry = message["greaterAction"]
            if self.top is not None and protocol.same_entry(entry, protocol.entry_of(
                    self.top["cards"], Reading.from_json(self.top["reading"]) if self.top["reading"] else None,
                    self.level)):
                top = self.top
            else:  # the tracker missed it (joined mid-deal): read it from the message
                cards = protocol.ids_for_codes(entry[2], hand)  # played cards: any copy outside the hand
                reading = protocol.reading_of_entry(entry, cards, self.level)
                top = {"seat": message["greaterPos"], "pass": False, "cards": cards,
                       "reading": reading.to_json() if reading else None, "trick": self.trick_no}
        if leading and self.top is not None:
            self.top, self.passes = None, 0
            self.trick_no += 1
        choices = None
        if phase in ("tribute", "return"):
            choices = protocol.ids_for_codes([e[2][0] for e in message["actionList"]], known)
            by_face = {protocol.code_of(c): c for c in hand}
            choices = [by_face.get(protocol.code_of(c), c) for c in choices]
        trick = [m for m in self.history if m["trick"] == self.trick_no]
        gifts = []
        for gift in self.gifts:
            gifts.append({"from": gift["from"], "to": gift["to"], "given": True,
                          "card": self._gift_id(gift["code"], hand),
                          "returned_done": bool(gift.get("returned_done")),
                          "returned": None if not gift.get("returned_code") else self._gift_id(gift["returned_code"], hand)})
        us = self.position % 2 if self.position is not None else 0
        return {
            "viewer": self.position, "phase": phase, "level": message["curRank"],
            "levels": {"us": message.get("selfRank"), "them": message.get("oppoRank")},
            "hand": hand, "partner_hand": None, "counts": list(self.counts),
            "to_act": [self.position], "turn": self.position if phase == "play" else None,
            "leading": leading, "lead_seat": self.position if leading else None,
            "top": None if leading else top, "trick": trick, "history": list(self.history),
            "finished": list(self.finished),
            "tribute": {"kind": None, "resisted": False, "gifts": gifts},
            "choices": choices, "step": len(self.history), "team": "AB"[us],
        }

    def _reread(self, level: int) -> None:
        """The ``beginning`` message does not say the level: plays seen before this seat's
        first ``act`` were read at a guessed level. Read them again at the real one."""
        for move in self.history:
            if move.get("entry") is not None and move.get("level") != level:
                reading = protocol.reading_of_entry(move["entry"], move["cards"], level)
                move["reading"] = reading.to_json() if reading is not None else None
                move["level"] = level

    def _gift_id(self, code: str | None, hand: list[int]) -> int | None:
        if code is None:
            return None
        in_hand = [c for c in hand if protocol.code_of(c) == code]
        if in_hand:
            return in_hand[0]
        # Not in this hand: the copy already played if one was, else a copy nobody showed.
        copies = [c for c in protocol.ids_for_codes([code]) + protocol.ids_for_codes([code], protocol.ids_for_codes([code]))
                  if c not in hand]
        played = [c for c in copies if c in self.played]
        return (played or copies or [None])[0]


def choose_index(bot, tracker: Tracker, message: dict[str, Any], *, rng_seed: int = 0) -> int:
    """The bot's choice at an ``act`` message, as an index into its ``actionList``. An
    action the list does not hold (a rule this site reads differently) falls back to the
    same cards under any reading, then to PASS or the first entry."""
    entries = message["actionList"]
    try:
        action = bot.choose(tracker.view(message), rng_seed=rng_seed)
    except Exception:  # a bot's (or the reading's) failure must not cost the seat its turn
        log.exception("the bot failed; answering the first action")
        return 0
    if action.kind in ("tribute", "return"):
        code = protocol.code_of(action.cards[0])
        return next((i for i, e in enumerate(entries) if e[2] and e[2][0] == code), 0)
    if action.kind == "pass":
        return next((i for i, e in enumerate(entries) if e[0] == "PASS"), 0)
    wanted = protocol.entry_of(action.cards, action.reading, tracker.level)
    for i, entry in enumerate(entries):
        if protocol.same_entry(entry, wanted):
            return i
    for i, entry in enumerate(entries):
        if entry[0] != "PASS" and sorted(entry[2]) == sorted(wanted[2]):
            return i
    log.warning("the bot's play %s is not in the action list; passing or taking the first", wanted)
    return next((i for i, e in enumerate(entries) if e[0] == "PASS"), 0)


def site_url(url: str, *, table: int | None = None, seat: int | None = None, code: str | None = None) -> str:
    """This site's endpoint URL with the table, seat and invitation code to take, and
    ``errors=1``: the site's own client reads refusals (a competition client would not)."""
    query = {"errors": "1"}
    if table is not None:
        query["table"] = str(table)
    if seat is not None:
        query["seat"] = str(seat)
    if code:
        query["code"] = code
    parts = urlsplit(url)
    merged = dict(parse_qsl(parts.query))
    merged.update(query)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(merged), ""))


def play(url: str, bot_name: str, *, budget_ms: float | None = 300, seed: int = 0,
         stats: dict | None = None, deals: int | None = None, token: str | None = None) -> int:
    """Connect to ``url`` and play until the server closes the connection (or, with
    ``deals``, until that many deals have ended). Returns the number of acts answered.
    ``token``: this site's bot token, sent as ``Authorization: Bearer`` (never in the
    URL). ``stats`` (optional) collects ``move_ms`` per answer, ``errors`` (the server's
    refusals), ``deals`` (the ``episodeOver`` messages) and ``closed`` (the server's
    close code and reason)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    bot = get_bot(bot_name, budget_ms=budget_ms)
    tracker = Tracker()
    answered = 0
    headers = {"Authorization": f"Bearer {token}"} if token else None
    with connect(url, max_size=2 ** 24, open_timeout=30, additional_headers=headers) as socket:
        while True:
            try:
                text = socket.recv()
            except ConnectionClosed as closed:
                if closed.rcvd is not None and closed.rcvd.code not in (1000, 1001):
                    log.warning("the server closed the connection: %s %s", closed.rcvd.code, closed.rcvd.reason)
                if stats is not None and closed.rcvd is not None:
                    stats["closed"] = (closed.rcvd.code, closed.rcvd.reason)
                break
            message = json.loads(text)
            kind = message.get("type")
            if kind == "notify":
                tracker.notify(message)
                if message.get("stage") == "episodeOver":
                    if stats is not None:
                        stats.setdefault("deals", []).append(message)
                    ended = len(stats["deals"]) if stats is not None else 0
                    if deals is not None and stats is not None and ended >= deals:
                        break
            elif kind == "act":
                started = time.perf_counter()
                index = choose_index(bot, tracker, message, rng_seed=seed + answered)
                if stats is not None:
                    stats.setdefault("move_ms", []).append((time.perf_counter() - started) * 1000)
                socket.send(json.dumps({"actIndex": index}))
                answered += 1
            elif kind == "error":
                log.warning("server refused: %s", message)
                if stats is not None:
                    stats.setdefault("errors", []).append(message)
    return answered


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.bots.client", description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True,
                        help="ws://HOST:PORT/game/client1; this site's ws://HOST/ws/bot/ (with --token, --table and "
                             "--seat); or a ticket URL from this site's bots page")
    parser.add_argument("--token", default=os.environ.get("GUANDAN_BOT_TOKEN"),
                        help="this site's bot token (default: $GUANDAN_BOT_TOKEN), sent in the Authorization header")
    parser.add_argument("--table", type=int, help="this site's table to sit at (with --token)")
    parser.add_argument("--seat", type=int, choices=(1, 2, 3, 4), help="the seat to take, 1-4 (with --token)")
    parser.add_argument("--code", help="a friend table's invitation code (with --token)")
    parser.add_argument("--bot", default="expert", choices=sorted(set(BOT_NAMES) | set(TABLE_LEVELS)))
    parser.add_argument("--budget-ms", type=float, default=300, help="the expert's time per move")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--deals", type=int, default=None, help="stop after this many deals")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    stats: dict = {}
    url = args.url
    if args.token:
        url = site_url(url, table=args.table, seat=args.seat, code=args.code)
    answered = play(url, args.bot, budget_ms=args.budget_ms, seed=args.seed, deals=args.deals, stats=stats,
                    token=args.token)
    times = sorted(stats.get("move_ms", [])) or [0.0]
    p50, p95 = times[len(times) // 2], times[min(len(times) - 1, int(0.95 * len(times)))]
    print(f"answered {answered} act messages; move time p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {times[-1]:.1f} ms",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

