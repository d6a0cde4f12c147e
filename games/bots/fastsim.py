"""Lean playouts for the expert: a deal played to its end on rank-count vectors.

The expert compares its candidate moves by playing each sampled deal to the end many
times, so a playout must cost well under a millisecond. This module restates the
heuristic's policy (``policy`` module doc) on plain lists and tuples instead of
``Hand``/``Move``/``Reading`` objects:

- a hand is 15 counts of natural cards per rank (R1.3), a number of wilds (R3.1) and the
  straight flushes kept aside (R4.9);
- a play is a tuple ``(shape, order, size, take, wilds, rung, flush)``: ``order`` is the
  R2.3 strength for singles, pairs, triples, full houses and rank bombs and the natural
  top for runs and straight flushes; ``take`` lists ``(rank, naturals)``; ``rung`` is the
  bomb ladder step (R5.2, -1 for an ordinary play); ``flush`` marks a straight flush
  kept aside (its cards are not in the counts);
- a seat's plan is the heuristic's searched split where the caller gives it
  (``full_plan``, for the expert's own hand), else the quick split (``quick_plan``:
  bombs whole, straights over singletons, runs of ranks holding exactly two or three
  cards, then groups by rank count); a play outside the plan triggers a new quick
  split;
- every simulated seat knows what the real heuristic knows: its own hand, the counts of
  the others, and which cards it has not seen (the other three hands together), so
  "nobody can beat this" (``is_winner``) is decided as at the table.

The trick rules are the engine's: a leader must play (R6.1); followers beat the top or
pass (R6.2); the trick ends when every other seat still holding cards has passed
(R6.3); the wind hands a finished seat's lead to its partner (R6.4); the deal ends when
1st's partner finishes or three seats have finished (R6.6). ``run`` scores R7.1's level
change for one seat's team; ``finish(first_only=True)`` stops as soon as one seat is out,
which is all a playout needs when it is scored by who wins the deal (R6.6: 1st's team).
"""

from __future__ import annotations

from typing import Sequence

from games.engine.cards import HEARTS, RANK_OF, SUIT_OF
from games.engine.reading import (
    BOMB as R_BOMB, FULL_HOUSE as R_FULL_HOUSE, JOKER_BOMB as R_JOKER_BOMB, PAIR as R_PAIR,
    PAIR_RUN as R_PAIR_RUN, SINGLE as R_SINGLE, STRAIGHT as R_STRAIGHT,
    STRAIGHT_FLUSH as R_STRAIGHT_FLUSH, TRIPLE as R_TRIPLE, TRIPLE_RUN as R_TRIPLE_RUN,
    Reading, bomb_rung,
)

from .model import (
    _PAIR_CREDIT, _RUN_CREDIT, _SINGLE_CREDIT, _SINGLE_LOW_EXTRA, _TRIPLE_CREDIT,
    BOMB_WEIGHT, BOMB_WEIGHT_BIG, BOMB_WEIGHT_STRAIGHT_FLUSH, JOKER_BOMB_WEIGHT, Hand, Move,
    order_key, split_counts, strength_of, take_straights,
)
from .policy import STOP_COUNT

__all__ = ["FastDeal", "hand_state", "play_of_move", "play_of_reading", "level_change"]

# Shape codes.
S, P, T, FH, ST, PR, TR, BOMB, SF, JB = range(10)
SHAPE_CODE = {R_SINGLE: S, R_PAIR: P, R_TRIPLE: T, R_FULL_HOUSE: FH, R_STRAIGHT: ST,
              R_PAIR_RUN: PR, R_TRIPLE_RUN: TR, R_BOMB: BOMB, R_STRAIGHT_FLUSH: SF,
              R_JOKER_BOMB: JB}
# Play tuple fields.
SHAPE, ORDER, SIZE, TAKE, WILDS, RUNG, FLUSH = range(7)

SMALL_JOKER = 13
BIG_JOKER = 14
ADVANCE = (0, 0, 3, 2, 1)
MAX_STEPS = 600

# R2.3 strength per level and rank; ranks weakest first per level.
STRENGTH = tuple(tuple(strength_of(r, level) for r in range(15)) for level in range(13))
ORDER_OF_RANKS = tuple(tuple(sorted(range(15), key=lambda r: s[r])) for s in STRENGTH)
# Run windows: (shape, top, ranks, width).
_LOW = {ST: 5, PR: 3, TR: 2}
_WIDTH = {ST: 1, PR: 2, TR: 3}


