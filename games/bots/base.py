"""The bot interface and the two baselines (random, greedy).

A bot is a strategy for one seat. ``Bot.choose(view, rng_seed=...)`` takes exactly what
``engine.views.view_for(state, seat)`` returns for its seat and gives back an engine
``Action`` (tribute, return, play or pass) made by a ``bot`` actor. It never sees a
``DealState``, so it cannot read another hand (ARCHITECTURE: a bot never reads other
hands). The same view and seed always give the same action.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from games.engine.cards import RANK_OF, card_strength, is_wild
from games.engine.combos import Play, readings_of
from games.engine.deal import BOT, PASS, PLAY, RETURN, TRIBUTE, Action
from games.engine.plays import legal_plays, lean_plays
from games.engine.reading import SINGLE, Reading, beats, bomb_rung

from .model import Hand, Move, order_key, physical_cards
from .view import Seen

__all__ = ["Bot", "RandomBot", "GreedyBot", "move_to_action", "play_sort_key"]


class Bot:
    """Base class: dispatches on the phase of the view. Subclasses choose the cards."""

    name = "bot"

    def choose(self, view: dict[str, Any], *, rng_seed: int = 0) -> Action:
        """The action for the viewing seat, from its view alone (see module doc)."""
        seen = Seen.from_view(view)
        rng = random.Random((rng_seed * 1_000_003 + seen.step * 7919 + seen.seat) & 0xFFFFFFFF)
        if seen.phase == "tribute":
            return Action(TRIBUTE, seen.seat, (self.tribute_card(seen, rng),), actor=BOT)
        if seen.phase == "return":
            return Action(RETURN, seen.seat, (self.return_card(seen, rng),), actor=BOT)
        if seen.phase != "play" or seen.turn != seen.seat:
            raise ValueError(f"R6.2: it is not seat {seen.seat + 1}'s turn to act")
        return self.play(seen, rng)

    # The phases --------------------------------------------------------------------

    def tribute_card(self, seen: Seen, rng: random.Random) -> int:
        """R8.1/R8.3: one of the cards offered (all of the highest rank); the lowest id."""
        return min(_choices(seen))

    def return_card(self, seen: Seen, rng: random.Random) -> int:
        """R8.4: the weakest card offered (the engine's automatic return)."""
        return min(_choices(seen), key=lambda c: (card_strength(c, seen.level), c))

    def play(self, seen: Seen, rng: random.Random) -> Action:
        raise NotImplementedError


def _choices(seen: Seen) -> list[int]:
    if not seen.choices:
        raise ValueError("R8: the view offers no card to give")
    return list(seen.choices)


def play_sort_key(play: Play, level: int) -> tuple[int, int, int, int, int]:
    """Lowest first: ordinary before bombs, lower on the bomb ladder (R5.2), weaker key
    (R2.3 strength, natural top for runs), fewer wilds, then the cards."""
    wilds = sum(1 for c in play.cards if is_wild(c, level))
    return (1 if play.reading.is_bomb else 0, bomb_rung(play.reading),
            order_key(play.reading, level), wilds, play.cards[0] if play.cards else 0)


def action_of(seat: int, play: Play | None) -> Action:
    if play is None:
        return Action(PASS, seat, actor=BOT)
    return Action(PLAY, seat, tuple(play.cards), play.reading, actor=BOT)


def move_to_action(seen: Seen, move: Move | None, hand: Hand | None = None) -> Action:
    """Turn an abstract move into a legal engine action for the seat's real cards.

    Naturals are taken first (never a card of a straight flush kept aside, when another
    copy will do), then wilds. If those cards do not read as the move (a straight whose
    five naturals happen to share a suit is a straight flush, R4.12), the engine's lean
    plays supply one that does.
    """
    seat, level = seen.seat, seen.level
    if move is None:
        if seen.top is None:
            raise ValueError("R6.1: a leader cannot pass")
        return Action(PASS, seat, actor=BOT)
    avoid = [c for m in (hand.flushes if hand else ()) for c in m.ids]
    cards = physical_cards(move, seen.hand, level, avoid)
    if cards is not None and _reads_as(cards, move.reading, seen.top, level):
        return Action(PLAY, seat, cards, move.reading, actor=BOT)
    composition = _composition(move)
    fallback = None
    for play in lean_plays(seen.hand, level, seen.top):
        if play.reading != move.reading:
            continue
        if _play_composition(play, level) == composition:
            return action_of(seat, play)
        if fallback is None:
            fallback = play
    if fallback is not None:
        return action_of(seat, fallback)
    raise ValueError(f"R4: the hand cannot make a {move.reading.name}")


def _reads_as(cards: Sequence[int], reading: Reading, top: Reading | None, level: int) -> bool:
    return reading in readings_of(cards, level) and (top is None or beats(reading, top, level))


def _composition(move: Move) -> tuple[tuple[tuple[int, int], ...], int]:
    return (tuple(sorted(move.take)), move.wilds)


def _play_composition(play: Play, level: int) -> tuple[tuple[tuple[int, int], ...], int]:
    counts: dict[int, int] = {}
    wilds = 0
    for c in play.cards:
        if is_wild(c, level):
            wilds += 1
        else:
            counts[RANK_OF[c]] = counts.get(RANK_OF[c], 0) + 1
    return (tuple(sorted(counts.items())), wilds)


class RandomBot(Bot):
    """Baseline: a uniformly random legal action.

    Leading: uniform over every distinct legal play (``plays.legal_plays``). Following:
    uniform over those that beat the top plus the pass (R6.2). Tribute and return: a
    uniform choice among the cards offered (R8.3, R8.4).
    """

    name = "random"

    def tribute_card(self, seen: Seen, rng: random.Random) -> int:
        return rng.choice(sorted(_choices(seen)))

    def return_card(self, seen: Seen, rng: random.Random) -> int:
        return rng.choice(sorted(_choices(seen)))

    def play(self, seen: Seen, rng: random.Random) -> Action:
        plays: list[Play | None] = list(legal_plays(seen.hand, seen.level, seen.top))
        if seen.top is not None:
            plays.append(None)
        return action_of(seen.seat, plays[rng.randrange(len(plays))])


class GreedyBot(Bot):
    """Baseline, precisely:

    - Lead (R6.1): its lowest single (weakest by R2.3; a natural before a wild of the same
      strength; then the lowest id).
    - Follow on its partner's play: pass (it never beats its partner).
    - Follow on an opponent's play: the lowest play of the led shape that beats it (R5.1;
      weakest key, then fewest wilds). With none, and only if that opponent holds 5
      cards or fewer, the lowest bomb that beats it (R5.2); otherwise pass. A bomb on the
      table is "the led shape" only for bombs, so it is answered under the same 5-card
      rule.
    - Tribute: the lowest-id card offered (R8.3). Return: the weakest card offered (R8.4).
    """

    name = "greedy"
    bomb_count = 5

    def play(self, seen: Seen, rng: random.Random) -> Action:
        level, top = seen.level, seen.top
        plays = lean_plays(seen.hand, level, top)
        if top is None:
            singles = [p for p in plays if p.reading.shape == SINGLE]
            return action_of(seen.seat, min(singles, key=lambda p: play_sort_key(p, level)))
        if seen.top_seat == seen.partner:
            return action_of(seen.seat, None)
        same = [p for p in plays if not p.reading.is_bomb and p.reading.shape == top.shape]
        if same and not top.is_bomb:
            return action_of(seen.seat, min(same, key=lambda p: play_sort_key(p, level)))
        if seen.counts[seen.top_seat] <= self.bomb_count:  # type: ignore[index]
            bombs = [p for p in plays if p.reading.is_bomb]
            if bombs:
                return action_of(seen.seat, min(bombs, key=lambda p: play_sort_key(p, level)))
        return action_of(seen.seat, None)
