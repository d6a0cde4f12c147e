"""One deal as a value: dealing, tribute, return, tricks, wind, finishing, settlement.

A ``DealState`` never changes. ``apply(state, action)`` checks an action against the
rules and returns the next state, or raises ``RuleError`` naming the rule it breaks and
leaves the state as it was (R9.1). Everything a deal needs is in the state, so replaying
its action log from the first state reproduces every intermediate state (R11.1).

Seats are 0-3 in code (the UI shows 1-4); team 0 is seats 0 and 2 (team A), team 1 is
seats 1 and 3 (team B), partners sit opposite (R1.1).

A whole deal, from the deal to the settlement:

>>> from games.engine.cards import parse_faces, rank_index as r
>>> state = start_play(hands=[parse_faces(["3S"]), parse_faces(["4S", "5D"]),
...                           parse_faces(["6S"]), parse_faces(["8S", "TD"])],
...                    level=r("2"), leader=0)
>>> state = apply(state, Action(PLAY, 0, tuple(parse_faces(["3S"]))))
>>> state.finished, state.turn, state.leading
((0,), 1, False)
>>> state = apply(state, Action(PASS, 1))
>>> state = apply(state, Action(PLAY, 2, tuple(parse_faces(["6S"]))))
>>> state.is_over, state.result.places
(True, (0, 2, 1, 3))
>>> state.result.settlement.explanation
'Team A finished 1-2: +3, 2 -> 5'
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from .cards import (
    ACE, BIG_JOKER, FACE_OF, HEARTS, NUM_CARDS, RANK_OF, card_strength, is_wild,
    sort_key, strength,
)
from .combos import beating_readings, explain_not_combination, readings_of
from .errors import RuleError
from .plays import legal_plays, timeout_lead
from .reading import Reading, beats, shown_rank, why_not_beats

__all__ = [
    "RULESET_VERSION", "TRIBUTE", "RETURN", "PLAY", "PASS", "ACTION_KINDS", "ACTORS",
    "HUMAN", "BOT", "TIMEOUT", "AUTOPILOT", "AUTOPILOT_AFTER",
    "PHASE_TRIBUTE", "PHASE_RETURN", "PHASE_PLAY", "PHASE_OVER", "PHASES",
    "Action", "Move", "Gift", "Tribute", "Settlement", "DealResult", "DealState",
    "deal_hands", "first_leader", "team_of", "partner_of", "team_name",
    "gift_candidates", "return_candidates", "plan_tribute", "settle",
    "new_deal", "start_play", "apply", "legal_actions", "timeout_action",
    "is_legal", "card_owner", "cards_in_play",
]

RULESET_VERSION = "2022.1"

# Action kinds.
TRIBUTE = "tribute"
RETURN = "return"
PLAY = "play"
PASS = "pass"
ACTION_KINDS = (TRIBUTE, RETURN, PLAY, PASS)

# Who made an action (R9.2): a person, a bot seat, the think clock running out, or the
# autopilot that plays for a seat after two consecutive timeouts.
HUMAN = "human"
BOT = "bot"
TIMEOUT = "timeout"
AUTOPILOT = "autopilot"
ACTORS = (HUMAN, BOT, TIMEOUT, AUTOPILOT)

PHASE_TRIBUTE = "tribute"
PHASE_RETURN = "return"
PHASE_PLAY = "play"
PHASE_OVER = "over"
PHASES = (PHASE_TRIBUTE, PHASE_RETURN, PHASE_PLAY, PHASE_OVER)

TRIBUTE_NONE = "none"
TRIBUTE_SINGLE = "single"
TRIBUTE_DOUBLE = "double"

# R8.4: a return is a natural card ranked 2-10 (rank indexes 0-8).
_HIGHEST_RETURN_RANK = 8
# R7.1: advance by the partner's place.
_ADVANCE = {2: 3, 3: 2, 4: 1}
# R9.2: this many consecutive timeouts put a seat on autopilot.
AUTOPILOT_AFTER = 2

Hand = tuple[int, ...]
Hands = tuple[Hand, Hand, Hand, Hand]


def team_of(seat: int) -> int:
    """R1.1: seats 0 and 2 are team 0 (A), seats 1 and 3 are team 1 (B)."""
    return seat & 1


def partner_of(seat: int) -> int:
    """R1.1: partners sit opposite."""
    return (seat + 2) & 3


def team_name(team: int) -> str:
    return "AB"[team]


def _seat_text(seat: int) -> str:
    """Seats as the UI numbers them (R1.1: 1-4)."""
    return f"seat {seat + 1}"


# --------------------------------------------------------------------------------------
# Dealing


def deal_hands(seed: int) -> Hands:
    """R1.3: shuffle the 108 physical cards with ``random.Random(seed)``, 27 to a seat.

    The hands are stored with the deal (R11.1), so a replay never depends on the RNG.

    >>> hands = deal_hands(7)
    >>> [len(h) for h in hands], len(set().union(*hands))
    ([27, 27, 27, 27], 108)
    >>> deal_hands(7) == hands
    True
    """
    deck = list(range(NUM_CARDS))
    random.Random(seed).shuffle(deck)
    hands = tuple(tuple(sorted(deck[i * 27:(i + 1) * 27])) for i in range(4))
    return hands  # type: ignore[return-value]


def first_leader(seed: int) -> int:
    """R8.6: the first lead of a match is a seat drawn from the deal's seed.

    It is the draw that follows the shuffle of ``deal_hands(seed)`` in the same seeded
    stream: uniform, reproducible, and recorded in the state as ``lead_seat``.
    """
    rng = random.Random(seed)
    rng.shuffle(list(range(NUM_CARDS)))
    return rng.randrange(4)


# --------------------------------------------------------------------------------------
# Values


@dataclass(frozen=True, slots=True)
class Action:
    """Something a seat does: give a tribute, give a return, play cards, or pass.

    ``cards`` are physical ids (0-107). ``reading`` is the declared reading of a play
    (R3.5); it may be left out when exactly one reading is legal in the situation.
    ``actor`` says who acted (R9.2): ``human``, ``bot``, ``timeout`` or ``autopilot``.
    The action log of a deal is the sequence of these values.
    """

    kind: str
    seat: int
    cards: tuple[int, ...] = ()
    reading: Reading | None = None
    actor: str = HUMAN

    def __post_init__(self) -> None:
        if not isinstance(self.cards, tuple):
            object.__setattr__(self, "cards", tuple(self.cards))

    def as_actor(self, actor: str) -> "Action":
        """The same action made by another actor (a timeout, the autopilot, a bot)."""
        return replace(self, actor=actor)


@dataclass(frozen=True, slots=True)
class Move:
    """A public record of one play or pass in the deal's tricks.

    ``cards`` is empty and ``reading`` None for a pass. ``trick`` numbers the deal's
    tricks from 0. ``actor`` is public: the table shows a timeout or the autopilot.
    """

    seat: int
    cards: tuple[int, ...]
    reading: Reading | None
    trick: int
    actor: str = HUMAN

    @property
    def is_pass(self) -> bool:
        return not self.cards


@dataclass(frozen=True, slots=True)
class Gift:
    """One tribute (R8.1, R8.2) and the return that answers it (R8.4).

    ``rank`` is fixed when the deal starts (the donor's highest rank other than a wild);
    ``card`` is the physical card once given (R8.3), ``returned`` the card given back.
    """

    donor: int
    recipient: int
    rank: int
    card: int | None = None
    returned: int | None = None


@dataclass(frozen=True, slots=True)
class Tribute:
    """The tribute of a deal: ``none`` (first deal), ``single`` or ``double`` (R8).

    ``resisted`` is R8.5 resistance; then ``gifts`` is empty.
    """

    kind: str = TRIBUTE_NONE
    resisted: bool = False
    gifts: tuple[Gift, ...] = ()


@dataclass(frozen=True, slots=True)
class Settlement:
    """The outcome of a finished deal for the match (R7), explained in words (R9.6)."""

    levels_before: tuple[int, int]
    active: int
    places: tuple[int, int, int, int]
    levels: tuple[int, int]
    winner_team: int
    advance: int
    match_over: bool
    explanation: str


@dataclass(frozen=True, slots=True)
class DealResult:
    """``places`` are the four seats from 1st to 4th (R6.5, R6.6)."""

    places: tuple[int, int, int, int]
    settlement: Settlement

    @property
    def winner_team(self) -> int:
        return self.settlement.winner_team


@dataclass(frozen=True, slots=True)
class DealState:
    """Everything about one deal (R11.1), as an immutable value.

    - ``dealt``: the four hands as dealt; ``hands``: the four hands now.
    - ``level``: the active level (R2.2); ``team_levels``: both teams' levels before the
      deal; ``prev_places``: the previous deal's places, None for a match's first deal.
    - ``phase``: ``tribute``, ``return``, ``play`` or ``over``.
    - ``tribute``: gifts and returns (R8); ``lead_seat``: who leads the first trick
      (R8.6), known from the start.
    - ``turn``: the seat to act in the play phase; ``top``: the play to beat (None when
      the turn seat leads); ``passes``: passes since that play; ``trick``: the current
      trick; ``trick_no``: its number; ``history``: every play and pass of the deal.
    - ``finished``: seats in the order they emptied their hands (R6.5).
    - ``timeouts`` and ``autopilot``: per seat, consecutive timeouts and the autopilot
      flag (R9.2).
    - ``step``: how many actions have been applied.
    - ``result``: places and settlement once the deal is over.
    """

    version: str
    seed: int | None
    level: int
    team_levels: tuple[int, int]
    prev_places: tuple[int, int, int, int] | None
    dealt: Hands
    hands: Hands
    phase: str
    tribute: Tribute
    lead_seat: int
    turn: int | None
    top: Move | None
    passes: int
    trick: tuple[Move, ...]
    trick_no: int
    history: tuple[Move, ...]
    finished: tuple[int, ...]
    timeouts: tuple[int, int, int, int]
    autopilot: tuple[bool, bool, bool, bool]
    step: int
    result: DealResult | None

    @property
    def is_over(self) -> bool:
        return self.phase == PHASE_OVER

    @property
    def leading(self) -> bool:
        """True when the seat to act leads a new trick (R6.1)."""
        return self.phase == PHASE_PLAY and self.top is None

    @property
    def to_act(self) -> tuple[int, ...]:
        """The seats that may act now: the turn seat in play; in tribute and return,
        every seat that still owes a card (possibly two at once)."""
        phase = self.phase
        if phase == PHASE_PLAY:
            return (self.turn,)  # type: ignore[return-value]
        if phase == PHASE_TRIBUTE:
            return tuple(sorted(g.donor for g in self.tribute.gifts if g.card is None))
        if phase == PHASE_RETURN:
            return tuple(sorted(g.recipient for g in self.tribute.gifts if g.returned is None))
        return ()

    @property
    def wilds(self) -> tuple[int, int]:
        """R3.1: the two physical wild cards of this deal (the hearts of the level)."""
        return (HEARTS * 13 + self.level, 54 + HEARTS * 13 + self.level)

    @property
    def top_reading(self) -> Reading | None:
        return self.top.reading if self.top is not None else None

    def gift_from(self, donor: int) -> Gift | None:
        for gift in self.tribute.gifts:
            if gift.donor == donor:
                return gift
        return None

    def gift_to(self, recipient: int) -> Gift | None:
        for gift in self.tribute.gifts:
            if gift.recipient == recipient:
                return gift
        return None


# --------------------------------------------------------------------------------------
# Tribute and return choices (R8)


def gift_candidates(hand: Iterable[int], level: int) -> tuple[int, ...]:
    """R8.1/R8.3: the physical cards a donor may give: every card of its highest rank by
    strength (R2.3) under the new deal's level, wilds left out.

    >>> from games.engine.cards import parse_faces, rank_index as r, faces_of
    >>> faces_of(gift_candidates(parse_faces(["7H", "7S", "7C", "AD", "3S"]), r("7")))
    ['7S', '7C']
    """
    best = -1
    out: list[int] = []
    for card in hand:
        if is_wild(card, level):
            continue
        value = card_strength(card, level)
        if value > best:
            best = value
            out = [card]
        elif value == best:
            out.append(card)
    return tuple(sorted(out))


def _gift_rank(hand: Iterable[int], level: int) -> int:
    candidates = gift_candidates(hand, level)
    if not candidates:
        raise ValueError("R8.1: a donor holds no card other than a wild")
    return RANK_OF[candidates[0]]


def return_candidates(hand: Iterable[int], level: int, gift: int | None = None) -> tuple[int, ...]:
    """R8.4: the physical cards a recipient may give back.

    A natural card ranked 2-10 that is not a level card and not a joker, never the exact
    card just received (``gift``). With no such card, the weakest card (R2.3) other than
    the gift; suit never breaks a tie (R2.3), so every card of that strength may go.

    >>> from games.engine.cards import parse_faces, rank_index as r, faces_of
    >>> faces_of(return_candidates(parse_faces(["3S", "8C", "7S", "7H", "JC", "SJ"]), r("7")))
    ['3S', '8C']
    >>> faces_of(return_candidates(parse_faces(["JS", "QC", "AS", "5S"]), r("5")))
    ['JS']
    """
    cards = [c for c in hand if c != gift]
    eligible = [c for c in cards if RANK_OF[c] <= _HIGHEST_RETURN_RANK and RANK_OF[c] != level]
    if eligible:
        return tuple(sorted(eligible))
    if not cards:
        return ()
    weakest = min(card_strength(c, level) for c in cards)
    return tuple(sorted(c for c in cards if card_strength(c, level) == weakest))


def _distinct_faces(cards: Iterable[int]) -> tuple[int, ...]:
    """One physical card per face (the lowest id): the two copies of a face are the
    same choice."""
    seen: dict[str, int] = {}
    for card in sorted(cards):
        seen.setdefault(FACE_OF[card], card)
    return tuple(seen.values())


def plan_tribute(hands: Sequence[Sequence[int]], level: int,
                 prev_places: Sequence[int]) -> tuple[Tribute, int]:
    """R8.1, R8.2, R8.5, R8.6: who gives to whom, resistance, and the first lead.

    Returns the tribute (gifts with their ranks, no card chosen yet) and the seat that
    leads once every return is done.

    - Previous places 1-2 (1st and 2nd are partners): double tribute. Both losers give
      their highest non-wild card; the higher goes to 1st, the lower to 2nd. Equal gifts:
      the donor reached first going forward from 1st's seat gives to 1st. The donor
      whose gift goes to 1st leads.
    - Otherwise single tribute: 4th gives to 1st (even when 4th is 1st's partner); the
      donor leads.
    - Resistance: the donors together hold both big jokers; no gifts, previous 1st leads.
    """
    first, second, third, fourth = prev_places
    double = team_of(first) == team_of(second)
    donors = (third, fourth) if double else (fourth,)
    big_jokers = sum(1 for d in donors for c in hands[d] if RANK_OF[c] == BIG_JOKER)
    kind = TRIBUTE_DOUBLE if double else TRIBUTE_SINGLE
    if big_jokers >= 2:
        return Tribute(kind, True, ()), first
    if not double:
        gift = Gift(fourth, first, _gift_rank(hands[fourth], level))
        return Tribute(kind, False, (gift,)), fourth
    rank_a, rank_b = _gift_rank(hands[third], level), _gift_rank(hands[fourth], level)
    strength_a = strength(rank_a, level)
    strength_b = strength(rank_b, level)
    if strength_a != strength_b:
        to_first = third if strength_a > strength_b else fourth
    else:
        # R8.2 equal gifts: forward seat order (R1.2) from 1st's seat.
        to_first = min((third, fourth), key=lambda d: (d - first) % 4)
    to_second = fourth if to_first == third else third
    rank_of = {third: rank_a, fourth: rank_b}
    gifts = (Gift(to_first, first, rank_of[to_first]), Gift(to_second, second, rank_of[to_second]))
    return Tribute(kind, False, gifts), to_first


# --------------------------------------------------------------------------------------
# Settlement (R7)


def _level_text(level: int) -> str:
    return shown_rank(level)


def settle(team_levels: Sequence[int], active: int, places: Sequence[int]) -> Settlement:
    """R7: promote the winning team and say whether the match is won.

    R7.1 only the team of 1st advances, from its own level: partner 2nd +3, 3rd +2,
    4th +1; the losers keep their level. R7.2 levels cap at A; reaching A is not a match
    win. R7.3 the match is won when a team that was at A plays a deal at A (its own
    level), takes 1st and its partner is 2nd or 3rd; 1-4 at A stays at A.

    >>> from games.engine.cards import rank_index as r
    >>> s = settle((r("K"), r("5")), r("K"), (0, 1, 2, 3))
    >>> s.levels == (r("A"), r("5")), s.match_over
    (True, False)
    >>> s.explanation
    'Team A finished 1-3: +2, K -> A. K +2 reaches A, not a match win'
    >>> settle((r("A"), r("5")), r("A"), (0, 1, 3, 2)).explanation
    'Team A finished 1-4: +1. 1-4 at A: stay on A'
    """
    places = tuple(places)
    if sorted(places) != [0, 1, 2, 3]:
        raise ValueError("R6.5: places must list the four seats once each")
    levels_before = (int(team_levels[0]), int(team_levels[1]))
    for value in levels_before + (active,):
        if not 0 <= value <= ACE:
            raise ValueError(f"R2.1: {value!r} is not a level")
    first = places[0]
    team = team_of(first)
    partner_place = places.index(partner_of(first)) + 1
    advance = _ADVANCE[partner_place]
    old = levels_before[team]
    new = min(ACE, old + advance)
    match_over = old == ACE and active == ACE and partner_place in (2, 3)
    levels = (new, levels_before[1]) if team == 0 else (levels_before[0], new)

    finish = f"Team {team_name(team)} finished 1-{partner_place}: +{advance}"
    if old == ACE:
        if match_over:
            text = f"{finish}. 1-{partner_place} at A: match won"
        elif active == ACE:
            text = f"{finish}. 1-4 at A: stay on A"
        else:
            text = (f"{finish}. Already at A, but this deal was played at "
                    f"{_level_text(active)}: stay on A, not a match win")
    else:
        text = f"{finish}, {_level_text(old)} -> {_level_text(new)}"
        if new == ACE:
            # R7.2: the level caps at A, and reaching it wins nothing yet.
            text += f". {_level_text(old)} +{advance} reaches A, not a match win"
    return Settlement(levels_before, active, places,  # type: ignore[arg-type]
                      levels, team, advance, match_over, text)


# --------------------------------------------------------------------------------------
# Building the first state


def _check_hands(hands: Sequence[Sequence[int]], *, full: bool) -> Hands:
    if len(hands) != 4:
        raise ValueError("R1.1: a deal has four hands")
    out = tuple(tuple(sorted(int(c) for c in h)) for h in hands)
    seen: set[int] = set()
    for hand in out:
        for card in hand:
            if not 0 <= card < NUM_CARDS:
                raise ValueError(f"R1.4: {card!r} is not a card id (0-107)")
            if card in seen:
                raise ValueError(f"R1.3: card {card} ({FACE_OF[card]}) is dealt twice")
            seen.add(card)
        if full and len(hand) != 27:
            raise ValueError("R1.3: each seat is dealt 27 cards")
    return out  # type: ignore[return-value]


def _check_level(level: int) -> int:
    if not isinstance(level, int) or not 0 <= level <= ACE:
        raise ValueError(f"R2.1: {level!r} is not a level (0-12)")
    return level


def new_deal(*, hands: Sequence[Sequence[int]], level: int, team_levels: Sequence[int],
             prev_places: Sequence[int] | None, seed: int | None) -> DealState:
    """The first state of a deal, with R8 applied as far as no one has to choose.

    First deal of a match (``prev_places`` None): no tribute; the first lead is drawn
    from ``seed`` (R8.6). Later deals: single or double tribute or resistance (R8.1,
    R8.2, R8.5). A donor whose highest cards are all one face has no choice (R8.3), so
    the gift is made at once; a recipient with a single eligible face returns it at
    once. The state is in phase ``tribute`` while a donor must choose, ``return`` while a
    recipient must choose, then ``play`` with ``lead_seat`` to lead (R8.6).
    """
    dealt = _check_hands(hands, full=True)
    _check_level(level)
    levels = (int(team_levels[0]), int(team_levels[1]))
    for value in levels:
        _check_level(value)
    if prev_places is None:
        if seed is None:
            raise ValueError("R8.6: the first deal of a match draws its first lead from the seed")
        tribute, lead = Tribute(), first_leader(seed)
        places = None
    else:
        places = tuple(int(s) for s in prev_places)
        if sorted(places) != [0, 1, 2, 3]:
            raise ValueError("R6.5: previous places must list the four seats once each")
        tribute, lead = plan_tribute(dealt, level, places)
    state = DealState(
        version=RULESET_VERSION, seed=seed, level=level, team_levels=levels,
        prev_places=places, dealt=dealt, hands=dealt, phase=PHASE_TRIBUTE,
        tribute=tribute, lead_seat=lead, turn=None, top=None, passes=0, trick=(),
        trick_no=0, history=(), finished=(), timeouts=(0, 0, 0, 0),
        autopilot=(False, False, False, False), step=0, result=None,
    )
    return _advance(state)


def start_play(*, hands: Sequence[Sequence[int]], level: int, leader: int,
               team_levels: Sequence[int] | None = None) -> DealState:
    """A state in the play phase from given hands, which may be short (endgames, the
    conformance ``deal`` op): no tribute, ``leader`` leads the first trick."""
    dealt = _check_hands(hands, full=False)
    _check_level(level)
    if leader not in (0, 1, 2, 3):
        raise ValueError(f"R1.1: {leader!r} is not a seat (0-3)")
    if not dealt[leader]:
        raise ValueError(f"R6.1: the leader, {_seat_text(leader)}, holds no cards")
    levels = (level, level) if team_levels is None else (int(team_levels[0]), int(team_levels[1]))
    return DealState(
        version=RULESET_VERSION, seed=None, level=level, team_levels=levels,
        prev_places=None, dealt=dealt, hands=dealt, phase=PHASE_PLAY, tribute=Tribute(),
        lead_seat=leader, turn=leader, top=None, passes=0, trick=(), trick_no=0,
        history=(), finished=(), timeouts=(0, 0, 0, 0),
        autopilot=(False, False, False, False), step=0, result=None,
    )


# --------------------------------------------------------------------------------------
# Phase progression


def _move_card(hands: Hands, card: int, giver: int, taker: int) -> Hands:
    out = list(hands)
    out[giver] = tuple(c for c in hands[giver] if c != card)
    out[taker] = tuple(sorted(hands[taker] + (card,)))
    return tuple(out)  # type: ignore[return-value]


def _advance(state: DealState) -> DealState:
    """Make every tribute and return that involves no choice, then move on a phase when
    nothing is owed (R8.3, R8.4, R8.6)."""
    if state.phase == PHASE_TRIBUTE:
        hands, gifts = state.hands, list(state.tribute.gifts)
        for i, gift in enumerate(gifts):
            if gift.card is None:
                options = _distinct_faces(gift_candidates(hands[gift.donor], state.level))
                if len(options) == 1:
                    hands = _move_card(hands, options[0], gift.donor, gift.recipient)
                    gifts[i] = replace(gift, card=options[0])
        state = replace(state, hands=hands, tribute=replace(state.tribute, gifts=tuple(gifts)))
        if any(g.card is None for g in gifts):
            return state
        state = replace(state, phase=PHASE_RETURN)
    if state.phase == PHASE_RETURN:
        hands, gifts = state.hands, list(state.tribute.gifts)
        for i, gift in enumerate(gifts):
            if gift.returned is None:
                options = _distinct_faces(
                    return_candidates(hands[gift.recipient], state.level, gift.card))
                if len(options) == 1:
                    hands = _move_card(hands, options[0], gift.recipient, gift.donor)
                    gifts[i] = replace(gift, returned=options[0])
        state = replace(state, hands=hands, tribute=replace(state.tribute, gifts=tuple(gifts)))
        if any(g.returned is None for g in gifts):
            return state
        state = replace(state, phase=PHASE_PLAY, turn=state.lead_seat)
    return state


# --------------------------------------------------------------------------------------
# Applying actions


def _next_holding(hands: Hands, seat: int) -> int | None:
    """R1.2: the next seat in order that still holds cards."""
    for step in (1, 2, 3):
        nxt = (seat + step) & 3
        if hands[nxt]:
            return nxt
    return None


def _check_cards(state: DealState, seat: int, cards: tuple[int, ...]) -> None:
    """R9.1: the cards are physical ids in the seat's hand, each once."""
    hand = state.hands[seat]
    for card in cards:
        if type(card) is not int or card not in hand:
            shown = FACE_OF[card] if type(card) is int and 0 <= card < NUM_CARDS else repr(card)
            raise RuleError("R9.1", f"{shown} is not in {_seat_text(seat)}'s hand")
    if len(set(cards)) != len(cards):
        raise RuleError("R9.1", "the same physical card is listed twice")


def _resolve_reading(state: DealState, cards: tuple[int, ...], declared: Reading | None) -> Reading:
    """R3.5 and R5: the reading the play is made as.

    A declared reading must be a legal reading of exactly these cards; otherwise the one
    legal reading in the situation is taken, and several ask the player to choose.
    """
    level = state.level
    top = state.top.reading if state.top is not None else None
    if declared is not None:
        if not isinstance(declared, Reading):
            raise RuleError("R3.5", "a declared reading must be a reading value")
        options = readings_of(cards, level)
        if declared not in options:
            if not options:
                raise RuleError.from_reason(explain_not_combination(cards, level))
            names = ", ".join(r.name for r in options)
            raise RuleError("R3.5", f"these cards cannot be played as {declared.name}; "
                            f"they read as {names}")
        if top is not None and not beats(declared, top, level):
            raise RuleError.from_reason(why_not_beats(declared, top, level))
        return declared
    if top is None:
        options = readings_of(cards, level)
        if not options:
            raise RuleError.from_reason(explain_not_combination(cards, level))
    else:
        options = beating_readings(cards, level, top)
        if not options:
            every = readings_of(cards, level)
            if not every:
                raise RuleError.from_reason(explain_not_combination(cards, level))
            # Explain with the reading closest to the top: one of its shape if any.
            closest = next((r for r in every if r.shape == top.shape), every[0])
            raise RuleError.from_reason(why_not_beats(closest, top, level))
    if len(options) > 1:
        names = " or ".join(r.name for r in options)
        raise RuleError("R3.5", f"these cards can be played as {names}: choose one")
    return options[0]


def _count_actor(state: DealState, seat: int, actor: str) -> dict:
    """R9.2: a timeout adds to the seat's count and two in a row put it on autopilot;
    the player acting again clears both. Bots and the autopilot leave them as they are."""
    if actor == TIMEOUT:
        timeouts = list(state.timeouts)
        timeouts[seat] += 1
        if timeouts[seat] >= AUTOPILOT_AFTER and not state.autopilot[seat]:
            autopilot = list(state.autopilot)
            autopilot[seat] = True
            return {"timeouts": tuple(timeouts), "autopilot": tuple(autopilot)}
        return {"timeouts": tuple(timeouts)}
    if actor == HUMAN and (state.timeouts[seat] or state.autopilot[seat]):
        timeouts = list(state.timeouts)
        autopilot = list(state.autopilot)
        timeouts[seat] = 0
        autopilot[seat] = False
        return {"timeouts": tuple(timeouts), "autopilot": tuple(autopilot)}
    return {}


def _same_action(a: Action, b: Action) -> bool:
    return (a.kind == b.kind and a.seat == b.seat and sorted(a.cards) == sorted(b.cards)
            and (a.reading is None or b.reading is None or a.reading == b.reading))


def apply(state: DealState, action: Action) -> DealState:
    """Apply one action and return the next state (R6, R8, R9).

    Raises ``RuleError`` naming the broken rule; the given state is never changed
    (R9.1). ``action.actor`` counts toward R9.2: a ``timeout`` action must be the
    automatic choice of ``timeout_action``, an ``autopilot`` action needs the seat to be
    on autopilot.
    """
    if state.phase == PHASE_OVER:
        raise RuleError("R6.6", "the deal is over")
    seat, kind, actor = action.seat, action.kind, action.actor
    if seat not in (0, 1, 2, 3) or type(seat) is not int:
        raise RuleError("R1.1", f"{seat!r} is not a seat")
    if actor not in ACTORS:
        raise RuleError("R9.2", f"{actor!r} is not an actor ({', '.join(ACTORS)})")
    if actor == AUTOPILOT and not state.autopilot[seat]:
        raise RuleError("R9.2", f"{_seat_text(seat)} is not on autopilot")
    # The play phase returns its changes, so the hot path builds one new state.
    if kind == PLAY:
        changes = _apply_play(state, action)
    elif kind == PASS:
        changes = _apply_pass(state, action)
    elif kind == TRIBUTE:
        changes = _apply_tribute(state, action)
    elif kind == RETURN:
        changes = _apply_return(state, action)
    else:
        raise RuleError("R9.1", f"{kind!r} is not an action ({', '.join(ACTION_KINDS)})")
    if actor == TIMEOUT and not _same_action(action, timeout_action(state, seat)):
        raise RuleError("R9.2", "on a timeout the engine makes the automatic choice")
    changes["step"] = state.step + 1
    if actor == TIMEOUT or actor == HUMAN:
        changes.update(_count_actor(state, seat, actor))
    return replace(state, **changes)


def _check_turn(state: DealState, seat: int) -> None:
    if state.phase != PHASE_PLAY:
        raise RuleError("R8.6", "the lead starts only after every tribute and return is done")
    if seat != state.turn:
        if not state.hands[seat]:
            raise RuleError("R1.2", f"{_seat_text(seat)} has finished and is skipped")
        raise RuleError("R6.2", f"it is {_seat_text(state.turn)}'s turn")  # type: ignore[arg-type]


def _apply_play(state: DealState, action: Action) -> dict:
    seat = action.seat
    _check_turn(state, seat)
    cards = action.cards
    if not cards:
        raise RuleError("R4.11", "a play needs at least one card")
    _check_cards(state, seat, cards)
    reading = _resolve_reading(state, cards, action.reading)

    played = set(cards)
    left = tuple(c for c in state.hands[seat] if c not in played)
    hands = list(state.hands)
    hands[seat] = left
    hands_t: Hands = tuple(hands)  # type: ignore[assignment]
    move = Move(seat, tuple(sorted(cards)), reading, state.trick_no, action.actor)
    history = state.history + (move,)
    trick = state.trick + (move,)
    finished = state.finished
    if not left:
        finished = finished + (seat,)
        # R6.6: the deal ends when 1st's partner finishes, or when three have finished.
        if len(finished) >= 3 or partner_of(finished[0]) in finished:
            return _end(state, hands_t, history, trick, move, finished)
    return dict(hands=hands_t, history=history, trick=trick, top=move, passes=0,
                finished=finished, turn=_next_holding(hands_t, seat))


def _end(state: DealState, hands: Hands, history: tuple[Move, ...], trick: tuple[Move, ...],
         move: Move, finished: tuple[int, ...]) -> dict:
    """R6.6: fill the remaining places without play and settle (R7).

    After 1-2 the two losers take 3rd and 4th in seat order going forward from 1st's
    seat (their order changes nothing: both give tribute next deal, R8.2)."""
    first = finished[0]
    rest = tuple(s for s in ((first + k) & 3 for k in (1, 2, 3)) if s not in finished)
    places = finished + rest
    settlement = settle(state.team_levels, state.level, places)
    return dict(hands=hands, history=history, trick=trick, top=move, passes=0,
                finished=finished, turn=None, phase=PHASE_OVER,
                result=DealResult(places, settlement))  # type: ignore[arg-type]


def _apply_pass(state: DealState, action: Action) -> dict:
    seat = action.seat
    _check_turn(state, seat)
    if state.top is None:
        raise RuleError("R6.1", "a leader cannot pass")
    if action.cards or action.reading is not None:
        raise RuleError("R6.2", "a pass plays no cards")
    hands = state.hands
    move = Move(seat, (), None, state.trick_no, action.actor)
    history = state.history + (move,)
    passes = state.passes + 1
    top_seat = state.top.seat
    still_in = sum(1 for s in (0, 1, 2, 3) if s != top_seat and hands[s])
    if passes < still_in:
        return dict(history=history, trick=state.trick + (move,), passes=passes,
                    turn=_next_holding(hands, seat))
    # R6.3: everyone else still holding cards passed: the last seat that played leads;
    # R6.4 wind: if it has emptied its hand, its partner leads.
    if hands[top_seat]:
        leader = top_seat
    elif hands[partner_of(top_seat)]:
        leader = partner_of(top_seat)
    else:
        leader = _next_holding(hands, top_seat)  # type: ignore[assignment]
    return dict(history=history, trick=(), top=None, passes=0,
                trick_no=state.trick_no + 1, turn=leader)


def _single_card(action: Action, rule: str, what: str) -> int:
    if len(action.cards) != 1 or action.reading is not None:
        raise RuleError(rule, f"a {what} is exactly one card")
    return action.cards[0]


def _apply_tribute(state: DealState, action: Action) -> dict:
    seat = action.seat
    gift = state.gift_from(seat)
    if state.phase != PHASE_TRIBUTE or gift is None or gift.card is not None:
        rule = "R8.1" if state.phase == PHASE_TRIBUTE else "R8.6"
        raise RuleError(rule, f"{_seat_text(seat)} owes no tribute now")
    card = _single_card(action, "R8.1", "tribute")
    _check_cards(state, seat, (card,))
    if card not in gift_candidates(state.hands[seat], state.level):
        raise RuleError("R8.1", "the tribute is the highest card other than a wild: "
                        f"a {shown_rank(gift.rank)}")
    hands = _move_card(state.hands, card, seat, gift.recipient)
    gifts = tuple(replace(g, card=card) if g is gift else g for g in state.tribute.gifts)
    tribute = replace(state.tribute, gifts=gifts)
    return _changes(_advance(replace(state, hands=hands, tribute=tribute)))


def _apply_return(state: DealState, action: Action) -> dict:
    seat = action.seat
    gift = state.gift_to(seat)
    if state.phase != PHASE_RETURN or gift is None or gift.returned is not None:
        rule = "R8.4" if state.phase in (PHASE_TRIBUTE, PHASE_RETURN) else "R8.6"
        raise RuleError(rule, f"{_seat_text(seat)} owes no return now")
    card = _single_card(action, "R8.4", "return")
    _check_cards(state, seat, (card,))
    options = return_candidates(state.hands[seat], state.level, gift.card)
    if card not in options:
        if card == gift.card:
            raise RuleError("R8.4", "the card just received cannot go back")
        if any(RANK_OF[c] <= _HIGHEST_RETURN_RANK and RANK_OF[c] != state.level for c in options):
            raise RuleError("R8.4", "a return is a natural card ranked 2-10, "
                            "not a level card and not a joker")
        raise RuleError("R8.4", "with no card ranked 2-10 to return, the weakest card goes "
                        f"back: a {shown_rank(RANK_OF[options[0]])}")
    hands = _move_card(state.hands, card, seat, gift.donor)
    gifts = tuple(replace(g, returned=card) if g is gift else g for g in state.tribute.gifts)
    tribute = replace(state.tribute, gifts=gifts)
    return _changes(_advance(replace(state, hands=hands, tribute=tribute)))


def _changes(state: DealState) -> dict:
    """The fields that tribute and return can change, as changes for ``apply``."""
    return dict(hands=state.hands, tribute=state.tribute, phase=state.phase, turn=state.turn)


def is_legal(state: DealState, action: Action) -> bool:
    try:
        apply(state, action)
    except RuleError:
        return False
    return True


# --------------------------------------------------------------------------------------
# Choices: legal actions and the timeout choice


def legal_actions(state: DealState, seat: int) -> list[Action]:
    """Every distinct action ``seat`` may take now.

    Tribute and return offer one card per face (the two copies of a face are the same
    choice); the play phase offers a pass (unless leading, R6.1) and every distinct play
    with its reading (``plays.legal_plays``).
    """
    phase = state.phase
    if phase == PHASE_TRIBUTE:
        gift = state.gift_from(seat)
        if gift is None or gift.card is not None:
            return []
        options = gift_candidates(state.hands[seat], state.level)
        return [Action(TRIBUTE, seat, (c,)) for c in _distinct_faces(options)]
    if phase == PHASE_RETURN:
        gift = state.gift_to(seat)
        if gift is None or gift.returned is not None:
            return []
        options = return_candidates(state.hands[seat], state.level, gift.card)
        return [Action(RETURN, seat, (c,)) for c in _distinct_faces(options)]
    if phase != PHASE_PLAY or seat != state.turn:
        return []
    top = state.top_reading
    actions = [] if top is None else [Action(PASS, seat)]
    actions.extend(Action(PLAY, seat, p.cards, p.reading)
                   for p in legal_plays(state.hands[seat], state.level, top))
    return actions


def timeout_action(state: DealState, seat: int) -> Action:
    """R9.2: what happens when ``seat``'s think time runs out (actor ``timeout``).

    A follower passes; a leader plays ``plays.timeout_lead`` (its lowest single that
    breaks no bomb, straight flush or run, else its lowest single). A tribute gives the
    lowest-id card of the highest rank (R8.3); a return gives the lowest eligible card
    (R8.4). Raises ``RuleError`` when the seat has nothing to do.
    """
    phase = state.phase
    if phase == PHASE_TRIBUTE:
        gift = state.gift_from(seat)
        if gift is not None and gift.card is None:
            lowest_id = gift_candidates(state.hands[seat], state.level)[0]
            return Action(TRIBUTE, seat, (lowest_id,), actor=TIMEOUT)
    elif phase == PHASE_RETURN:
        gift = state.gift_to(seat)
        if gift is not None and gift.returned is None:
            options = return_candidates(state.hands[seat], state.level, gift.card)
            lowest = min(options, key=lambda c: sort_key(c, state.level))
            return Action(RETURN, seat, (lowest,), actor=TIMEOUT)
    elif phase == PHASE_PLAY and seat == state.turn:
        if state.top is not None:
            return Action(PASS, seat, actor=TIMEOUT)
        play = timeout_lead(state.hands[seat], state.level)
        return Action(PLAY, seat, tuple(play.cards), play.reading, actor=TIMEOUT)
    if phase == PHASE_OVER:
        raise RuleError("R6.6", "the deal is over")
    raise RuleError("R9.2", f"{_seat_text(seat)} has nothing to do now")


# --------------------------------------------------------------------------------------
# Small queries


def card_owner(state: DealState, card: int) -> int | None:
    """The seat holding a physical card now, or None once it has been played."""
    for seat, hand in enumerate(state.hands):
        if card in hand:
            return seat
    return None


def cards_in_play(state: DealState) -> tuple[int, ...]:
    """Every card played in the deal so far, in order."""
    return tuple(c for move in state.history for c in move.cards)
