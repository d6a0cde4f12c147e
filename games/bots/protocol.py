"""The Guandan AI competition protocol's vocabulary, in both directions (pure Python).

The yearly Guandan AI competitions publish a JSON-over-WebSocket protocol (documented in
``docs/bot-protocol.md``): the server sends ``notify`` and ``act`` messages, a bot answers
an ``act`` with ``{"actIndex": i}``, an index into the message's ``actionList``. This
module holds what both ends of this site need to speak it: the card codes, the
``[type, rank, cards]`` entries of an action list, and the order of an action list. The
site's endpoint (``games.botapi``) builds messages from a seat's view with it; the
client (``games.bots.client``) reads them back into a view for the site's bots.

Card codes: suit then rank, ``S H C D`` then ``2 3 4 5 6 7 8 9 T J Q K A``; the small
(black) joker is ``SB``, the big (red) joker ``HR``. The engine writes rank then suit
(R1.4: ``TH``, ``SJ``, ``BJ``).

>>> code_of(21), code_of(52), code_of(107), face_of_code("HT")
('HT', 'SB', 'HR', 'TH')
>>> from games.engine.cards import parse_faces, rank_index as r
>>> from games.engine.plays import legal_plays
>>> [entry_of(p.cards, p.reading) for p in legal_plays(parse_faces(["AS", "2S", "3H", "4C", "5D"]), r("7"), None)][-1]
['Straight', 'A', ['SA', 'S2', 'H3', 'C4', 'D5']]

Action list order (``action_list``), as the platform lists them: when following, ``PASS``
is index 0; then the ordinary plays by shape (Single, Pair, Trips, ThreePair,
ThreeWithTwo, TwoTrips, Straight), each from weakest to strongest (R2.3 strength for singles, pairs, triples and
full houses, the natural top of the run for runs, R2.4); then the bombs up the ladder
(R5.2: 4-card < 5-card < straight flush < 6 ... 10-card < joker bomb), within a rung by
strength (rank bombs) or natural top (straight flushes); ties (the same reading from
different cards) by the card codes. Every distinct play is listed once: the same
multiset of cards under the same reading (R3.5) is one entry. Inside an entry the cards
follow the platform's order too (``_card_order``): bots look cards up by position.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from games.engine.cards import (
    BIG_JOKER, RANK_OF, RANKS, SMALL_JOKER, SUIT_OF, SUITS, ids_of_face, is_wild, strength,
)
from games.engine.combos import Play, readings_of, run_ranks
from games.engine.plays import legal_plays
from games.engine.reading import (
    BOMB, FULL_HOUSE, JOKER_BOMB, PAIR, PAIR_RUN, RUN_LENGTH, SINGLE, STRAIGHT,
    STRAIGHT_FLUSH, TRIPLE, TRIPLE_RUN, Reading, bomb_rung,
)

__all__ = [
    "PASS_ENTRY", "TYPE_OF_SHAPE", "code_of", "codes_of", "face_of_code", "ids_for_codes",
    "rank_code", "entry_of", "action_list", "reading_of_entry", "same_entry",
]

PASS_ENTRY = ["PASS", "PASS", "PASS"]

# The protocol's type names for the engine's shapes (R4).
TYPE_OF_SHAPE = {
    SINGLE: "Single", PAIR: "Pair", TRIPLE: "Trips", FULL_HOUSE: "ThreeWithTwo",
    STRAIGHT: "Straight", PAIR_RUN: "ThreePair", TRIPLE_RUN: "TwoTrips",
    BOMB: "Bomb", STRAIGHT_FLUSH: "StraightFlush", JOKER_BOMB: "Bomb",
}
# The platform's order of the ordinary types in an action list.
_ORDINARY_ORDER = (SINGLE, PAIR, TRIPLE, PAIR_RUN, FULL_HOUSE, TRIPLE_RUN, STRAIGHT)
JOKER_RANK = "JOKER"


def rank_code(rank: int) -> str:
    """A rank index as the protocol writes it: ``2``-``A``, ``B`` small joker, ``R`` big."""
    if rank == SMALL_JOKER:
        return "B"
    if rank == BIG_JOKER:
        return "R"
    return RANKS[rank]


def code_of(card_id: int) -> str:
    """The protocol's code of a physical card: ``HT``, ``S2``, ``SB``, ``HR``."""
    rank = RANK_OF[card_id]
    if rank == SMALL_JOKER:
        return "SB"
    if rank == BIG_JOKER:
        return "HR"
    return SUITS[SUIT_OF[card_id]] + RANKS[rank]


