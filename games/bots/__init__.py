"""Guandan bots, suggestions, coach highlights and practice drills (pure Python).

Everything here sees only what one seat may see: the dict that
``games.engine.views.view_for(state, seat)`` returns. Nothing reads a ``DealState`` or
another seat's hand (ARCHITECTURE: a bot never reads other hands).

Bots
----
``get_bot(name, *, budget_ms=300) -> Bot`` (``registry``): table levels ``easy``
(greedy), ``normal`` (heuristic), ``hard`` (expert), or the strategy names ``random``,
``greedy``, ``heuristic``, ``expert``. ``TABLE_LEVELS`` maps levels to strategies.

``Bot.choose(view, *, rng_seed) -> engine.deal.Action`` gives the seat's action in any
phase (tribute, return, play/pass) with ``actor="bot"``; it is deterministic given the
view and the seed (the expert: as long as its time budget does not cut sampling short;
``budget_ms=None`` samples a fixed number of deals). The table's bot speed (the delay
before a bot acts) belongs to the site's scheduler: the bot itself answers at once.

- ``RandomBot``: a uniformly random legal action.
- ``GreedyBot``: lowest single on a lead, lowest play of the led shape, never beats its
  partner, bombs only when it would otherwise pass on an opponent holding 5 cards or
  fewer (see its docstring for the exact rules).
- ``HeuristicBot``: hand split into the fewest weighted plays, lead/follow policy
  (``policy`` module doc), tribute and return by split cost.
- ``ExpertBot(budget_ms=300, samples=400)``: determinized sampling with lean heuristic
  playouts (``expert`` and ``fastsim`` module docs); it stops at the time budget or the
  sample count, whichever comes first, so fewer samples when time is short.

Suggestions and coach (``advice``)
----------------------------------
``suggest(view, *, budget_ms=300, rng_seed=0) -> Suggestion``: ``.action`` (select
``.cards`` in the hand), ``.reason`` (a short sentence citing rules where one decides
it), ``.to_json()``.

``coach_review(view_before, action_taken, *, budget_ms=300, rng_seed=0) ->
Highlight | None``: call it with the view the human saw before acting and the action
applied; a ``Highlight`` (``.better`` action, ``.reason``, ``.loss`` in levels,
``.message``, ``.to_json()``) when the action was clearly worse than the best found
(``CLEARLY_WORSE`` = 0.5 levels on the same sampled deals, or a plain mistake such as
topping a partner who holds the trick); None otherwise. It is meant to run after the
action is applied, off the request path, so it never interrupts play.

Drills (``drills``)
-------------------
``DRILLS`` (12 fixed situations) and ``get_drill(id)``. A ``Drill`` has ``id``,
``title``, ``goal``, ``rule``, ``hint``, ``to_json()``; ``start_state()`` builds the
engine ``DealState`` where the human (seat 0) acts; the other seats are bots.
Record the human's actions in order; after each one call ``done(actions, state)`` and,
when it is True, ``check(actions, state) -> DrillResult(passed, message)``.

Grouping (``grouping``)
-----------------------
``group_hand(hand, level) -> list[list[int]]``: the hand's card ids grouped into the
heuristic's split into plays, for a "sort by combinations" button: ordinary plays by
shape (singles, pairs, triples, full houses, straights, pair runs, triple runs), each
weakest first; then bombs low to high (R5.2, kept whole); wilds the split keeps as
themselves last. Every card appears exactly once; the result depends only on the cards
and the level.

Arena (``arena``)
------------------
``python -m games.bots.arena --a expert --b heuristic --deals N --seed S
[--budget-ms 300] [--samples N] [--workers 2] [--max-minutes M]``: every deal played twice with the
teams swapped; win rate and mean level change with 95% confidence intervals, move time
p50 / p95 / max, crashes counted apart. Measured figures are in ``README.md`` here.
"""

from .advice import CLEARLY_WORSE, Highlight, Suggestion, coach_review, suggest
from .base import Bot, GreedyBot, RandomBot
from .drills import DRILLS, Drill, DrillResult, get_drill
from .expert import DEFAULT_BUDGET_MS, ExpertBot
from .grouping import group_hand
from .heuristic import HeuristicBot
from .registry import BOT_NAMES, LEVEL_LABELS, TABLE_LEVELS, get_bot

__all__ = [
    "Bot", "RandomBot", "GreedyBot", "HeuristicBot", "ExpertBot", "get_bot", "BOT_NAMES",
    "TABLE_LEVELS", "LEVEL_LABELS", "DEFAULT_BUDGET_MS", "Suggestion", "Highlight",
    "suggest", "coach_review", "CLEARLY_WORSE", "Drill", "DrillResult", "DRILLS",
    "get_drill", "group_hand",
]
