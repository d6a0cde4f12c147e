"""Bots work from their seat's view alone (ARCHITECTURE: a bot never reads other hands)."""

from __future__ import annotations

import copy
import random

import pytest

from games.bots.registry import get_bot
from games.engine.deal import apply
from games.engine.views import cards_in_view, view_for

from .helpers import deal_state

NAMES = ("random", "greedy", "heuristic", "expert")


def _bot(name):
    bot = get_bot(name, budget_ms=None)
    if name == "expert":
        bot.samples = 3
    return bot


def _midgame(seed: int, plies: int):
    state = deal_state(seed)
    mover = get_bot("heuristic")
    for n in range(plies):
        state = apply(state, mover.choose(view_for(state, state.to_act[0]), rng_seed=n))
    return state


def _shuffle_other_hands(state, seat: int, seed: int):
    """The same public position with the other seats' hidden cards dealt differently
    (each keeps its count)."""
    others = [s for s in range(4) if s != seat]
    pool = [c for s in others for c in state.hands[s]]
    random.Random(seed).shuffle(pool)
    hands = list(state.hands)
    at = 0
    for s in others:
        n = len(state.hands[s])
        hands[s] = tuple(sorted(pool[at:at + n]))
        at += n
    return state.__class__(**{**{f: getattr(state, f) for f in state.__dataclass_fields__},
                              "hands": tuple(hands)})


@pytest.mark.parametrize("name", NAMES)
def test_view_holds_no_other_hand_and_bot_works_from_it(name):
    state = _midgame(7, 25)
    seat = state.to_act[0]
    view = view_for(state, seat)
    played = {c for m in state.history for c in m.cards}
    gifts = {g.card for g in state.tribute.gifts} | {g.returned for g in state.tribute.gifts}
    # The view shows the seat's own cards and public ones only.
    assert cards_in_view(view) <= set(state.hands[seat]) | played | gifts
    action = _bot(name).choose(copy.deepcopy(view), rng_seed=3)
    assert action.seat == seat


@pytest.mark.parametrize("name", NAMES)
def test_action_does_not_depend_on_hidden_cards(name):
    state = _midgame(11, 30)
    seat = state.to_act[0]
    other = _shuffle_other_hands(state, seat, 99)
    assert other.hands != state.hands
    assert view_for(other, seat) == view_for(state, seat)
    bot = _bot(name)
    assert bot.choose(view_for(state, seat), rng_seed=4) == bot.choose(view_for(other, seat), rng_seed=4)


class _Recording(dict):
    """A view that records which keys are read."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.read: set[str] = set()

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)


@pytest.mark.parametrize("name", NAMES)
def test_bot_reads_only_public_keys_of_the_view(name, monkeypatch):
    state = _midgame(13, 20)
    seat = state.to_act[0]
    view = _Recording(view_for(state, seat))
    # A bot must not need another seat's hand: take the keys that could hold one away.
    for key in ("partner_hand", "hands", "dealt"):
        view.pop(key, None)
    # And no bot may reach for engine state: make the state classes unusable meanwhile.
    import games.engine.deal as deal_module
    monkeypatch.setattr(deal_module, "deal_hands", lambda *a, **k: pytest.fail("bot dealt cards"))
    action = _bot(name).choose(view, rng_seed=1)
    assert action.seat == seat
    assert not view.read & {"partner_hand", "hands", "dealt"}
