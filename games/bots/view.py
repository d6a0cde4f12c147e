"""What a bot knows, read from its seat's view (``engine.views.view_for``) and nothing else.

``Seen.from_view(view)`` parses the JSON-able view into typed facts: the seat's hand,
the level, the play to beat, exact card counts per seat, the public history, tribute
gifts, and what the seat has not seen (the unseen cards, per rank).

Exact counts: the view shows a count only once it is 10 or fewer (R9.3), but every count
follows from public facts: each seat is dealt 27 cards (R1.3), gives or receives one
card per public tribute gift and per return (R8), and plays are public. So a bot knows
every count exactly without seeing any hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from games.engine.cards import HEARTS, NUM_CARDS, RANK_OF, SUIT_OF, rank_index
from games.engine.reading import Reading

from .policy import Table

DEALT = 27


@dataclass(frozen=True, slots=True)
class Played:
    """One entry of the public history: a play (``reading`` set) or a pass."""

    seat: int
    cards: tuple[int, ...]
    reading: Reading | None
    trick: int


@dataclass(slots=True)
class Seen:
    """Facts a seat may know (see the module doc)."""

    seat: int
    level: int
    phase: str
    hand: tuple[int, ...]
    counts: list[int]
    top: Reading | None
    top_seat: int | None
    turn: int | None
    leading: bool
    history: list[Played]
    trick: list[Played]
    finished: list[int]
    gifts: list[dict[str, Any]]
    choices: list[int] | None
    step: int
    known_held: dict[int, int] = field(default_factory=dict)  # card -> seat holding it

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> "Seen":
        seat = view["viewer"]
        if seat is None:
            raise ValueError("R10.4: a bot plays a seat; a spectator's view has none")
        level = rank_index(view["level"])
        hand = tuple(view["hand"] or ())
        history = [_played(m) for m in view.get("history") or ()]
        trick = [_played(m) for m in view.get("trick") or ()]
        top_view = view.get("top")
        top = Reading.from_json(top_view["reading"]) if top_view else None
        top_seat = top_view["seat"] if top_view else None
        gifts = list((view.get("tribute") or {}).get("gifts") or ())
        counts = _exact_counts(seat, hand, history, gifts, view.get("counts") or [None] * 4)
        seen = cls(
            seat=seat, level=level, phase=view["phase"], hand=hand, counts=counts,
            top=top, top_seat=top_seat, turn=view.get("turn"),
            leading=bool(view.get("leading")), history=history, trick=trick,
            finished=list(view.get("finished") or ()), gifts=gifts,
            choices=view.get("choices"), step=int(view.get("step") or 0),
        )
        seen.known_held = _known_held(seen)
        return seen

    @property
    def partner(self) -> int:
        return (self.seat + 2) & 3

    def played_cards(self) -> list[int]:
        return [c for m in self.history for c in m.cards]

    def unseen_cards(self) -> list[int]:
        """Physical cards this seat has not seen: not in its hand, not played."""
        gone = set(self.hand)
        gone.update(self.played_cards())
        return [c for c in range(NUM_CARDS) if c not in gone]

    def unseen_counts(self) -> tuple[list[int], int]:
        """Unseen naturals per rank and unseen wilds (R3.1)."""
        counts = [0] * 15
        wilds = 0
        for c in self.unseen_cards():
            if RANK_OF[c] == self.level and SUIT_OF[c] == HEARTS:
                wilds += 1
            else:
                counts[RANK_OF[c]] += 1
        return counts, wilds

    def table(self) -> Table:
        unseen, unseen_wilds = self.unseen_counts()
        return Table(self.seat, self.level, list(self.counts), self.top, self.top_seat,
                     unseen, unseen_wilds)

    def passes_since_top(self) -> list[int]:
        """Seats that passed on the current top play (in order)."""
        out: list[int] = []
        for m in self.trick:
            if m.reading is None:
                out.append(m.seat)
            else:
                out = []
        return out


def _played(m: dict[str, Any]) -> Played:
    if m.get("pass") or m.get("reading") is None:
        return Played(m["seat"], (), None, m.get("trick", 0))
    return Played(m["seat"], tuple(m["cards"]), Reading.from_json(m["reading"]), m.get("trick", 0))


def _exact_counts(seat: int, hand: Sequence[int], history: list[Played],
                  gifts: list[dict[str, Any]], shown: Sequence[int | None]) -> list[int]:
    counts = [DEALT] * 4
    for gift in gifts:
        if gift.get("given"):
            counts[gift["from"]] -= 1
            counts[gift["to"]] += 1
        if gift.get("returned_done"):
            counts[gift["to"]] -= 1
            counts[gift["from"]] += 1
    for m in history:
        counts[m.seat] -= len(m.cards)
    counts[seat] = len(hand)
    # Where the table shows a count, it is the truth (R9.3).
    for s, value in enumerate(shown):
        if value is not None:
            counts[s] = value
    return counts


def _known_held(seen: Seen) -> dict[int, int]:
    """Cards this seat knows to be in another hand: a public tribute gift not played yet
    sits with its recipient; a card this seat gave back sits with its donor."""
    played = set(seen.played_cards())
    out: dict[int, int] = {}
    for gift in seen.gifts:
        card = gift.get("card")
        if card is not None and gift["to"] != seen.seat and card not in played:
            out[card] = gift["to"]
        returned = gift.get("returned")
        if returned is not None and gift["from"] != seen.seat and returned not in played:
            out[returned] = gift["from"]
    for card in list(out):
        if card in seen.hand:
            del out[card]
    return out