def _window(top: int, length: int) -> tuple[int, ...]:
    return tuple(12 if r < 0 else r for r in range(top - length + 1, top + 1))


RUN_WINDOWS = {shape: tuple((top, _window(top, length)) for top in range(13)
                            if top - length + 1 >= -1)
               for shape, length in _LOW.items()}
STRAIGHT_WINDOWS = RUN_WINDOWS[ST]
_FLUSH_WINDOWS = tuple(reversed(STRAIGHT_WINDOWS))  # highest top first


def _bomb_rung(size: int) -> int:
    return size - 4 if size <= 5 else size - 3


def weight(play: tuple, level: int) -> float:
    """``model.move_weight`` for a lean play: 1 minus a credit for control."""
    shape, order = play[SHAPE], play[ORDER]
    if play[RUNG] >= 0:
        if shape == JB:
            return JOKER_BOMB_WEIGHT
        if shape == SF:
            return BOMB_WEIGHT_STRAIGHT_FLUSH
        return BOMB_WEIGHT.get(play[SIZE], BOMB_WEIGHT_BIG)
    if shape == S:
        return 1.0 - _SINGLE_CREDIT[order] + _SINGLE_LOW_EXTRA[order]
    if shape == P:
        return 1.0 - _PAIR_CREDIT[order]
    if shape == T or shape == FH:
        return 1.0 - _TRIPLE_CREDIT[order]
    return 1.0 - _RUN_CREDIT[order]


def beats(play: tuple, top: tuple) -> bool:
    """R5.1-R5.3 on lean plays."""
    if play[RUNG] >= 0:
        if top[RUNG] < 0:
            return True
        return play[RUNG] > top[RUNG] or (play[RUNG] == top[RUNG] and play[ORDER] > top[ORDER])
    return top[RUNG] < 0 and play[SHAPE] == top[SHAPE] and play[ORDER] > top[ORDER]


def play_of_reading(reading: Reading, level: int) -> tuple:
    """A lean play standing for a reading on the table (only its shape and rank count)."""
    shape = SHAPE_CODE[reading.shape]
    return (shape, order_key(reading, level), reading.size, (), 0, bomb_rung(reading), False)


def play_of_move(move: Move, hand: Hand) -> tuple:
    """A lean play for an abstract move of ``hand`` (a kept-aside straight flush keeps
    its cards out of the counts)."""
    reading = move.reading
    shape = SHAPE_CODE[reading.shape]
    flush = bool(move.ids) and move in hand.flushes
    take = () if flush else move.take
    return (shape, order_key(reading, hand.level), reading.size, take,
            0 if flush else move.wilds, bomb_rung(reading), flush)


def full_plan(counts: Sequence[int], wilds: int, level: int, flushes: Sequence[tuple]) -> list:
    """The heuristic's own split (``model.split_counts``: runs searched) as lean plays."""
    plan = list(flushes)
    for m in split_counts(counts, wilds, level)[1]:
        reading = m.reading
        plan.append((SHAPE_CODE[reading.shape], order_key(reading, level), reading.size,
                     m.take, m.wilds, bomb_rung(reading), False))
    return plan


def hand_state(hand: Hand) -> tuple[list[int], int, list[tuple]]:
    """(counts, wilds, kept-aside straight flushes) of a hand model."""
    flushes = [(SF, m.reading.key, 5, (), 0, 2, True) for m in hand.flushes]
    return list(hand.counts), hand.wilds, flushes


def lean_hand(cards: Sequence[int], level: int) -> tuple[list[int], int, list[tuple]]:
    """(counts, wilds, straight flushes kept aside) of physical cards, for a sampled
    hand: a natural straight flush (R4.9) is kept aside when it breaks no rank bomb and
    at least three of its ranks are singletons (``model.Hand.from_cards(quick=True)``)."""
    counts = [0] * 15
    wilds = 0
    by_suit = [[0] * 13 for _ in range(4)]
    for i in cards:
        r = RANK_OF[i]
        if r == level and SUIT_OF[i] == HEARTS:
            wilds += 1
            continue
        counts[r] += 1
        if r < SMALL_JOKER:
            by_suit[SUIT_OF[i]][r] += 1
    flushes: list[tuple] = []
    found = True
    while found:
        found = False
        for held in by_suit:
            for top, ranks in _FLUSH_WINDOWS:
                if not (held[ranks[0]] and held[ranks[1]] and held[ranks[2]] and held[ranks[3]]
                        and held[ranks[4]]):
                    continue
                singles = 0
                for r in ranks:
                    if counts[r] == 4:
                        break  # would break a rank bomb
                    if counts[r] == 1:
                        singles += 1
                else:
                    if singles >= 3:
                        for r in ranks:
                            held[r] -= 1
                            counts[r] -= 1
                        flushes.append((SF, top, 5, (), 0, 2, True))
                        found = True
                        break
            if found:
                break
    return counts, wilds, flushes