def codes_of(card_ids: Iterable[int]) -> list[str]:
    return [code_of(c) for c in card_ids]


def face_of_code(code: str) -> str:
    """The engine's face (R1.4) of a protocol card code; ``ValueError`` when it is none."""
    if not isinstance(code, str) or len(code) != 2:
        raise ValueError(f"R1.4: {code!r} is not a card code")
    if code == "SB":
        return "SJ"
    if code == "HR":
        return "BJ"
    suit, rank = code[0], code[1]
    if suit not in SUITS or rank not in RANKS:
        raise ValueError(f"R1.4: {code!r} is not a card code")
    return rank + suit


def ids_for_codes(codes: Iterable[str], taken: Iterable[int] = ()) -> list[int]:
    """Physical ids for a multiset of card codes, avoiding the ids in ``taken`` (each face
    exists twice, R1.3); ``ValueError`` when a face would be needed a third time."""
    used = set(taken)
    out = []
    for code in codes:
        for card in ids_of_face(face_of_code(code)):
            if card not in used:
                used.add(card)
                out.append(card)
                break
        else:
            raise ValueError(f"R1.3: {code} appears more than twice")
    return out


def _entry_rank(reading: Reading) -> str:
    if reading.shape == JOKER_BOMB:
        return JOKER_RANK
    if reading.shape in RUN_LENGTH:
        # Runs are named by their lowest rank: A for A2345, AA2233 and AAA222 (R2.4).
        return rank_code(run_ranks(reading.key, RUN_LENGTH[reading.shape])[0])
    return rank_code(reading.key)


NO_RANK = -1  # a slot's rank that no card has (see ``_slots``)


def _slots(card_ids: Sequence[int], reading: Reading, level: int | None) -> list[int]:
    """The rank each card of a play stands for, in reading order: a run from its low end
    (A2345 starts with the ace), a full house's triple then its pair, else the play's
    rank (``SMALL_JOKER``/``BIG_JOKER`` for jokers)."""
    shape, size = reading.shape, len(card_ids)
    if shape in RUN_LENGTH:
        width = size // RUN_LENGTH[shape]
        return [rank for rank in run_ranks(reading.key, RUN_LENGTH[shape]) for _ in range(width)]
    if shape == JOKER_BOMB:
        return [SMALL_JOKER, SMALL_JOKER, BIG_JOKER, BIG_JOKER]
    if shape == FULL_HOUSE:
        others = [RANK_OF[c] for c in card_ids if RANK_OF[c] != reading.key and not _wild(c, level)]
        pair = others[0] if others else next((RANK_OF[c] for c in card_ids if RANK_OF[c] != reading.key), None)
        if pair is None:
            # Both wilds make the pair and are of the triple's own rank (three level cards
            # and the two wild hearts): they stand for some other rank, which no card of
            # the play names. Any rank but the triple's keeps them together after it.
            pair = NO_RANK
        return [reading.key] * 3 + [pair] * 2
    return [reading.key] * size


def _wild(card_id: int, level: int | None) -> bool:
    return level is not None and is_wild(card_id, level)


