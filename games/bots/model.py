"""A fast rank-count model of a hand, the plays it can make, and how to split it.

Bots think about a hand as counts of natural cards per rank (15 ranks, R1.3) plus a
number of wilds (R3.1: the two hearts of the level rank), because suits matter only for
straight flushes (R4.9). A straight flush the hand holds is detected once, from the
physical cards, and kept aside as a bomb of its own (``Move.ids``).

A ``Move`` is an abstract play: its reading (R4), how many natural cards of each rank it
takes and how many wilds. ``physical_cards`` turns it back into card ids of a real hand.

``split_hand`` partitions a hand into the fewest weighted plays (R4 shapes): bombs and
straight flushes are kept whole; runs are searched exhaustively (with memo); what remains
groups by rank count into singles, pairs, triples and full houses; wilds go where they
save the most. The weight of a play is 1 minus a credit for control (a play that can win
a trick back), so a split with high cards and bombs scores better than one with the same
number of low plays.

>>> from games.engine.cards import parse_faces, rank_index as r
>>> hand = Hand.from_cards(parse_faces("3S 4H 5C 6D 7S 9S 9H 9C 8D 8S".split()), r("2"))
>>> [m.reading.name for m in split_hand(hand).moves]
['straight 3-7', 'full house, three 9s']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from games.engine.cards import BIG_JOKER, HEARTS, RANK_OF, SMALL_JOKER, SUIT_OF
from games.engine.combos import (
    JOKER_BOMB_READING, RUN_TOPS, bomb_reading, full_house_reading, pair_reading,
    run_ranks, run_reading, single_reading, triple_reading,
)
from games.engine.reading import (
    FULL_HOUSE, JOKER_BOMB, PAIR, PAIR_RUN, RUN_LENGTH, RUN_SHAPES, RUN_WIDTH,
    SINGLE, STRAIGHT, STRAIGHT_FLUSH, TRIPLE, TRIPLE_RUN, Reading, beats, bomb_rung,
)

# Runs searched when splitting, as (shape, top, ranks covered, cards per rank).
_RUN_WINDOWS: tuple[tuple[str, int, tuple[int, ...], int], ...] = tuple(
    (shape, top, run_ranks(top, RUN_LENGTH[shape]), RUN_WIDTH[shape])
    for shape in (STRAIGHT, PAIR_RUN, TRIPLE_RUN)
    for top in RUN_TOPS[shape]
)


def strength_of(rank: int, level: int) -> int:
    """R2.3 strength, inlined for the hot paths: BJ 15, SJ 14, level 13, else the rank."""
    if rank == level:
        return 13
    return rank if rank < SMALL_JOKER else rank + 1


def order_key(reading: Reading, level: int) -> int:
    """A number ordering readings of one shape from weakest to strongest (R5)."""
    if reading.shape in RUN_SHAPES or reading.shape == JOKER_BOMB:
        return reading.key
    return strength_of(reading.key, level)


def rank_counts(card_ids: Iterable[int], level: int) -> tuple[list[int], int]:
    """Natural cards per rank (15 ranks, jokers last) and wild cards (R3.1)."""
    counts = [0] * 15
    wilds = 0
    for i in card_ids:
        rank = RANK_OF[i]
        if rank == level and SUIT_OF[i] == HEARTS:
            wilds += 1
        else:
            counts[rank] += 1
    return counts, wilds


@dataclass(frozen=True, slots=True)
class Move:
    """An abstract play: a reading plus the natural ranks and wilds it takes.

    ``take`` lists ``(rank, how many naturals)``; ``wilds`` counts wilds used. A straight
    flush kept aside by the splitter carries its physical ``ids``.
    """

    reading: Reading
    take: tuple[tuple[int, int], ...]
    wilds: int = 0
    ids: tuple[int, ...] = ()

    @property
    def size(self) -> int:
        return self.reading.size

    @property
    def is_bomb(self) -> bool:
        return self.reading.is_bomb


@dataclass(slots=True)
class Hand:
    """Counts of natural cards per rank index (0-14), wilds, and straight flushes kept
    aside (each a ``Move`` with its physical ids).

    The level's hearts are wilds (R3.1) and are not counted among the naturals.
    """

    counts: list[int]
    wilds: int
    level: int
    flushes: list[Move] = field(default_factory=list)
    # Straight flushes that need a wild (R3.2, R4.9): options only, their cards stay in
    # the counts; each is read at its highest top (the same cards, the stronger reading).
    wild_flushes: list[Move] = field(default_factory=list)

    @classmethod
    def from_cards(cls, card_ids: Iterable[int], level: int, *, find_flushes: bool = True,
                   quick: bool = False) -> "Hand":
        ids = list(card_ids)
        counts, wilds = rank_counts(ids, level)
        hand = cls(counts, wilds, level)
        if find_flushes:
            _keep_straight_flushes(hand, ids, quick)
            if wilds and not quick:
                hand.wild_flushes = _wild_flushes(hand, ids)
        return hand

    @property
    def size(self) -> int:
        return sum(self.counts) + self.wilds + sum(m.size for m in self.flushes)

    def copy(self) -> "Hand":
        return Hand(list(self.counts), self.wilds, self.level, list(self.flushes),
                    list(self.wild_flushes))

    def can_make(self, move: Move) -> bool:
        if move.ids and move in self.flushes:
            return True
        if move.wilds > self.wilds:
            return False
        return all(self.counts[r] >= n for r, n in move.take)

    def remove(self, move: Move) -> None:
        if move.ids and move in self.flushes:
            self.flushes.remove(move)
            return
        for r, n in move.take:
            self.counts[r] -= n
        self.wilds -= move.wilds


def _wild_flushes(hand: Hand, ids: Sequence[int]) -> list[Move]:
    """Straight flushes the hand can make with its wilds, one per card set, each at its
    highest reading (R3.5: the player chooses; the higher top costs nothing more)."""
    level = hand.level
    wild_ids = sorted(i for i in ids if RANK_OF[i] == level and SUIT_OF[i] == HEARTS)
    kept = {i for m in hand.flushes for i in m.ids}
    by_suit: list[dict[int, int]] = [{} for _ in range(4)]
    for i in ids:
        rank = RANK_OF[i]
        if rank >= SMALL_JOKER or i in kept or (rank == level and SUIT_OF[i] == HEARTS):
            continue
        by_suit[SUIT_OF[i]].setdefault(rank, i)
    found: dict[tuple[int, ...], Move] = {}
    for suit in range(4):
        held = by_suit[suit]
        for top in range(3, 13):
            ranks = run_ranks(top, 5)
            present = [held[r] for r in ranks if r in held]
            need = 5 - len(present)
            if need == 0 or need > len(wild_ids) or len(present) < 3:
                continue
            cards = tuple(sorted(present + wild_ids[:need]))
            take = tuple((RANK_OF[i], 1) for i in sorted(present, key=lambda i: RANK_OF[i]))
            # Same cards at a higher top replace the lower reading.
            found[cards] = Move(run_reading(STRAIGHT_FLUSH, top), take, need, cards)
    return list(found.values())


def _keep_straight_flushes(hand: Hand, ids: Sequence[int], quick: bool = False) -> None:
    """Set aside natural straight flushes (R4.9) whose cards break no rank bomb.

    Only flushes of five natural cards are kept: a wild is worth more elsewhere. A flush
    is kept when the split with it aside is no worse than the split without it; the
    ``quick`` test (for playouts) keeps it when at least three of its ranks are
    singletons instead.
    """
    level = hand.level
    by_suit: list[dict[int, list[int]]] = [{} for _ in range(4)]
    for i in ids:
        rank = RANK_OF[i]
        if rank >= SMALL_JOKER or (rank == level and SUIT_OF[i] == HEARTS):
            continue
        by_suit[SUIT_OF[i]].setdefault(rank, []).append(i)
    found = True
    while found:
        found = False
        for suit in range(4):
            held = by_suit[suit]
            for top in range(12, 2, -1):
                ranks = run_ranks(top, 5)
                if not all(held.get(r) for r in ranks):
                    continue
                if any(hand.counts[r] >= 4 and hand.counts[r] - 1 < 4 for r in ranks):
                    continue  # would break a rank bomb
                after_counts = list(hand.counts)
                for r in ranks:
                    after_counts[r] -= 1
                if quick:
                    if sum(1 for r in ranks if hand.counts[r] == 1) < 3:
                        continue
                else:
                    before = split_cost(hand.counts, hand.wilds, level)
                    after = split_cost(after_counts, hand.wilds, level) + BOMB_WEIGHT_STRAIGHT_FLUSH
                    if after > before + 0.01:
                        continue
                card_ids = tuple(sorted(held[r][-1] for r in ranks))
                for r in ranks:
                    held[r].pop()
                hand.counts = after_counts
                hand.flushes.append(Move(run_reading(STRAIGHT_FLUSH, top), (), 0, card_ids))
                found = True
                break
            if found:
                break


# --------------------------------------------------------------------------------------
# Weights: a play costs 1 (one more lead needed to get rid of it) minus a credit for the
# chance that it wins its trick and so earns a lead back. Bombs are pure control.

BOMB_WEIGHT = {4: -0.6, 5: -0.7}
BOMB_WEIGHT_STRAIGHT_FLUSH = -0.8
BOMB_WEIGHT_BIG = -0.9
JOKER_BOMB_WEIGHT = -1.2


def bomb_weight(reading: Reading) -> float:
    if reading.shape == JOKER_BOMB:
        return JOKER_BOMB_WEIGHT
    if reading.shape == STRAIGHT_FLUSH:
        return BOMB_WEIGHT_STRAIGHT_FLUSH
    return BOMB_WEIGHT.get(reading.size, BOMB_WEIGHT_BIG)


# Credit by strength (0-15, R2.3) for singles, pairs and triples/full houses.
_SINGLE_CREDIT = [0.0] * 10 + [0.1, 0.2, 0.35, 0.5, 0.7, 0.9]
_PAIR_CREDIT = [0.0] * 10 + [0.15, 0.3, 0.45, 0.6, 0.85, 0.95]
_TRIPLE_CREDIT = [0.0] * 9 + [0.1, 0.2, 0.3, 0.45, 0.6, 0.0, 0.0]
# Runs by natural top (0-12).
_RUN_CREDIT = [0.0] * 9 + [0.1, 0.2, 0.3, 0.45]
# Low singles are the hardest cards to shed: a small extra cost.
_SINGLE_LOW_EXTRA = [0.15, 0.12, 0.1, 0.08, 0.05, 0.03] + [0.0] * 10


def move_weight(reading: Reading, level: int) -> float:
    shape = reading.shape
    if reading.is_bomb:
        return bomb_weight(reading)
    if shape in RUN_SHAPES:
        return 1.0 - _RUN_CREDIT[reading.key]
    s = strength_of(reading.key, level)
    if shape == SINGLE:
        return 1.0 - _SINGLE_CREDIT[s] + _SINGLE_LOW_EXTRA[s]
    if shape == PAIR:
        return 1.0 - _PAIR_CREDIT[s]
    return 1.0 - _TRIPLE_CREDIT[s]


# --------------------------------------------------------------------------------------
# Splitting


@dataclass(frozen=True, slots=True)
class Split:
    """A partition of a hand into plays, with its weighted cost (lower is better)."""

    moves: tuple[Move, ...]
    cost: float

    @property
    def plays(self) -> int:
        return len(self.moves)

    @property
    def ordinary(self) -> list[Move]:
        return [m for m in self.moves if not m.is_bomb]

    @property
    def bombs(self) -> list[Move]:
        return [m for m in self.moves if m.is_bomb]


def _rest_groups(counts: Sequence[int], wilds: int, level: int) -> tuple[float, list[Move]]:
    """Group what is left after runs by rank count, placing wilds where they help most.

    Each wild may stay a level card (a single or, with the other, the level pair R3.4),
    make a pair of a single, a triple of a pair, or a four-card bomb of a triple (R3.2).
    """
    if wilds == 0:
        return _group(counts, 0, level)
    best: tuple[float, list[Move]] | None = None
    for target in _wild_targets(counts, level):
        c = list(counts)
        if target >= 0:
            c[target] += 1
            rest = _rest_groups_one(c, wilds - 1, level, used={target: 1})
        else:
            rest = _rest_groups_one(c, wilds - 1, level, used={}, kept=1)
        if best is None or rest[0] < best[0]:
            best = rest
    assert best is not None
    return best


def _rest_groups_one(counts: list[int], wilds: int, level: int, used: dict[int, int],
                     kept: int = 0) -> tuple[float, list[Move]]:
    if wilds == 0:
        return _group(counts, kept, level, used)
    best: tuple[float, list[Move]] | None = None
    for target in _wild_targets(counts, level):
        c = list(counts)
        u = dict(used)
        k = kept
        if target >= 0:
            c[target] += 1
            u[target] = u.get(target, 0) + 1
        else:
            k += 1
        rest = _group(c, k, level, u)
        if best is None or rest[0] < best[0]:
            best = rest
    assert best is not None
    return best


def _wild_targets(counts: Sequence[int], level: int) -> list[int]:
    """Where one wild may go: -1 keeps it as itself; else the rank it joins (the lowest
    single, the lowest pair, the strongest triple, any bomb-sized rank)."""
    targets = [-1]
    low_single = low_pair = -1
    best_triple = -1
    for r in range(13):
        n = counts[r]
        if n == 1 and (low_single < 0 or strength_of(r, level) < strength_of(low_single, level)):
            low_single = r
        elif n == 2 and (low_pair < 0 or strength_of(r, level) < strength_of(low_pair, level)):
            low_pair = r
        elif n == 3 and (best_triple < 0 or strength_of(r, level) > strength_of(best_triple, level)):
            best_triple = r
    for r in (low_single, low_pair, best_triple):
        if r >= 0 and r not in targets:
            targets.append(r)
    return targets


def _group(counts: Sequence[int], kept_wilds: int, level: int,
           wild_used: dict[int, int] | None = None) -> tuple[float, list[Move]]:
    """Singles, pairs, triples, full houses and bombs by rank count (wilds already
    placed: ``wild_used`` says how many of each rank's count are wilds)."""
    wild_used = wild_used or {}
    moves: list[Move] = []
    triples: list[int] = []
    pairs: list[int] = []
    cost = 0.0
    for r in range(15):
        n = counts[r]
        if n == 0:
            continue
        w = wild_used.get(r, 0)
        nat = n - w
        if r >= SMALL_JOKER:
            # Joker pairs are pairs of one joker kind (R4.2); SJ+BJ are two singles.
            if n == 2:
                reading = pair_reading(r)
                moves.append(Move(reading, ((r, 2),)))
                cost += move_weight(reading, level)
            else:
                reading = single_reading(r)
                for _ in range(n):
                    moves.append(Move(reading, ((r, 1),)))
                    cost += move_weight(reading, level)
            continue
        if n >= 4:
            reading = bomb_reading(r, n)
            moves.append(Move(reading, ((r, nat),), w))
            cost += move_weight(reading, level)
        elif n == 3:
            triples.append(r)
        elif n == 2:
            pairs.append(r)
        else:
            reading = single_reading(r)
            moves.append(Move(reading, ((r, 1),) if nat else (), w))
            cost += move_weight(reading, level)
    # Full houses (R4.4): each triple takes the weakest pair; a pair run or a high pair
    # is worth more on its own, so pairs of Q and above stay pairs.
    pairs.sort(key=lambda r: strength_of(r, level))
    triples.sort(key=lambda r: strength_of(r, level))
    for t in triples:
        w = wild_used.get(t, 0)
        if pairs and strength_of(pairs[0], level) < 10:
            p = pairs.pop(0)
            pw = wild_used.get(p, 0)
            reading = full_house_reading(t)
            take = tuple(x for x in ((t, 3 - w), (p, 2 - pw)) if x[1])
            moves.append(Move(reading, take, w + pw))
        else:
            reading = triple_reading(t)
            moves.append(Move(reading, ((t, 3 - w),) if w < 3 else (), w))
        cost += move_weight(reading, level)
    for p in pairs:
        w = wild_used.get(p, 0)
        reading = pair_reading(p)
        moves.append(Move(reading, ((p, 2 - w),) if w < 2 else (), w))
        cost += move_weight(reading, level)
    if kept_wilds == 2:
        reading = pair_reading(level)
        moves.append(Move(reading, (), 2))
        cost += move_weight(reading, level)
    elif kept_wilds == 1:
        reading = single_reading(level)
        moves.append(Move(reading, (), 1))
        cost += move_weight(reading, level)
    return cost, moves


def _strength_order(level: int) -> tuple[int, ...]:
    """Rank indexes from weakest to strongest at this level (R2.3)."""
    return tuple(sorted(range(15), key=lambda r: strength_of(r, level)))


_ORDER = tuple(_strength_order(level) for level in range(13))


def _weights(level: int) -> tuple[list[float], list[float], list[float], list[float]]:
    single = [move_weight(single_reading(r), level) for r in range(15)]
    pair = [move_weight(pair_reading(r), level) for r in range(15)]
    triple = [move_weight(triple_reading(r), level) if r < 13 else 0.0 for r in range(15)]
    bomb = [0.0] * 4 + [move_weight(bomb_reading(0, n), level) for n in range(4, 11)]
    return single, pair, triple, bomb


_WEIGHTS = tuple(_weights(level) for level in range(13))


def _group_cost(counts: Sequence[int], kept_wilds: int, level: int) -> float:
    """The cost ``_group`` would give, without building the moves (the search's hot
    path)."""
    single_w, pair_w, triple_w, bomb_w = _WEIGHTS[level]
    cost = 0.0
    free_pairs = 0  # weak pairs (below Q) waiting for a triple, in strength order
    triples = 0
    for r in _ORDER[level]:
        n = counts[r]
        if n == 0:
            continue
        if r >= SMALL_JOKER:
            cost += pair_w[r] if n == 2 else single_w[r] * n
        elif n >= 4:
            cost += bomb_w[n]
        elif n == 3:
            cost += triple_w[r]
            triples += 1
        elif n == 2:
            if strength_of(r, level) < 10:
                free_pairs += 1
            cost += pair_w[r]
        else:
            cost += single_w[r]
    # Each triple absorbs one weak pair into a full house: the pair's play disappears.
    # (Only pairs below Q join full houses; their weights are all 1.0.)
    cost -= min(triples, free_pairs) * 1.0
    if kept_wilds == 2:
        cost += pair_w[level]
    elif kept_wilds == 1:
        cost += single_w[level]
    return cost


_REST_CACHE: dict = {}


def _rest_cost(counts: tuple[int, ...], wilds: int, level: int) -> float:
    """Lowest ``_group_cost`` over the ways of placing the wilds (``_rest_groups``)."""
    key = (counts, wilds, level)
    hit = _REST_CACHE.get(key)
    if hit is not None:
        return hit
    if wilds == 0:
        best = _group_cost(counts, 0, level)
    else:
        best = float("inf")
        for target in _wild_targets(counts, level):
            c = list(counts)
            if target >= 0:
                c[target] += 1
                if wilds == 2:
                    for second in _wild_targets(c, level):
                        c2 = list(c)
                        if second >= 0:
                            c2[second] += 1
                            cost = _group_cost(c2, 0, level)
                        else:
                            cost = _group_cost(c2, 1, level)
                        best = min(best, cost)
                else:
                    best = min(best, _group_cost(c, 0, level))
            else:
                if wilds == 2:
                    for second in _wild_targets(c, level):
                        c2 = list(c)
                        if second >= 0:
                            c2[second] += 1
                            cost = _group_cost(c2, 1, level)
                        else:
                            cost = _group_cost(c2, 2, level)
                        best = min(best, cost)
                else:
                    best = min(best, _group_cost(c, 1, level))
    if len(_REST_CACHE) > 400_000:
        _REST_CACHE.clear()
    _REST_CACHE[key] = best
    return best


def _search(counts: list[int], wilds: int, level: int, start: int,
            memo: dict) -> tuple[float, tuple[Move, ...]]:
    """Best (cost, runs) for ``counts``: runs from ``_RUN_WINDOWS[start:]``, then the
    rest grouped (its cost from ``_rest_cost``)."""
    key = (tuple(counts), wilds, start)
    hit = memo.get(key)
    if hit is not None:
        return hit
    best: tuple[float, tuple[Move, ...]] = (_rest_cost(key[0], wilds, level), ())
    for index in range(start, len(_RUN_WINDOWS)):
        shape, top, ranks, width = _RUN_WINDOWS[index]
        need = 0
        natural_total = 0
        for r in ranks:
            have = counts[r]
            if have < width:
                need += width - have
                natural_total += have
            else:
                natural_total += width
        if need > wilds or natural_total < 2 * width:
            continue
        take = []
        for r in ranks:
            use = min(counts[r], width)
            counts[r] -= use
            if use:
                take.append((r, use))
        reading = run_reading(shape, top)
        sub_cost, sub_runs = _search(counts, wilds - need, level, index, memo)
        for r, use in take:
            counts[r] += use
        total = sub_cost + move_weight(reading, level)
        if total < best[0] - 1e-9:
            best = (total, (Move(reading, tuple(take), need),) + sub_runs)
    memo[key] = best
    return best


_SPLIT_CACHE: dict = {}


def split_counts(counts: Sequence[int], wilds: int, level: int) -> tuple[float, list[Move]]:
    """The best split of naturals ``counts`` plus ``wilds``: (cost, moves).

    Rank bombs (4 or more naturals) and the joker bomb are kept whole (R4.8, R4.10).
    """
    key = (tuple(counts), wilds, level)
    hit = _SPLIT_CACHE.get(key)
    if hit is not None:
        return hit
    c = list(counts)
    fixed: list[Move] = []
    cost = 0.0
    if c[SMALL_JOKER] == 2 and c[BIG_JOKER] == 2:
        fixed.append(Move(JOKER_BOMB_READING, ((SMALL_JOKER, 2), (BIG_JOKER, 2))))
        cost += JOKER_BOMB_WEIGHT
        c[SMALL_JOKER] = c[BIG_JOKER] = 0
    for r in range(13):
        if c[r] >= 4:
            reading = bomb_reading(r, c[r])
            fixed.append(Move(reading, ((r, c[r]),)))
            cost += move_weight(reading, level)
            c[r] = 0
    sub_cost, runs = _search(c, wilds, level, 0, {})
    for move in runs:
        remove_counts(c, move)
    left_wilds = wilds - sum(m.wilds for m in runs)
    _, groups = _rest_groups(c, left_wilds, level)
    result = (cost + sub_cost, fixed + list(runs) + groups)
    if len(_SPLIT_CACHE) > 200_000:
        _SPLIT_CACHE.clear()
    _SPLIT_CACHE[key] = result
    return result


def split_cost(counts: Sequence[int], wilds: int, level: int) -> float:
    return split_counts(counts, wilds, level)[0]


def split_hand(hand: Hand) -> Split:
    """The best split of a hand, its straight flushes kept whole (see module doc)."""
    cost, moves = split_counts(hand.counts, hand.wilds, hand.level)
    flush_cost = sum(BOMB_WEIGHT_STRAIGHT_FLUSH for _ in hand.flushes)
    ordered = sorted(list(moves) + list(hand.flushes), key=lambda m: _move_sort(m, hand.level))
    return Split(tuple(ordered), cost + flush_cost)


def _move_sort(move: Move, level: int) -> tuple[int, int, int]:
    return (1 if move.is_bomb else 0, bomb_rung(move.reading), order_key(move.reading, level))


# --------------------------------------------------------------------------------------
# Plays a hand can make to beat a top play (abstract, without suits)


def _with_wilds(counts: Sequence[int], wilds: int, rank: int, need: int,
                level: int) -> tuple[tuple[tuple[int, int], ...], int] | None:
    """Take ``need`` cards of ``rank``: naturals first, then wilds (R3.2). A group of
    the level rank may be all wilds (R3.4); any other group needs one natural."""
    have = counts[rank]
    nat = min(have, need)
    w = need - nat
    if w > wilds:
        return None
    if nat == 0 and rank != level:
        return None
    return (((rank, nat),) if nat else ()), w


def same_shape_moves(hand: Hand, top: Reading) -> list[Move]:
    """Ordinary plays of the top's shape that beat it (R5.1), weakest first, each with
    as few wilds as possible."""
    counts, wilds, level = hand.counts, hand.wilds, hand.level
    shape = top.shape
    out: list[Move] = []
    if shape in (SINGLE, PAIR, TRIPLE):
        need = top.size
        top_s = strength_of(top.key, level)
        for r in _ORDER[level]:
            if strength_of(r, level) <= top_s:
                continue
            if r >= SMALL_JOKER:
                if shape != TRIPLE and counts[r] >= need:
                    reading = single_reading(r) if need == 1 else pair_reading(r)
                    out.append(Move(reading, ((r, need),)))
                continue
            got = _with_wilds(counts, wilds if need > 1 or r == level else 0, r, need, level)
            if got is None:
                continue
            take, w = got
            reading = (single_reading(r), pair_reading(r), triple_reading(r))[need - 1]
            out.append(Move(reading, take, w))
    elif shape == FULL_HOUSE:
        top_s = strength_of(top.key, level)
        for t in _ORDER[level]:
            if t >= SMALL_JOKER or strength_of(t, level) <= top_s:
                continue
            got = _with_wilds(counts, wilds, t, 3, level)
            if got is None:
                continue
            t_take, t_w = got
            best_pair = None
            for p in _ORDER[level]:
                if p == t or p >= SMALL_JOKER:
                    continue
                pg = _with_wilds(counts, wilds - t_w, p, 2, level)
                if pg is None or (pg[1] and counts[p] == 0):
                    continue
                if best_pair is None or (pg[1], counts[p] != 2) < (best_pair[1][1], counts[best_pair[0]] != 2):
                    best_pair = (p, pg)
            if best_pair is None:
                continue
            p, (p_take, p_w) = best_pair
            out.append(Move(full_house_reading(t), t_take + p_take, t_w + p_w))
    elif shape in (STRAIGHT, PAIR_RUN, TRIPLE_RUN):
        length, width = RUN_LENGTH[shape], RUN_WIDTH[shape]
        for t in RUN_TOPS[shape]:
            if t <= top.key:
                continue
            need = 0
            take = []
            for r in run_ranks(t, length):
                use = min(counts[r], width)
                need += width - use
                if use:
                    take.append((r, use))
            if need <= wilds and len(take) > 0:
                out.append(Move(run_reading(shape, t), tuple(take), need))
    return out


def bomb_moves(hand: Hand, top: Reading | None) -> list[Move]:
    """Bombs the hand holds that beat ``top`` (any bomb on a lead), lowest first (R5.2).

    Per rank: all its naturals (never a part of them: a split bomb wastes cards), or,
    with 3 naturals, a four-card bomb with a wild; straight flushes kept aside; the
    joker bomb.
    """
    counts, wilds, level = hand.counts, hand.wilds, hand.level
    out: list[Move] = []
    for r in range(13):
        n = counts[r]
        if n >= 4:
            out.append(Move(bomb_reading(r, n), ((r, n),)))
        if n >= 2:
            # Wilds lengthen a bomb (R3.2): each size up to all of them is an option.
            for w in range(max(1, 4 - n), wilds + 1):
                out.append(Move(bomb_reading(r, n + w), ((r, n),), w))
    out.extend(hand.flushes)
    out.extend(m for m in hand.wild_flushes if hand.can_make(m))
    if counts[SMALL_JOKER] == 2 and counts[BIG_JOKER] == 2:
        out.append(Move(JOKER_BOMB_READING, ((SMALL_JOKER, 2), (BIG_JOKER, 2))))
    if top is not None:
        out = [m for m in out if beats(m.reading, top, level)]
    out.sort(key=lambda m: (bomb_rung(m.reading), order_key(m.reading, level)))
    return out


def unseen_beaters(unseen: Sequence[int], unseen_wilds: int, reading: Reading,
                   level: int) -> bool:
    """Could the cards not yet seen beat ``reading`` without a bomb (R5.1)?

    ``unseen`` are counts per rank of cards in other hands; a rough but safe test used
    to call a play a winner ("nobody can follow that").
    """
    shape = reading.shape
    if reading.is_bomb:
        return False
    if shape in (SINGLE, PAIR, TRIPLE, FULL_HOUSE):
        need = {SINGLE: 1, PAIR: 2, TRIPLE: 3, FULL_HOUSE: 3}[shape]
        s = strength_of(reading.key, level)
        for r in range(15):
            if strength_of(r, level) <= s:
                continue
            have = unseen[r] + (unseen_wilds if r < SMALL_JOKER and need > 1 else 0)
            if r == level and need == 1:
                have += unseen_wilds
            if have >= need and (r < SMALL_JOKER or shape in (SINGLE, PAIR)):
                return True
        return False
    length, width = RUN_LENGTH[shape], RUN_WIDTH[shape]
    for t in RUN_TOPS[shape]:
        if t <= reading.key:
            continue
        missing = sum(max(0, width - unseen[r]) for r in run_ranks(t, length))
        if missing <= unseen_wilds:
            return True
    return False


def remove_counts(counts: list[int], move: Move) -> None:
    for r, n in move.take:
        counts[r] -= n


def physical_cards(move: Move, hand_ids: Sequence[int], level: int,
                   avoid: Iterable[int] = ()) -> tuple[int, ...] | None:
    """Card ids from ``hand_ids`` that make ``move``: naturals of each rank, then wilds.

    ``avoid`` lists ids to use only when no other copy will do (cards of a straight
    flush kept aside). None when the hand lacks the cards.
    """
    if move.ids:
        return move.ids if all(i in hand_ids for i in move.ids) else None
    avoid_set = set(avoid)
    naturals: dict[int, list[int]] = {}
    wild_list: list[int] = []
    for i in hand_ids:
        rank = RANK_OF[i]
        if rank == level and SUIT_OF[i] == HEARTS:
            wild_list.append(i)
        else:
            naturals.setdefault(rank, []).append(i)
    chosen: list[int] = []
    for r, n in move.take:
        pool = naturals.get(r, [])
        pool = sorted(pool, key=lambda i: (i in avoid_set, i))
        if len(pool) < n:
            return None
        chosen.extend(pool[:n])
    if len(wild_list) < move.wilds:
        return None
    chosen.extend(sorted(wild_list)[: move.wilds])
    return tuple(sorted(chosen))


# Straight windows, lowest top first: A2345 (top 5) to TJQKA (top A) (R2.4, R4.5).
STRAIGHT_WINDOWS = tuple(
    (top, tuple(12 if r < 0 else r for r in range(top - 4, top + 1))) for top in range(3, 13)
)


def take_straights(counts: list[int], wilds: int) -> tuple[list[tuple[int, tuple[tuple[int, int], ...], int]], int]:
    """Greedy straights over singletons for the quick splits (R4.5): a window is taken
    when at most one of its ranks is missing or held two or more times, and the wilds can
    fill the gaps. Takes the cards out of ``counts``; returns ``(top, take, gaps)`` per
    straight and the wilds left."""
    straights = []
    for top, ranks in STRAIGHT_WINDOWS:
        gaps = 0
        doubles = 0
        for r in ranks:
            n = counts[r]
            if n == 0:
                gaps += 1
            elif n == 2:
                doubles += 1
            elif n == 3:
                doubles += 2
        if gaps + doubles <= 1 and gaps <= wilds:
            take = tuple((r, 1) for r in ranks if counts[r])
            for r, _ in take:
                counts[r] -= 1
            wilds -= gaps
            straights.append((top, take, gaps))
    return straights, wilds

