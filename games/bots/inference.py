"""What the public history says about the hidden hands: deals of the unseen cards drawn
in proportion to how well they explain what the other seats did.

Every seat's decisions are public (plays and passes, R9.3). Given a candidate hand for
a seat, its hand at each of its past decisions is known too (the hand now plus what it
played since), so we can ask what the heuristic's policy (the lean one of ``fastsim``)
would have done there, and count the decisions it would not have made
(``Replay.mismatches``). Over deals played out between heuristic bots, the real hands
contradict about one decision in seven, hands dealt at random about one in three.

A seat's count depends on its own hand only: the policy sees its own hand, the card
counts (public) and the cards it has not seen, which are all cards not yet played
(public) minus its own. So the score of a deal is a sum over seats, and a swap of two
cards between two seats changes only their two terms.

``DealSampler`` draws deals from a Markov chain (Metropolis): start from a random deal
that respects the counts, the cards known to be held (``view.Seen.known_held``) and what
a tribute says of its donor's hand (``barred_cards``: nothing above its gift),
propose swapping one card between two other seats, and accept with probability
``exp(-BETA * (mismatches after - mismatches before))`` (always when it does not get
worse). After ``BURN`` steps it hands out a deal every ``THIN`` steps. Before anybody
else has decided anything every deal scores zero, and the sampler just shuffles.
"""

from __future__ import annotations

import math
import random

from games.engine.cards import HEARTS, NUM_CARDS, RANK_OF, SUIT_OF, card_strength, is_wild
from games.engine.reading import Reading, bomb_rung

from .fastsim import SF, SHAPE_CODE, FastDeal, _window, lean_hand
from .model import order_key, rank_counts
from .view import Seen

__all__ = ["Replay", "DealSampler", "BETA", "BURN", "THIN", "barred_cards", "deal_free"]

# A decision the policy would not have made makes a hand e^BETA times less likely.
BETA = 5.0
BURN = 200
THIN = 5
# The strength of a natural 10 (rank index 8), the strongest return there is (R8.4).
TEN = 8


def lean_of_cards(cards: tuple[int, ...], reading: Reading, level: int) -> tuple:
    """The lean play (``fastsim``) of physical cards played as ``reading``."""
    counts, wilds = rank_counts(cards, level)
    take = tuple((r, n) for r, n in enumerate(counts) if n)
    return (SHAPE_CODE[reading.shape], order_key(reading, level), reading.size, take, wilds,
            bomb_rung(reading), False)


class Replay:
    """A deal's public history, prepared once per decision, to score candidate hands."""

    def __init__(self, seen: Seen) -> None:
        level = seen.level
        self.level = level
        self.entries = [(m.seat, m.cards, None if m.reading is None
                         else lean_of_cards(m.cards, m.reading, level)) for m in seen.history]
        self.played: list[list[int]] = [[] for _ in range(4)]
        for m in seen.history:
            self.played[m.seat].extend(m.cards)
        self.start_sizes = [seen.counts[s] + len(self.played[s]) for s in range(4)]
        # Every card is in some hand when play starts.
        self.rem, self.remw = rank_counts(range(NUM_CARDS), level)
        self.deciders = {m.seat for m in seen.history}

    def mismatches(self, seat: int, hand: list[int], limit: float = 1 << 30) -> int:
        """How many of ``seat``'s past decisions the policy would not have made holding
        ``hand`` now (plus what it played since); counting stops once past ``limit``."""
        if seat not in self.deciders:
            return 0
        level = self.level
        held = list(hand) + self.played[seat]
        empty: tuple[list[int], int, list[tuple]] = ([0] * 15, 0, [])
        # Only ``seat``'s hand is real; the others' plays still come off what remains.
        fd = FastDeal([lean_hand(held, level) if s == seat else empty for s in range(4)],
                      level, self.entries[0][0], None, None, 0, [])
        fd.sizes = list(self.start_sizes)
        fd.rem = list(self.rem)
        fd.remw = self.remw
        for flush in fd.flushes[seat]:
            # Cards kept aside are out of the counts, so out of what it cannot see.
            for r in _window(flush[1], 5):
                fd.rem[r] -= 1
        bad = 0
        for s, cards, actual in self.entries:
            if s != seat:
                fd.play(s, actual)
                continue
            predicted = fd.lead(s) if fd.top is None else fd.follow(s)
            if actual is None:
                if predicted is not None:
                    bad += 1
                    if bad > limit:
                        return bad
                fd.play(s, None)
                continue
            if predicted is None or predicted[0] != actual[0] or predicted[1] != actual[1] \
                    or predicted[2] != actual[2]:
                bad += 1
                if bad > limit:
                    return bad
            move = actual
            if actual[0] == SF:
                for flush in fd.flushes[s]:
                    if flush[1] == actual[1]:
                        move = flush
                        break
            if move is actual:
                if predicted is not None and not predicted[6] and predicted[3] == actual[3] \
                        and predicted[4] == actual[4]:
                    move = predicted  # the same cards: the seat keeps its plan
                else:
                    counts = fd.counts[s]
                    if fd.wilds[s] < actual[4] or any(counts[r] < n for r, n in actual[3]):
                        _unfold(fd, s, held, level)
            for c in cards:
                held.remove(c)
            fd.play(s, move)
        return bad


def _unfold(fd: FastDeal, s: int, cards: list[int], level: int) -> None:
    """Put seat ``s``'s kept-aside straight flushes back into its counts (it played
    part of one as something else)."""
    for flush in fd.flushes[s]:
        for r in _window(flush[1], 5):
            fd.rem[r] += 1
    fd.counts[s], fd.wilds[s] = rank_counts(cards, level)
    fd.flushes[s] = []
    fd.plans[s] = None


