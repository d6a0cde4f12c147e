"""Bots by name, and the table levels (issue: easy = greedy, normal = heuristic, hard =
expert)."""

from __future__ import annotations

from .base import Bot, GreedyBot, RandomBot
from .expert import DEFAULT_BUDGET_MS, ExpertBot
from .heuristic import HeuristicBot

__all__ = ["get_bot", "BOT_NAMES", "TABLE_LEVELS", "LEVEL_LABELS"]

BOT_NAMES = ("random", "greedy", "heuristic", "expert")
# Table bot levels shown to players, and the strategy behind each.
TABLE_LEVELS = {"easy": "greedy", "normal": "heuristic", "hard": "expert"}
LEVEL_LABELS = {"easy": "Easy", "normal": "Normal", "hard": "Hard"}


def get_bot(name: str, *, budget_ms: float | None = DEFAULT_BUDGET_MS,
            samples: int | None = None) -> Bot:
    """A bot by table level (``easy``, ``normal``, ``hard``) or strategy name (``random``,
    ``greedy``, ``heuristic``, ``expert``). ``budget_ms`` is the expert's time per move; ``samples``, when given,
    caps the sampled deals a move (``budget_ms=None`` with ``samples``: exactly that
    many, whatever the machine's speed).

    >>> get_bot("hard").name, get_bot("easy").name
    ('expert', 'greedy')
    """
    key = TABLE_LEVELS.get(name, name)
    if key == "random":
        return RandomBot()
    if key == "greedy":
        return GreedyBot()
    if key == "heuristic":
        return HeuristicBot()
    if key == "expert":
        if samples is not None:
            return ExpertBot(budget_ms=budget_ms, samples=samples)
        return ExpertBot(budget_ms=budget_ms)
    raise ValueError(f"no bot named {name!r}; choose one of {', '.join(TABLE_LEVELS)} or {', '.join(BOT_NAMES)}")