def _card_order(card_ids: Sequence[int], reading: Reading, level: int | None = None) -> list[int]:
    """The cards of a play in the order the competition platform lists them: by the rank
    each stands for in reading order (``_slots``); within a rank the natural cards by suit
    (S H C D, a wild standing for its own rank among them), then a wild standing for
    that rank. So a run reads from its low end with each wild where it fills the gap, and
    a full house's or a bomb's wild closes the group it completes:

    >>> from games.engine.cards import parse_faces, rank_index as r
    >>> from games.engine.combos import readings_of
    >>> def order(faces, level):
    ...     cards = parse_faces(faces)
    ...     return codes_of(_card_order(cards, readings_of(cards, r(level))[0], r(level)))
    >>> order(["6S", "7H", "2H", "9D", "5D"], "2")  # the wild fills the 8
    ['D5', 'S6', 'H7', 'H2', 'D9']
    >>> order(["2H", "AC", "AS", "4H", "4C"], "2")  # it completes the triple
    ['SA', 'CA', 'H2', 'H4', 'C4']
    >>> order(["2C", "2H"], "2")  # standing for itself: a 2 like the others
    ['H2', 'C2']
    >>> order(["2H", "2C", "2S", "2H", "2D"], "2")  # three 2s, and both wilds as the pair
    ['S2', 'C2', 'D2', 'H2', 'H2']
    """
    slots = _slots(card_ids, reading, level)
    wanted: dict[int, int] = {}
    for rank in slots:
        wanted[rank] = wanted.get(rank, 0) + 1
    groups: dict[int, list[int]] = {rank: [] for rank in wanted}
    fillers: list[int] = []
    in_suit_order = sorted(card_ids, key=lambda c: (SUIT_OF[c], c))
    # Natural cards first, then wilds standing for their own rank, into their rank's group.
    for card in [c for c in in_suit_order if not _wild(c, level)] + [c for c in in_suit_order if _wild(c, level)]:
        rank = RANK_OF[card]
        if len(groups.get(rank, ())) < wanted.get(rank, 0):
            groups[rank].append(card)
        else:
            fillers.append(card)
    for group in groups.values():
        group.sort(key=lambda c: (SUIT_OF[c], c))
    # Wilds standing for another rank close the groups they complete, in reading order.
    for rank in slots:
        if fillers and len(groups[rank]) < wanted[rank]:
            groups[rank].append(fillers.pop(0))
    out = [card for rank in dict.fromkeys(slots) for card in groups[rank]]
    return out + fillers  # nothing is left over for a legal reading


def entry_of(card_ids: Sequence[int], reading: Reading | None, level: int | None = None) -> list:
    """One action-list entry ``[type, rank, cards]`` for a play (``PASS`` for None); the
    cards in the platform's order (``_card_order``), which needs the level to tell the
    wild cards (R3.1)."""
    if reading is None:
        return list(PASS_ENTRY)
    return [TYPE_OF_SHAPE[reading.shape], _entry_rank(reading), codes_of(_card_order(card_ids, reading, level))]


def _sort_key(play: Play, level: int) -> tuple:
    reading = play.reading
    rung = bomb_rung(reading)
    if rung < 0:
        group = (0, _ORDINARY_ORDER.index(reading.shape))
    else:
        group = (1, rung)
    if reading.shape in RUN_LENGTH:
        value = reading.key  # natural top of the run (R2.4)
    elif reading.shape == JOKER_BOMB:
        value = 0
    else:
        value = strength(reading.key, level)
    return group, value, sorted(codes_of(play.cards))


def action_list(hand: Sequence[int], level: int, top: Reading | None) -> tuple[list[list], list[Play | None]]:
    """The actions a seat may take in the play phase, as the protocol lists them, and the
    engine play behind each entry (None for ``PASS``). ``top`` is the play to beat (None
    when the seat leads, R6.1: no ``PASS`` then)."""
    plays = sorted(legal_plays(hand, level, top), key=lambda p: _sort_key(p, level))
    entries: list[list] = []
    behind: list[Play | None] = []
    if top is not None:
        entries.append(list(PASS_ENTRY))
        behind.append(None)
    seen: set[tuple] = set()
    for play in plays:
        entry = entry_of(play.cards, play.reading, level)
        key = (entry[0], entry[1], tuple(sorted(entry[2])))
        if key in seen:
            continue  # the same cards under the same reading, from another copy
        seen.add(key)
        entries.append(entry)
        behind.append(play)
    return entries, behind


def same_entry(a: Sequence, b: Sequence) -> bool:
    """Whether two entries name the same action (cards compared as a multiset)."""
    if len(a) != 3 or len(b) != 3 or a[0] != b[0] or a[1] != b[1]:
        return False
    if isinstance(a[2], str) or isinstance(b[2], str):
        return a[2] == b[2]
    return sorted(a[2]) == sorted(b[2])


def reading_of_entry(entry: Sequence, card_ids: Sequence[int], level: int) -> Reading | None:
    """The engine's reading of an entry whose cards are ``card_ids``: the reading of those
    cards with the entry's type and rank (R3.5), else the first reading of that type,
    else None (not a combination under this site's rules)."""
    kind, rank = entry[0], entry[1]
    readings = readings_of(list(card_ids), level)
    for reading in readings:
        if TYPE_OF_SHAPE[reading.shape] == kind and _entry_rank(reading) == rank:
            return reading
    for reading in readings:
        if TYPE_OF_SHAPE[reading.shape] == kind:
            return reading
    return readings[0] if readings else None