def barred_cards(seen: Seen, pool: list[int]) -> dict[int, set[int]]:
    """Per other seat, the cards of ``pool`` it cannot hold: a tribute's donor gave its
    highest card other than a wild (R8.1, R8.2), so it holds no natural card stronger
    than its gift (R2.3). Cards only leave a hand in play, and what it got back, a 2-10
    (R8.4), is below the gift (a gift below a 10 is left out: the card it got back could
    be above it)."""
    level = seen.level
    barred: dict[int, set[int]] = {}
    for gift in seen.gifts:
        donor, card = gift.get("from"), gift.get("card")
        if card is None or donor == seen.seat:
            continue
        cap = card_strength(card, level)
        if cap < TEN:
            continue
        out = {c for c in pool if not is_wild(c, level) and card_strength(c, level) > cap}
        if out:
            barred.setdefault(donor, set()).update(out)
    return barred


def deal_free(pool: list[int], needs: dict[int, int], barred: dict[int, set[int]],
              rng: random.Random) -> dict[int, list[int]]:
    """``pool`` dealt at random to the seats of ``needs`` (that many cards each), no seat
    getting a card it is barred from: those cards go first, each to a seat that may hold
    it, in proportion to the room left; the rest fill what remains."""
    pool = list(pool)
    rng.shuffle(pool)
    free: dict[int, list[int]] = {s: [] for s in needs}
    if barred:
        room = dict(needs)
        restricted = {c for cards in barred.values() for c in cards}
        rest = []
        for c in pool:
            if c not in restricted:
                rest.append(c)
                continue
            seats = [s for s in needs if room[s] > 0 and c not in barred.get(s, ())]
            if not seats:
                return deal_free(pool, needs, {}, rng)  # no room: deal as if unknown
            pick = rng.randrange(sum(room[s] for s in seats))
            for s in seats:
                pick -= room[s]
                if pick < 0:
                    break
            free[s].append(c)
            room[s] -= 1
        at = 0
        for s in needs:
            n = room[s]
            free[s].extend(rest[at:at + n])
            at += n
        return free
    at = 0
    for s in needs:
        n = needs[s]
        free[s] = pool[at:at + n]
        at += n
    return free


class DealSampler:
    """Deals of the unseen cards to the other seats, drawn from the chain of the module
    doc. ``next_deal()`` returns ``{seat: cards}`` for the three other seats."""

    def __init__(self, seen: Seen, rng: random.Random, *, beta: float = BETA,
                 burn: int = BURN, thin: int = THIN) -> None:
        self.rng = rng
        self.beta = beta
        self.thin = thin
        others = [s for s in range(4) if s != seen.seat]
        self.others = others
        known: dict[int, list[int]] = {s: [] for s in others}
        for card, holder in seen.known_held.items():
            if holder in known:
                known[holder].append(card)
        self.known = known
        pinned = set(seen.known_held)
        pool = [c for c in seen.unseen_cards() if c not in pinned]
        self.needs = {s: max(0, seen.counts[s] - len(known[s])) for s in others}
        self.barred = barred_cards(seen, pool)
        free = deal_free(pool, self.needs, self.barred, rng)
        self.free = free
        self.movable = [s for s in others if free[s]]
        replay = Replay(seen)
        informative = any(s in replay.deciders for s in others) and len(self.movable) >= 2
        self.replay = replay if informative else None
        self.cache: dict[tuple[int, tuple[int, ...]], int] = {}
        self.score = {s: self._score(s) for s in others} if self.replay else {}
        self.steps = 0
        self.accepted = 0
        if self.replay is not None:
            for _ in range(burn):
                self._step()

    def _score(self, s: int, limit: float = 1 << 30) -> int:
        """Seat ``s``'s mismatches, or some number above ``limit`` once past it."""
        hand = self.known[s] + self.free[s]
        key = (s, tuple(sorted(hand)))
        value = self.cache.get(key)
        if value is None:
            assert self.replay is not None
            value = self.replay.mismatches(s, hand, limit)
            if value <= limit:
                self.cache[key] = value
        return value

    def _step(self) -> None:
        rng = self.rng
        a, b = rng.sample(self.movable, 2)
        fa, fb = self.free[a], self.free[b]
        i, j = rng.randrange(len(fa)), rng.randrange(len(fb))
        fa[i], fb[j] = fb[j], fa[i]
        x, y = fa[i], fb[j]
        barred = self.barred
        if barred and (x in barred.get(a, ()) or y in barred.get(b, ())):
            fa[i], fb[j] = fb[j], fa[i]  # a donor cannot hold a card above its tribute
            return
        if RANK_OF[x] == RANK_OF[y] and (SUIT_OF[x] == HEARTS) == (SUIT_OF[y] == HEARTS):
            # Same rank and both wild or both not: the counts the policy sees are the
            # same (but for a straight flush kept aside, rare enough to let pass).
            return
        self.steps += 1
        # Metropolis: accept when the new total is at most the old plus -ln(u) / beta,
        # so a replay can stop as soon as it is past that.
        old = self.score[a] + self.score[b]
        allowed = old + int(-math.log(1.0 - rng.random()) / self.beta)
        sa = self._score(a, allowed)
        if sa <= allowed:
            sb = self._score(b, allowed - sa)
            if sa + sb <= allowed:
                self.score[a], self.score[b] = sa, sb
                self.accepted += 1
                return
        fa[i], fb[j] = fb[j], fa[i]

    def next_deal(self) -> dict[int, list[int]]:
        if self.replay is None:
            pool = [c for s in self.others for c in self.free[s]]
            self.free = deal_free(pool, self.needs, self.barred, self.rng)
        else:
            for _ in range(self.thin):
                self._step()
        return {s: self.known[s] + list(self.free[s]) for s in self.others}
