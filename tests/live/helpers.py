"""Driving a live table from tests through the one door, as players would."""

import random
import re

from games.engine.deal import PASS, PLAY, legal_actions
from games.live import door
from games.live import selectors as live_selectors


# The log's lines and the hand's cards as patterns: how the tests' page model reads them,
# independently of the consumer's own scan (games/live/consumer.py, _pieces).
LOG_LINE = re.compile(r'<li id="tbl-log-(\d+)-(\d+)".*?</li>', re.S | re.A)
HAND_CARD = re.compile(r'<input type="checkbox" class="hand-check" id="hc-(\d+)".*?</label>', re.S | re.A)


def current(table):
    deal = live_selectors.current_deal(table)
    return deal, live_selectors.deal_state(deal)


def choose(state, seat, rng):
    """A legal action for ``seat``: leads play something, followers mostly pass."""
    options = legal_actions(state, seat)
    if state.phase == "play" and not state.leading and rng.random() < 0.7:
        return next(a for a in options if a.kind == PASS)
    plays = [a for a in options if a.kind == PLAY] or options
    return rng.choice(plays)


def act(table, users, rng=None, seat=None):
    """One human action by ``seat`` (default: the first seat to act)."""
    rng = rng or random.Random(0)
    deal, state = current(table)
    seat = state.to_act[0] if seat is None else seat
    action = choose(state, seat, rng)
    return door.submit_action(
        table_id=table.pk, seat=seat, kind=action.kind, cards=action.cards, reading=action.reading,
        expected_deal=deal.pk, expected_seq=deal.seq, user=users[seat],
    )


def play_out(table, users, timers, rng=None, limit=2000):
    """Play the current deal to its end: humans through submit_action, bots and other
    timers run as they come due. Returns the finished deal."""
    rng = rng or random.Random(1)
    deal, state = current(table)
    deal_id = deal.pk
    for _ in range(limit):
        deal, state = current(table)
        if deal.pk != deal_id or state.is_over:
            deal.refresh_from_db()
            return deal
        humans = [s for s in state.to_act if users.get(s) is not None] if isinstance(users, dict) else list(state.to_act)
        if humans:
            act(table, users, rng, seat=humans[0])
        else:
            timers.run(rounds=1)
    raise AssertionError("the deal did not end")
