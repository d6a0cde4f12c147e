"""Practice drills (R10.4): fixed situations with a goal and a check.

Each ``Drill`` has an id, a title, a goal in words, the rule it practises, and a
starting position: the four hands, the level, who leads, and a few public actions that
set the table (an opponent's lead, a partner's pass). ``drill.start_state()`` builds the
engine ``DealState`` from which the human (always seat 0, the UI's seat 1) acts; the
other seats are played by bots. Drills about tribute and return start from full
27-card hands with a previous finishing order (R8).

``drill.check(actions, state)`` takes the human's actions since the start (in order)
and the state reached, and returns ``DrillResult(passed, message)``; ``drill.done(...)``
says whether the result is final (most drills judge the first decision; the finishing
drills judge the whole run of the hand).

>>> [d.id for d in DRILLS][:3]
['finish-in-three', 'wild-straight-flush', 'wild-five-bomb']
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Sequence

from games.engine.cards import FACE_OF, NUM_CARDS, RANK_OF, card_strength, parse_faces, rank_index
from games.engine.combos import readings_of
from games.engine.deal import (
    PASS, PLAY, RETURN, TRIBUTE, Action, DealState, apply, new_deal, start_play,
    timeout_action,
)
from games.engine.reading import BOMB, SINGLE, STRAIGHT_FLUSH, Reading

__all__ = ["Drill", "DrillResult", "DRILLS", "get_drill", "HUMAN_SEAT"]

HUMAN_SEAT = 0


@dataclass(frozen=True, slots=True)
class DrillResult:
    passed: bool
    message: str


Checker = Callable[["Drill", Sequence[Action], DealState], DrillResult]


@dataclass(frozen=True)
class Drill:
    """A fixed practice situation (module doc).

    ``hands`` are faces per seat (R1.4). ``setup`` lists public actions applied before
    the human acts: ``(seat, faces)`` plays, ``(seat, None)`` passes. ``prev_places``
    (with full hands) starts a later deal of a match, so tribute and return happen (R8).
    ``decisions`` is how many human actions the check needs (None: until seat 1 goes
    out or the deal ends).
    """

    id: str
    title: str
    goal: str
    rule: str
    level: str
    hands: tuple[str, str, str, str]
    checker: Checker
    leader: int = 0
    setup: tuple[tuple[int, str | None], ...] = ()
    prev_places: tuple[int, int, int, int] | None = None
    decisions: int | None = 1
    hint: str = ""

    def start_state(self) -> DealState:
        level = rank_index(self.level)
        # Parse all four hands together: the two copies of a face are two ids (R1.3).
        every = parse_faces([f for h in self.hands for f in h.split()])
        hands, at = [], 0
        for h in self.hands:
            n = len(h.split())
            hands.append(every[at:at + n])
            at += n
        if self.prev_places is not None:
            state = new_deal(hands=hands, level=level, team_levels=(level, level),
                             prev_places=self.prev_places, seed=None)
            # Gifts and returns owed by the other seats are made automatically (R8.3).
            while state.phase in ("tribute", "return") and HUMAN_SEAT not in state.to_act:
                state = apply(state, timeout_action(state, state.to_act[0]))
            return state
        state = start_play(hands=hands, level=level, leader=self.leader)
        for seat, faces in self.setup:
            if faces is None:
                state = apply(state, Action(PASS, seat))
            else:
                wanted = faces.split()
                chosen: list[int] = []
                for text in wanted:
                    card = next(c for c in state.hands[seat] if FACE_OF[c] == text and c not in chosen)
                    chosen.append(card)
                state = apply(state, Action(PLAY, seat, tuple(chosen)))
        return state

    def done(self, actions: Sequence[Action], state: DealState) -> bool:
        if self.decisions is not None:
            return len(actions) >= self.decisions or state.is_over
        return state.is_over or not state.hands[HUMAN_SEAT]

    def check(self, actions: Sequence[Action], state: DealState) -> DrillResult:
        if not actions:
            return DrillResult(False, "No move made yet.")
        return self.checker(self, actions, state)

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "goal": self.goal, "rule": self.rule,
                "level": self.level, "hint": self.hint}


def _reading(action: Action, state_level: int) -> Reading | None:
    if action.kind != PLAY:
        return None
    if action.reading is not None:
        return action.reading
    options = readings_of(action.cards, state_level)
    return options[0] if len(options) == 1 else None


def _level(drill: Drill) -> int:
    return rank_index(drill.level)


def _plays(actions: Sequence[Action]) -> list[Action]:
    return [a for a in actions if a.kind == PLAY]


# --------------------------------------------------------------------------------------
# Checks


def _check_finish_in(n: int, example: str) -> Checker:
    def check(drill: Drill, actions: Sequence[Action], state: DealState) -> DrillResult:
        plays = _plays(actions)
        if HUMAN_SEAT in state.finished and len(plays) <= n:
            return DrillResult(True, f"Out in {len(plays)} plays (R6.5). {example}")
        if len(plays) > n or (HUMAN_SEAT not in state.finished and state.is_over):
            return DrillResult(False, f"That took more than {n} plays (R6.5). {example}")
        return DrillResult(False, f"Not out yet: {len(plays)} plays so far.")
    return check


def _check_reading(shape: str, key: str | None, size: int | None, good: str, bad: str) -> Checker:
    def check(drill: Drill, actions: Sequence[Action], state: DealState) -> DrillResult:
        reading = _reading(actions[0], _level(drill))
        ok = (reading is not None and reading.shape == shape
              and (key is None or reading.key == rank_index(key))
              and (size is None or reading.size == size))
        return DrillResult(ok, good if ok else bad)
    return check


def _check_pass(good: str, bad: str) -> Checker:
    def check(drill: Drill, actions: Sequence[Action], state: DealState) -> DrillResult:
        ok = actions[0].kind == PASS
        return DrillResult(ok, good if ok else bad)
    return check


def _check_any_bomb(good: str, bad: str) -> Checker:
    def check(drill: Drill, actions: Sequence[Action], state: DealState) -> DrillResult:
        reading = _reading(actions[0], _level(drill))
        ok = reading is not None and reading.is_bomb
        return DrillResult(ok, good if ok else bad)
    return check


def _check_low_single(highest: str, good: str, bad: str) -> Checker:
    def check(drill: Drill, actions: Sequence[Action], state: DealState) -> DrillResult:
        level = _level(drill)
        reading = _reading(actions[0], level)
        ok = (reading is not None and reading.shape == SINGLE
              and card_strength(actions[0].cards[0], level) <= card_strength(parse_faces([highest])[0], level))
        return DrillResult(ok, good if ok else bad)
    return check


def _check_keep_rank(rank: str, good: str, bad: str) -> Checker:
    def check(drill: Drill, actions: Sequence[Action], state: DealState) -> DrillResult:
        action = actions[0]
        ok = action.kind == PLAY and all(RANK_OF[c] != rank_index(rank) for c in action.cards)
        return DrillResult(ok, good if ok else bad)
    return check


def _check_card(kind: str, faces: tuple[str, ...], good: str, bad: str) -> Checker:
    def check(drill: Drill, actions: Sequence[Action], state: DealState) -> DrillResult:
        action = actions[0]
        ok = action.kind == kind and len(action.cards) == 1 and FACE_OF[action.cards[0]] in faces
        return DrillResult(ok, good if ok else bad)
    return check


def _check_first_then_out(shape: str, key: str, n: int, good: str, bad: str) -> Checker:
    def check(drill: Drill, actions: Sequence[Action], state: DealState) -> DrillResult:
        reading = _reading(actions[0], _level(drill))
        first_ok = reading is not None and reading.shape == shape and reading.key == rank_index(key)
        if not first_ok:
            return DrillResult(False, bad)
        plays = _plays(actions)
        if HUMAN_SEAT in state.finished and len(plays) <= n:
            return DrillResult(True, good)
        if len(plays) > n or state.is_over:
            return DrillResult(False, bad)
        return DrillResult(False, "Good start: now finish.")
    return check


# --------------------------------------------------------------------------------------
# Full hands for the tribute drills


def _fill(own: str, seed: int, keep_big_jokers_from: int) -> tuple[str, str, str, str]:
    """Seat 0 holds ``own``; the rest of the two decks is dealt from ``seed``. Both big
    jokers are kept out of seat ``keep_big_jokers_from`` so no resistance (R8.5) cancels
    the tribute being practised."""
    mine = parse_faces(own.split())
    rest = [c for c in range(NUM_CARDS) if c not in set(mine)]
    random.Random(seed).shuffle(rest)
    hands = [mine, rest[0:27], rest[27:54], rest[54:81]]
    donor = hands[keep_big_jokers_from]
    other = hands[1 if keep_big_jokers_from != 1 else 2]
    for i, card in enumerate(list(donor)):
        if RANK_OF[card] == 14:
            swap = next(j for j, c in enumerate(other) if RANK_OF[c] < 13)
            donor[i], other[swap] = other[swap], donor[i]
    return tuple(" ".join(FACE_OF[c] for c in h) for h in hands)  # type: ignore[return-value]


# --------------------------------------------------------------------------------------
# The drills

DRILLS: tuple[Drill, ...] = (
    Drill(
        id="finish-in-three", title="Out in three",
        goal="Empty your hand in 3 plays or fewer.",
        rule="R4.4, R4.5, R4.2",
        level="2",
        hands=("3S 4H 5C 6D 7S 9S 9H 9C 8D 8S QS QH", "3D 4D 6S 8C TD", "4S 6H 8H TH",
               "3C 5D 7C 9D JD"),
        leader=0, decisions=None,
        checker=_check_finish_in(3, "A straight 3-7, a full house of 9s with the 8s, and the "
                                    "pair of Qs empty the hand in three leads."),
        hint="Look for a straight and a full house.",
    ),
    Drill(
        id="wild-straight-flush", title="Wild to the top",
        goal="Beat the straight 10-A with the strongest reading of your cards.",
        rule="R3.2, R3.5, R4.9, R5.2",
        level="7",
        hands=("TD JD QD KD 7H 3S 4C", "5S 6S", "8S 8C 2D", "TS JC QC KS AC 4D 5D"),
        leader=3, setup=((3, "TS JC QC KS AC"),),
        checker=_check_reading(STRAIGHT_FLUSH, "A", None,
                               "Yes: the wild as the ace of diamonds makes a straight flush "
                               "10-A, the highest (R3.2, R4.9).",
                               "A straight cannot top a straight 10-A (R5.1); play the cards as "
                               "a straight flush, and let the wild be the ace of diamonds for "
                               "the strongest one (R3.5)."),
        hint="A wild may stand for any card, suit included.",
    ),
    Drill(
        id="wild-five-bomb", title="Full house or bomb?",
        goal="Beat the bomb of four Ks.",
        rule="R3.5, R4.8, R5.2",
        level="5",
        hands=("9S 9C 9D 5H 5H 4S 6C", "3S 3C", "7S 8D", "KS KH KC KD TD JD"),
        leader=3, setup=((3, "KS KH KC KD"),),
        checker=_check_reading(BOMB, "9", 5,
                               "Right: three 9s and two wilds read as a bomb of five 9s, which "
                               "beats any four-card bomb (R5.2).",
                               "Only a bigger bomb beats a bomb (R5.1, R5.2): play 9 9 9 and "
                               "both wilds as a bomb of five 9s, not a full house (R3.5)."),
        hint="The same five cards have two readings.",
    ),
    Drill(
        id="pass-for-partner", title="Your partner's trick",
        goal="Your partner's pair of Ks leads the trick. Play the right move.",
        rule="R6.2",
        level="2",
        hands=("AS AC 7D 8C 9H 3S", "4S 5S 6S TC", "KS KD 5C 6C", "3D 8D JC QC"),
        leader=2, setup=((2, "KS KD"), (3, None)),
        checker=_check_pass("Right: your partner holds the trick; passing keeps your As and "
                            "lets your partner lead again (R6.2).",
                            "Topping your partner spends your pair of As for nothing: pass and "
                            "your partner keeps the lead (R6.2)."),
        hint="Who is winning this trick?",
    ),
    Drill(
        id="right-bomb", title="The right bomb",
        goal="Beat the straight, keeping your strongest bomb.",
        rule="R5.1, R5.2",
        level="2",
        hands=("4S 4H 4C 4D QS QH QC QD QS QH 3C 7D", "3S 6C", "5C 9C", "5S 6H 7C 8D 9S JS KC"),
        leader=3, setup=((3, "5S 6H 7C 8D 9S"),),
        checker=_check_reading(BOMB, "4", 4,
                               "Yes: any bomb beats a straight (R5.1); the four 4s do it and the "
                               "six Qs stay for later (R5.2).",
                               "The lowest bomb that beats is enough: any bomb beats a straight "
                               "(R5.1), so spend the four 4s and keep the six Qs (R5.2)."),
        hint="Every bomb beats a straight.",
    ),
    Drill(
        id="stop-the-runner", title="Stop the runner",
        goal="Seat 2 has one card left after this pair. Don't let it go out.",
        rule="R5.1, R6.5",
        level="2",
        hands=("5S 5H 5C 5D 3C 7D 9H", "JS JC AS", "4S 6S 8S", "3D 6D TD KD"),
        leader=1, setup=((1, "JS JC"), (2, None), (3, None)),
        checker=_check_any_bomb("Right: your bomb takes the trick, so seat 2 cannot lead "
                                "its last card (R5.1, R6.5).",
                                "If you pass, seat 2 leads its last card and takes 1st place "
                                "(R6.5). Bomb with the four 5s."),
        hint="What happens if everyone passes?",
    ),
    Drill(
        id="feed-partner", title="Feed your partner",
        goal="Your partner holds one card. Lead so your partner can go out.",
        rule="R6.1, R6.5",
        level="2",
        hands=("3C 8D 8S QH QC AS", "4S 6D 9C JD", "KS", "5S 7C TC JC"),
        leader=0,
        checker=_check_low_single("TS",
                                  "Right: a low single gives your partner the chance to beat it "
                                  "with the last card and go out (R6.5).",
                                  "With one card left your partner can only play a single: lead "
                                  "your lowest single (R6.1)."),
        hint="What can a player with one card play?",
    ),
    Drill(
        id="keep-the-bomb", title="Keep the bomb",
        goal="Beat the 5 without breaking your bomb of 8s.",
        rule="R4.8, R5.1",
        level="2",
        hands=("8S 8H 8C 8D QC 3S 3H", "4C 6C", "7S 9S", "5D JS KS"),
        leader=3, setup=((3, "5D"),),
        checker=_check_keep_rank("8",
                                 "Good: the Q beats the 5 and the four 8s stay a bomb (R4.8).",
                                 "Beat the 5 with your Q: an 8 would break the bomb of 8s "
                                 "(R4.8), and passing gives the trick away."),
        hint="Which single beats a 5 and belongs to no combination?",
    ),
    Drill(
        id="winner-first", title="Winner first",
        goal="Go out in two plays.",
        rule="R4.2, R6.1, R6.5",
        level="2",
        hands=("BJ BJ 3S", "4C 5C 9D JD", "6C 7C", "6S 7S TD KH"),
        leader=0, decisions=None,
        checker=_check_first_then_out("pair", "BJ", 2,
                                      "Out in two: nobody can beat the pair of big jokers "
                                      "without a bomb, so you lead again and play the 3 (R6.5).",
                                      "Lead the pair of big jokers first: it wins the trick (R5.1), "
                                      "then the 3 finishes. Led first, the 3 gives the lead away."),
        hint="Which of your plays can nobody beat?",
    ),
    Drill(
        id="wind", title="Ride the wind",
        goal="Your partner just went out with an A. Make the best move.",
        rule="R6.4",
        level="2",
        hands=("BJ 3C 4D 6S", "5S 7D 9C", "AS", "8S TC QD"),
        leader=2, setup=((2, "AS"), (3, None)),
        checker=_check_pass("Right: if nobody beats your partner's last card, the lead comes "
                            "to you by the wind (R6.4), and your big joker stays in hand.",
                            "No need to spend the big joker: pass, and if nobody beats your "
                            "partner's last card the lead comes to you by the wind (R6.4)."),
        hint="Who leads after a player goes out?",
    ),
    Drill(
        id="low-return", title="A return that feeds nobody",
        goal="Seat 2 paid you tribute. Give back a card that costs you nothing and helps "
             "them least.",
        rule="R8.4, R4.5",
        level="2",
        hands=_fill("3C 5S 5H 6S 6H 7S 7H 8S 8H 9S 9H 9C 9D 2S 2C 2D JS JH QS QH QC KS KH "
                    "KC AS AH SJ", 51, 1),
        prev_places=(0, 3, 2, 1),
        checker=_check_card(RETURN, ("3C",),
                            "Good: the 3 is your only loose card, and a 3 completes fewer "
                            "straights (R4.5) and pairs than any other card you may return (R8.4).",
                            "Return the 3: every other card you may return breaks your pair run, "
                            "bomb, triples or pairs, and a low 3 fits the fewest straights of "
                            "the opponent (R4.5, R8.4)."),
        hint="Which card belongs to none of your combinations?",
    ),
    Drill(
        id="tribute-keeps-flush", title="Which ace to pay",
        goal="You came 4th and pay tribute with an ace. Keep your straight flush.",
        rule="R8.1, R8.3, R4.9",
        level="2",
        hands=_fill("TH JH QH KH AH AD 3S 3C 4S 4C 5D 5S 6D 6C 7S 7C 8D 8S 9C 9D TC JC QC "
                    "KC 6S 7D 2H", 77, 0),
        prev_places=(1, 2, 3, 0),
        checker=_check_card(TRIBUTE, ("AD",),
                            "Right: the ace of diamonds pays the tribute and 10-A of hearts "
                            "stays a straight flush (R8.3, R4.9).",
                            "The tribute must be an ace (R8.1), but you choose which (R8.3): "
                            "give the ace of diamonds and keep the straight flush 10-A of hearts."),
        hint="Both aces are legal. Which one belongs to a bomb?",
    ),
)

_BY_ID = {d.id: d for d in DRILLS}


def get_drill(drill_id: str) -> Drill:
    try:
        return _BY_ID[drill_id]
    except KeyError:
        raise ValueError(f"no drill {drill_id!r}") from None
