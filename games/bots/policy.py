"""The heuristic's play policy, in rank-count terms (shared by the heuristic bot and the
expert's playouts).

Everything here works on a ``model.Hand`` and what its seat knows of the table
(``Table``): card counts per seat, the play to beat and whose it is, and what has not
been seen yet. Nothing reads another seat's hand.

The policy, in words:

- Lead (R6.1): from the split (``model.split_hand``), lead the weakest ordinary play,
  bigger shapes first at equal strength; with two plays left, lead the one nobody can
  beat first, so the other finishes; with one ordinary play and bombs, lead the winner
  or take control with a bomb first. Feed a partner close to finishing (1 card: a low
  single; 2 cards: a low pair). Against an opponent close to finishing, avoid leading a
  shape of its size that it could beat.
- Follow (R6.2): never top the partner, unless that play empties the hand. On an
  opponent's play, play the weakest play of the split that beats it; else break a group
  when the split loses little, or at any cost when an opponent is close to finishing;
  else bomb (R5.2, lowest bomb that beats) to stop an opponent with 6 or fewer cards, or
  when the bomb takes control and the hand can then finish (ordinary plays left no
  more than bombs + 1).
- Wind (R6.4): passing on a finished partner's last play lets the lead come back by the
  wind; finishing with a play nobody can beat hands the lead to the partner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from games.engine.cards import SMALL_JOKER
from games.engine.combos import JOKER_BOMB_READING, bomb_reading, run_reading, single_reading
from games.engine.reading import FULL_HOUSE, PAIR, SINGLE, STRAIGHT, TRIPLE, Reading, beats

from .model import (
    Hand, Move, Split, _group, bomb_moves, move_weight, order_key, same_shape_moves,
    split_counts, split_hand, strength_of, take_straights, unseen_beaters,
)

# An opponent with this many cards or fewer is "close to finishing": worth a bomb.
STOP_COUNT = 6
# Breaking a group to beat an opponent is fine when the split's cost grows by no more
# than this (playing a whole group lowers the cost by about 1).
BREAK_MARGIN = -0.2
URGENT_BREAK_MARGIN = 2.0


@dataclass(slots=True)
class Table:
    """What one seat knows when it decides (rank-count terms).

    ``counts``: cards held per seat (0 once finished). ``top``/``top_seat``: the play to
    beat and who made it (None when leading). ``unseen``: per rank, natural cards this
    seat has not seen (held by others); ``unseen_wilds`` likewise; None when unknown.
    """

    seat: int
    level: int
    counts: list[int]
    top: Reading | None = None
    top_seat: int | None = None
    unseen: Sequence[int] | None = None
    unseen_wilds: int = 0

    @property
    def partner(self) -> int:
        return (self.seat + 2) & 3

    def opponents(self) -> tuple[int, int]:
        return ((self.seat + 1) & 3, (self.seat + 3) & 3)

    def closest_opponent(self) -> int:
        """Fewest cards among opponents still holding cards (99 when none)."""
        live = [self.counts[o] for o in self.opponents() if self.counts[o] > 0]
        return min(live) if live else 99

    def is_winner(self, move: Move) -> bool:
        """Nobody can beat this play without a bomb (as far as this seat can tell)."""
        if move.is_bomb:
            return True
        if self.unseen is None:
            return move_weight(move.reading, self.level) <= 0.3
        return not unseen_beaters(self.unseen, self.unseen_wilds, move.reading, self.level)


# --------------------------------------------------------------------------------------
# Quick split for playouts: bombs whole, greedy straights over singletons, then groups.


def quick_split(hand: Hand) -> Split:
    """A fast split for playouts: no search, same shapes as ``split_hand``.

    Bombs and straight flushes are kept whole; a straight is taken greedily (low to
    high) where its five ranks are singletons but for at most one pair or one gap a wild
    fills; wilds then make a bomb of a triple or stay level cards.
    """
    level = hand.level
    c = list(hand.counts)
    w = hand.wilds
    moves: list[Move] = list(hand.flushes)
    if c[SMALL_JOKER] == 2 and c[SMALL_JOKER + 1] == 2:
        moves.append(Move(JOKER_BOMB_READING, ((SMALL_JOKER, 2), (SMALL_JOKER + 1, 2))))
        c[SMALL_JOKER] = c[SMALL_JOKER + 1] = 0
    for r in range(13):
        if c[r] >= 4:
            moves.append(Move(bomb_reading(r, c[r]), ((r, c[r]),)))
            c[r] = 0
    straights, w = take_straights(c, w)
    moves.extend(Move(run_reading(STRAIGHT, top), take, gaps) for top, take, gaps in straights)
    if w:
        # A wild turns a triple into a four-card bomb; else it stays a level card.
        for r in sorted(range(13), key=lambda x: -strength_of(x, level)):
            if w and c[r] == 3:
                moves.append(Move(bomb_reading(r, 4), ((r, 3),), 1))
                c[r] = 0
                w -= 1
    cost, groups = _group(c, w, level)
    moves.extend(groups)
    cost += sum(move_weight(m.reading, level) for m in moves[: len(moves) - len(groups)])
    return Split(tuple(moves), cost)


def quick_cost(hand: Hand) -> float:
    return quick_split(hand).cost


def full_cost(hand: Hand) -> float:
    cost, _ = split_counts(hand.counts, hand.wilds, hand.level)
    return cost - 0.8 * len(hand.flushes)


# --------------------------------------------------------------------------------------
# Choosing


def _lead_key(move: Move, level: int) -> tuple[float, int]:
    """Weakest first, bigger shapes first at equal strength; a run counts by its middle
    rank, so a low straight goes out early."""
    shape = move.reading.shape
    if shape in (SINGLE, PAIR, TRIPLE, FULL_HOUSE) or move.is_bomb:
        return (order_key(move.reading, level), -move.size)
    return (move.reading.key - 2, -move.size)


def choose_lead(hand: Hand, split: Split, t: Table) -> Move:
    """The lead (R6.1) described in the module doc."""
    level = t.level
    moves = list(split.moves)
    if len(moves) == 1:
        return moves[0]
    ordinary = [m for m in moves if not m.is_bomb]
    bombs = [m for m in moves if m.is_bomb]
    if not ordinary:
        return bombs[0]
    ordinary.sort(key=lambda m: _lead_key(m, level))
    if len(ordinary) == 1:
        if t.is_winner(ordinary[0]) or not bombs:
            return ordinary[0]
        return bombs[0]
    winners = [m for m in ordinary if t.is_winner(m)]
    if len(ordinary) == 2 and winners:
        # Lead the play nobody can beat; the other one then finishes.
        return winners[-1] if len(winners) == 2 else winners[0]
    if len(ordinary) - len(winners) <= 1 and winners and len(ordinary) <= 3 + len(bombs):
        return winners[0]

    partner_count = t.counts[t.partner]
    if 0 < partner_count <= 2:
        shape = SINGLE if partner_count == 1 else PAIR
        same = [m for m in ordinary if m.reading.shape == shape]
        if same:
            return same[0]
        if partner_count == 1:
            low = _lowest_single(hand)
            if low is not None:
                return low

    close = t.closest_opponent()
    if close <= 2:
        risky = SINGLE if close == 1 else PAIR
        safe = [m for m in ordinary if m.reading.shape != risky or t.is_winner(m)]
        if safe:
            return safe[0]
        return max(ordinary, key=lambda m: order_key(m.reading, level))

    # Keep the controls (plays with credit) for later; lead the weakest of the rest.
    small = [m for m in ordinary if move_weight(m.reading, level) >= 0.75]
    return (small or ordinary)[0]


def _lowest_single(hand: Hand) -> Move | None:
    level = hand.level
    best = None
    for r in range(15):
        if hand.counts[r] and (best is None or strength_of(r, level) < strength_of(best, level)):
            best = r
    if best is None:
        return Move(single_reading(level), (), 1) if hand.wilds else None
    return Move(single_reading(best), ((best, 1),))


def finishing_move(hand: Hand, split: Split, top: Reading) -> Move | None:
    """A play that empties the hand and beats ``top`` (R6.5), if there is one."""
    if len(split.moves) == 1 and beats(split.moves[0].reading, top, hand.level):
        return split.moves[0]
    size = hand.size
    if size > 10:
        return None
    for move in same_shape_moves(hand, top) + bomb_moves(hand, top):
        if move.size == size:
            return move
    return None


def choose_follow(hand: Hand, split: Split, t: Table, *, cheap: bool = False) -> Move | None:
    """The reply to ``t.top`` (R6.2): a play, or None to pass. See the module doc."""
    top = t.top
    assert top is not None and t.top_seat is not None
    level = t.level
    finish = finishing_move(hand, split, top)
    if finish is not None:
        return finish
    if t.top_seat == t.partner:
        return None

    top_count = t.counts[t.top_seat]
    close = min(top_count, t.closest_opponent())
    urgent = close <= STOP_COUNT

    if not top.is_bomb:
        same = [m for m in split.moves if not m.is_bomb and m.reading.shape == top.shape
                and beats(m.reading, top, level)]
        if same:
            same.sort(key=lambda m: order_key(m.reading, level))
            choice = same[0]
            # A control play spent on a far-from-finished opponent's low play is still
            # fine: it wins the lead. Only a joker-strength single is kept back early.
            if not urgent and choice.reading.shape == SINGLE and choice.reading.key >= SMALL_JOKER \
                    and len(split.moves) > 6 and top_count > 15:
                return None
            return choice
        # Playouts break a group only to stop an opponent: the cost test is too slow there.
        options = same_shape_moves(hand, top) if (urgent or not cheap) else []
        if options:
            cost = quick_cost if cheap else full_cost
            base = cost(hand)
            limit = URGENT_BREAK_MARGIN if urgent else BREAK_MARGIN
            for move in options[:4]:
                after = hand.copy()
                after.remove(move)
                if cost(after) - base <= limit:
                    return move

    if not urgent:
        bombs_held = sum(1 for m in split.moves if m.is_bomb)
        if not bombs_held or len(split.moves) - bombs_held > bombs_held + 1:
            return None  # no bomb would take control and still let the hand finish
    bombs = bomb_moves(hand, top)
    if bombs:
        # The lowest bomb that beats; the joker bomb only when nothing else does.
        return bombs[0]
    return None


def choose(hand: Hand, split: Split, t: Table, *, cheap: bool = False) -> Move | None:
    if t.top is None:
        return choose_lead(hand, split, t)
    return choose_follow(hand, split, t, cheap=cheap)


def candidate_moves(hand: Hand, split: Split, t: Table, limit: int = 6) -> list[Move | None]:
    """A handful of sensible moves for the expert to compare (None is a pass).

    The heuristic's own choice comes first; then, leading: the other plays of the split
    (weakest first, and the strongest ordinary play); following: a pass, the plays that
    beat the top (weakest split play, weakest break, lowest bomb).
    """
    level = t.level
    first = choose(hand, split, t)
    out: list[Move | None] = [first]

    def add(move: Move | None) -> None:
        if move not in out and len(out) < limit:
            out.append(move)

    if t.top is None:
        ordinary = sorted((m for m in split.moves if not m.is_bomb), key=lambda m: _lead_key(m, level))
        for move in ordinary[:3]:
            add(move)
        if ordinary:
            add(max(ordinary, key=lambda m: order_key(m.reading, level)))
        for move in ordinary[3:]:
            add(move)
        bombs = [m for m in split.moves if m.is_bomb]
        if bombs:
            add(bombs[0])
    else:
        top = t.top
        add(None)
        same = sorted((m for m in split.moves if not m.is_bomb and m.reading.shape == top.shape
                       and beats(m.reading, top, level)), key=lambda m: order_key(m.reading, level))
        for move in same[:2]:
            add(move)
        if not top.is_bomb:
            for move in same_shape_moves(hand, top)[:2]:
                add(move)
        bombs = bomb_moves(hand, top)
        if bombs:
            add(bombs[0])
    return out


def hand_split(hand: Hand, *, cheap: bool = False) -> Split:
    return quick_split(hand) if cheap else split_hand(hand)


__all__ = [
    "Table", "choose", "choose_lead", "choose_follow", "candidate_moves", "quick_split",
    "hand_split", "full_cost", "quick_cost", "finishing_move", "STOP_COUNT",
]
