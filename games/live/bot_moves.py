"""Ask a bot for a seat's action, from that seat's view only (the bot never sees the state).

If a bot's choice is refused by the engine or the bot fails, the seat makes the R9.2
automatic choice instead, so a table never stalls on a faulty strategy.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from games.bots.registry import get_bot
from games.engine.deal import Action, DealState, is_legal, timeout_action
from games.engine.views import view_for

log = logging.getLogger(__name__)


def choose_for_seat(state: DealState, seat: int, *, level: str, seed: int, actor: str) -> Action:
    """The action the bot of ``level`` takes for ``seat``, recorded as ``actor``."""
    try:
        action = get_bot(level or "normal").choose(view_for(state, seat), rng_seed=seed)
        action = replace(action, seat=seat, actor=actor)
        if is_legal(state, action):
            return action
        log.warning("bot %s chose an illegal action for seat %s: %r", level, seat, action)
    except Exception:
        log.exception("bot %s failed for seat %s", level, seat)
    return replace(timeout_action(state, seat), actor=actor)