def level_change(finished: Sequence[int], seat: int) -> int:
    """R7.1 from ``seat``'s side; ``finished`` lists the seats that emptied their hands."""
    first = finished[0]
    partner = (first + 2) & 3
    if partner in finished:
        place = list(finished).index(partner) + 1
    else:
        place = 4 if len(finished) >= 3 else 3
        # R6.6: with three seats out the last is 4th; with two out (not 1st's partner)
        # the deal is not over, so this is only reached when the playout was cut short.
    advance = ADVANCE[place]
    return advance if (first & 1) == (seat & 1) else -advance


# --------------------------------------------------------------------------------------
# Play builders


def _single(r: int, st: Sequence[int]) -> tuple:
    return (S, st[r], 1, ((r, 1),), 0, -1, False)


def _group_plays(c: list[int], wilds: int, level: int, st: Sequence[int], out: list) -> None:
    """Singles, pairs, triples, full houses by rank count; kept wilds as level cards."""
    triples = []
    pairs = []
    for r in range(15):
        n = c[r]
        if n == 0:
            continue
        if r >= SMALL_JOKER:
            if n == 2:
                out.append((P, st[r], 2, ((r, 2),), 0, -1, False))
            else:
                for _ in range(n):
                    out.append((S, st[r], 1, ((r, 1),), 0, -1, False))
        elif n >= 4:
            out.append((BOMB, st[r], n, ((r, n),), 0, _bomb_rung(n), False))
        elif n == 3:
            triples.append(r)
        elif n == 2:
            pairs.append(r)
        else:
            out.append((S, st[r], 1, ((r, 1),), 0, -1, False))
    if triples:
        pairs.sort(key=st.__getitem__)
        triples.sort(key=st.__getitem__)
        for t in triples:
            if pairs and st[pairs[0]] < 10:
                p = pairs.pop(0)
                out.append((FH, st[t], 5, ((t, 3), (p, 2)), 0, -1, False))
            else:
                out.append((T, st[t], 3, ((t, 3),), 0, -1, False))
    for p in pairs:
        out.append((P, st[p], 2, ((p, 2),), 0, -1, False))
    if wilds == 2:
        out.append((P, 13, 2, (), 2, -1, False))
    elif wilds == 1:
        out.append((S, 13, 1, (), 1, -1, False))


def quick_plan(counts: Sequence[int], wilds: int, level: int, flushes: Sequence[tuple]) -> list:
    """The quick split as lean plays: ``policy.quick_split``, plus pair runs and triple
    runs (R4.6, R4.7) over ranks that hold exactly two or three cards."""
    st = STRENGTH[level]
    c = list(counts)
    plan = list(flushes)
    if c[SMALL_JOKER] == 2 and c[BIG_JOKER] == 2:
        plan.append((JB, 0, 4, ((SMALL_JOKER, 2), (BIG_JOKER, 2)), 0, 8, False))
        c[SMALL_JOKER] = c[BIG_JOKER] = 0
    for r in range(13):
        n = c[r]
        if n >= 4:
            plan.append((BOMB, st[r], n, ((r, n),), 0, _bomb_rung(n), False))
            c[r] = 0
    straights, w = take_straights(c, wilds)
    plan.extend((ST, top, 5, take, gaps, -1, False) for top, take, gaps in straights)
    # Runs of triples and of pairs where the ranks hold exactly that many (R4.6, R4.7).
    for top, (a, b) in RUN_WINDOWS[TR]:
        if c[a] == 3 and c[b] == 3:
            c[a] = c[b] = 0
            plan.append((TR, top, 6, ((a, 3), (b, 3)), 0, -1, False))
    for top, (a, b, d) in RUN_WINDOWS[PR]:
        if c[a] == 2 and c[b] == 2 and c[d] == 2:
            c[a] = c[b] = c[d] = 0
            plan.append((PR, top, 6, ((a, 2), (b, 2), (d, 2)), 0, -1, False))
    if w:
        for r in reversed(ORDER_OF_RANKS[level]):
            if w and r < 13 and c[r] == 3:
                plan.append((BOMB, st[r], 4, ((r, 3),), 1, 0, False))
                c[r] = 0
                w -= 1
    _group_plays(c, w, level, st, plan)
    return plan


# --------------------------------------------------------------------------------------
# The deal


class FastDeal:
    """A mutable abstract deal: four lean hands, the trick in progress, the finishers."""

    __slots__ = ("counts", "wilds", "flushes", "plans", "sizes", "level", "turn", "top",
                 "top_seat", "passes", "finished", "rem", "remw", "st")

    def __init__(self, hands: Sequence[tuple[list[int], int, list[tuple]]], level: int,
                 turn: int, top: tuple | None, top_seat: int | None, passes: int,
                 finished: list[int], plans: Sequence[list | None] | None = None) -> None:
        self.counts = [list(h[0]) for h in hands]
        self.wilds = [h[1] for h in hands]
        self.flushes = [list(h[2]) for h in hands]
        self.plans: list[list | None] = ([None if p is None else list(p) for p in plans]
                                         if plans is not None else [None] * 4)
        self.sizes = [sum(h[0]) + h[1] + 5 * len(h[2]) for h in hands]
        self.level = level
        self.st = STRENGTH[level]
        self.turn = turn
        self.top = top
        self.top_seat = top_seat
        self.passes = passes
        self.finished = finished
        self.rem = [sum(h[0][r] for h in hands) for r in range(15)]
        self.remw = sum(self.wilds)

    # -- the rules ----------------------------------------------------------------------

    def _next_holding(self, seat: int) -> int:
        sizes = self.sizes
        for step in (1, 2, 3):
            nxt = (seat + step) & 3
            if sizes[nxt]:
                return nxt
        return seat

    def play(self, seat: int, move: tuple | None) -> bool:
        """Apply ``seat``'s move (None passes); True when the deal is over."""
        sizes = self.sizes
        if move is None:
            self.passes += 1
            top_seat = self.top_seat
            still_in = 0
            for s in range(4):
                if s != top_seat and sizes[s]:
                    still_in += 1
            if self.passes >= still_in:
                if sizes[top_seat]:
                    leader = top_seat
                elif sizes[(top_seat + 2) & 3]:
                    leader = (top_seat + 2) & 3
                else:
                    leader = self._next_holding(top_seat)
                self.top = None
                self.top_seat = None
                self.passes = 0
                self.turn = leader
            else:
                self.turn = self._next_holding(seat)
            return False
        if move[FLUSH]:
            self.flushes[seat].remove(move)
        else:
            counts = self.counts[seat]
            rem = self.rem
            for r, n in move[TAKE]:
                counts[r] -= n
                rem[r] -= n
            w = move[WILDS]
            if w:
                self.wilds[seat] -= w
                self.remw -= w
        plan = self.plans[seat]
        if plan is not None:
            if move in plan:
                plan.remove(move)
            else:
                self.plans[seat] = None
        sizes[seat] -= move[SIZE]
        self.top = move
        self.top_seat = seat
        self.passes = 0
        if sizes[seat] == 0:
            finished = self.finished
            finished.append(seat)
            if len(finished) >= 3 or (len(finished) >= 2 and ((finished[0] + 2) & 3) in finished):
                return True
        self.turn = self._next_holding(seat)
        return False

    def run(self, seat_of_interest: int) -> int:
        """Play to the end with the policy; R7.1's level change for ``seat_of_interest``."""
        self.finish()
        return level_change(self.finished or [seat_of_interest], seat_of_interest)

    def finish(self, first_only: bool = False) -> None:
        """Play on with the policy until the deal is over, or, with ``first_only``, until
        some seat has finished (1st decides who wins the deal, R6.6)."""
        finished = self.finished
        for _ in range(MAX_STEPS):
            if first_only and finished:
                return
            seat = self.turn
            move = self.lead(seat) if self.top is None else self.follow(seat)
            if self.play(seat, move):
                return

    # -- the policy -------------------------------------------------------------------

    def plan(self, seat: int) -> list:
        plan = self.plans[seat]
        if plan is None:
            plan = quick_plan(self.counts[seat], self.wilds[seat], self.level, self.flushes[seat])
            self.plans[seat] = plan
        return plan

    def is_winner(self, seat: int, play: tuple) -> bool:
        """Nobody can beat ``play`` without a bomb, judged from the cards this seat has
        not seen (the other hands together), as ``policy.Table.is_winner``."""
        if play[RUNG] >= 0:
            return True
        shape = play[SHAPE]
        own = self.counts[seat]
        rem = self.rem
        uw = self.remw - self.wilds[seat]
        if shape <= FH:
            need = 3 if shape >= T else shape + 1
            s = play[ORDER]
            st = self.st
            level = self.level
            for r in range(15):
                if st[r] <= s:
                    continue
                have = rem[r] - own[r]
                if r < SMALL_JOKER:
                    if need > 1:
                        have += uw
                    elif r == level:
                        have += uw
                    if have >= need:
                        return False
                elif shape <= P and have >= need:
                    return False
            return True
        width = _WIDTH[shape]
        key = play[ORDER]
        for top, ranks in RUN_WINDOWS[shape]:
            if top <= key:
                continue
            missing = 0
            for r in ranks:
                have = rem[r] - own[r]
                if have < width:
                    missing += width - have
            if missing <= uw:
                return False
        return True

    def lead(self, seat: int) -> tuple:
        """``policy.choose_lead`` on the lean hand."""
        plan = self.plan(seat)
        if len(plan) == 1:
            return plan[0]
        level = self.level
        ordinary = []
        bombs = []
        for m in plan:
            (bombs if m[RUNG] >= 0 else ordinary).append(m)
        if not ordinary:
            return min(bombs, key=_bomb_key)
        ordinary.sort(key=_lead_key)
        if len(ordinary) == 1:
            if not bombs or self.is_winner(seat, ordinary[0]):
                return ordinary[0]
            return min(bombs, key=_bomb_key)
        winners = [m for m in ordinary if self.is_winner(seat, m)]
        if winners:
            if len(ordinary) == 2:
                return winners[-1] if len(winners) == 2 else winners[0]
            if len(ordinary) - len(winners) <= 1 and len(ordinary) <= 3 + len(bombs):
                return winners[0]
        sizes = self.sizes
        partner_count = sizes[(seat + 2) & 3]
        if 0 < partner_count <= 2:
            shape = S if partner_count == 1 else P
            for m in ordinary:
                if m[SHAPE] == shape:
                    return m
            if partner_count == 1:
                low = self._lowest_single(seat)
                if low is not None:
                    return low
        a, b = sizes[(seat + 1) & 3], sizes[(seat + 3) & 3]
        close = min(a or 99, b or 99)
        if close <= 2:
            risky = S if close == 1 else P
            for m in ordinary:
                if m[SHAPE] != risky or self.is_winner(seat, m):
                    return m
            return max(ordinary, key=_order_of)
        for m in ordinary:
            if weight(m, level) >= 0.75:
                return m
        return ordinary[0]

    def _lowest_single(self, seat: int) -> tuple | None:
        counts = self.counts[seat]
        for r in ORDER_OF_RANKS[self.level]:
            if counts[r]:
                return _single(r, self.st)
        if self.wilds[seat]:
            return (S, 13, 1, (), 1, -1, False)
        return None

    def same_shape(self, seat: int, top: tuple) -> list:
        """``model.same_shape_moves``: plays of the top's shape that beat it, weakest
        first, each with as few wilds as possible."""
        counts = self.counts[seat]
        wilds = self.wilds[seat]
        level = self.level
        st = self.st
        shape = top[SHAPE]
        out = []
        if shape <= T:
            need = shape + 1
            top_s = top[ORDER]
            for r in ORDER_OF_RANKS[level]:
                if st[r] <= top_s:
                    continue
                have = counts[r]
                if r >= SMALL_JOKER:
                    if shape != T and have >= need:
                        out.append((shape, st[r], need, ((r, need),), 0, -1, False))
                    continue
                nat = have if have < need else need
                w = need - nat
                if w and (w > wilds or (need == 1 and r != level)):
                    continue
                if nat == 0 and r != level:
                    continue
                out.append((shape, st[r], need, ((r, nat),) if nat else (), w, -1, False))
        elif shape == FH:
            top_s = top[ORDER]
            order = ORDER_OF_RANKS[level]
            for t in order:
                if t >= SMALL_JOKER or st[t] <= top_s:
                    continue
                have = counts[t]
                nat = have if have < 3 else 3
                tw = 3 - nat
                if tw > wilds or (nat == 0 and t != level):
                    continue
                best = None
                for p in order:
                    if p == t or p >= SMALL_JOKER:
                        continue
                    ph = counts[p]
                    pn = ph if ph < 2 else 2
                    pw = 2 - pn
                    if pw > wilds - tw or pn == 0:
                        continue
                    score = (pw, ph != 2)
                    if best is None or score < best[0]:
                        best = (score, p, pn, pw)
                if best is None:
                    continue
                _, p, pn, pw = best
                take = (((t, nat),) if nat else ()) + ((p, pn),)
                out.append((FH, st[t], 5, take, tw + pw, -1, False))
        elif shape <= TR:
            width = _WIDTH[shape]
            size = top[SIZE]
            for t, ranks in RUN_WINDOWS[shape]:
                if t <= top[ORDER]:
                    continue
                need = 0
                take = []
                for r in ranks:
                    have = counts[r]
                    use = have if have < width else width
                    need += width - use
                    if use:
                        take.append((r, use))
                if need <= wilds and take:
                    out.append((shape, t, size, tuple(take), need, -1, False))
        return out

    def bomb_moves(self, seat: int, top: tuple | None) -> list:
        """``model.bomb_moves``: bombs that beat ``top``, lowest first (R5.2)."""
        counts = self.counts[seat]
        wilds = self.wilds[seat]
        st = self.st
        out = []
        for r in range(13):
            n = counts[r]
            if n >= 4:
                out.append((BOMB, st[r], n, ((r, n),), 0, _bomb_rung(n), False))
            if n >= 2 and wilds:
                for w in range(max(1, 4 - n), wilds + 1):
                    out.append((BOMB, st[r], n + w, ((r, n),), w, _bomb_rung(n + w), False))
        out.extend(self.flushes[seat])
        if counts[SMALL_JOKER] == 2 and counts[BIG_JOKER] == 2:
            out.append((JB, 0, 4, ((SMALL_JOKER, 2), (BIG_JOKER, 2)), 0, 8, False))
        if top is not None:
            out = [m for m in out if beats(m, top)]
        out.sort(key=_bomb_key)
        return out

    def follow(self, seat: int) -> tuple | None:
        """``policy.choose_follow`` (cheap mode) on the lean hand; None passes."""
        top = self.top
        plan = self.plan(seat)
        sizes = self.sizes
        size = sizes[seat]
        # A play that empties the hand (R6.5).
        if len(plan) == 1 and beats(plan[0], top):
            return plan[0]
        if size <= 10:
            if size == top[SIZE] and top[RUNG] < 0:
                for m in self.same_shape(seat, top):
                    if m[SIZE] == size:
                        return m
            if size >= 4 and len(plan) <= 2:
                # Only a hand of one rank (with wilds), one straight flush or the four
                # jokers is a single bomb, and such a hand splits into at most two plays.
                for m in self.bomb_moves(seat, top):
                    if m[SIZE] == size:
                        return m
        top_seat = self.top_seat
        if top_seat == ((seat + 2) & 3):
            return None
        top_count = sizes[top_seat]
        a, b = sizes[(seat + 1) & 3], sizes[(seat + 3) & 3]
        close = min(top_count, a or 99, b or 99)
        urgent = close <= STOP_COUNT
        if top[RUNG] < 0:
            best = None
            shape = top[SHAPE]
            order = top[ORDER]
            for m in plan:
                if m[SHAPE] == shape and m[RUNG] < 0 and m[ORDER] > order:
                    if best is None or m[ORDER] < best[ORDER]:
                        best = m
            if best is not None:
                if not urgent and shape == S and best[ORDER] >= 14 and len(plan) > 6 \
                        and top_count > 15:
                    return None
                return best
            if urgent:
                counts = self.counts[seat]
                for m in self.same_shape(seat, top)[:4]:
                    # Break a group, never a bomb.
                    if all(counts[r] < 4 for r, _ in m[TAKE]):
                        return m
        if not urgent:
            bombs_held = 0
            for m in plan:
                if m[RUNG] >= 0:
                    bombs_held += 1
            if not bombs_held or len(plan) - bombs_held > bombs_held + 1:
                return None
        bombs = self.bomb_moves(seat, top)
        return bombs[0] if bombs else None


def _bomb_key(m: tuple) -> tuple[int, int]:
    return (m[RUNG], m[ORDER])


def _order_of(m: tuple) -> int:
    return m[ORDER]


def _lead_key(m: tuple) -> tuple[int, int]:
    """``policy._lead_key``: weakest first, bigger shapes first at equal strength; a run
    counts by its middle rank."""
    shape = m[SHAPE]
    if shape <= FH:
        return (m[ORDER], -m[SIZE])
    return (m[ORDER] - 2, -m[SIZE])
