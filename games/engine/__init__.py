"""The Guandan rules engine: pure Python, deterministic, no Django (see RULES.md).

The public API in one place:

- cards and readings: ``face``, ``parse_faces``, ``Reading``, ``beats`` (``cards``,
  ``reading``);
- combinations and plays: ``readings_of``, ``beating_readings``, ``legal_plays``,
  ``lean_plays``, ``timeout_lead``, ``Play`` (``combos``, ``plays``);
- the deal as a value: ``deal_hands``, ``new_deal``, ``start_play``, ``Action``,
  ``apply``, ``legal_actions``, ``timeout_action``, ``settle`` (``deal``);
- the match: ``start_match``, ``next_deal``, ``record`` (``match``);
- what a seat may see: ``view_for`` (``views``);
- replays and storage: ``fold``, ``states``, ``state_to_json``, ``action_to_json`` and
  their inverses (``replay``);
- simulation: ``simulate_deal``, ``simulate_match`` (``simulate``, imported on first
  use so that ``python -m games.engine.simulate`` runs cleanly).

Every refusal is a ``RuleError`` naming its rule (``errors``).
"""

from __future__ import annotations

from typing import Any

from .cards import (
    FACE_OF, NUM_CARDS, RANK_OF, RANKS, SUIT_OF, SUITS, card_name, card_strength, face,
    faces_of, ids_of_face, is_wild, parse_faces, rank_char, rank_counts, rank_index,
    sort_key, strength,
)
from .combos import (
    Play, beating_readings, explain_not_combination, is_combination, readings_of,
)
from .deal import (
    ACTION_KINDS, ACTORS, AUTOPILOT, BOT, HUMAN, PASS, PHASE_OVER, PHASE_PLAY,
    PHASE_RETURN, PHASE_TRIBUTE, PLAY, RETURN, RULESET_VERSION, TIMEOUT, TRIBUTE,
    Action, DealResult, DealState, Gift, Move, Settlement, Tribute, apply, deal_hands,
    first_leader, gift_candidates, is_legal, legal_actions, new_deal, partner_of,
    plan_tribute, return_candidates, settle, start_play, team_of, timeout_action,
)
from .errors import RuleError
from .match import Match, deal_seed, next_deal, record, start_match
from .plays import has_play_beating, lean_plays, legal_plays, timeout_lead
from .reading import Reading, beats, bomb_rung, why_not_beats
from .replay import (
    action_from_json, action_to_json, fold, log_from_json, log_to_json, match_from_json,
    match_to_json, state_from_json, state_to_json, states,
)
from .views import cards_in_view, view_for

__all__ = [
    # cards
    "FACE_OF", "NUM_CARDS", "RANK_OF", "RANKS", "SUIT_OF", "SUITS", "card_name",
    "card_strength", "face", "faces_of", "ids_of_face", "is_wild", "parse_faces",
    "rank_char", "rank_counts", "rank_index", "sort_key", "strength",
    # readings, combinations, plays
    "Reading", "beats", "bomb_rung", "why_not_beats", "Play", "readings_of",
    "beating_readings", "explain_not_combination", "is_combination", "legal_plays",
    "lean_plays", "has_play_beating", "timeout_lead",
    # errors
    "RuleError",
    # the deal
    "RULESET_VERSION", "ACTION_KINDS", "ACTORS", "HUMAN", "BOT", "TIMEOUT", "AUTOPILOT",
    "TRIBUTE", "RETURN", "PLAY", "PASS",
    "PHASE_TRIBUTE", "PHASE_RETURN", "PHASE_PLAY", "PHASE_OVER", "Action", "Move",
    "Gift", "Tribute", "Settlement", "DealResult", "DealState", "deal_hands",
    "first_leader", "new_deal", "start_play", "apply", "is_legal", "legal_actions",
    "timeout_action", "gift_candidates", "return_candidates", "plan_tribute", "settle",
    "team_of", "partner_of",
    # the match
    "Match", "start_match", "next_deal", "record", "deal_seed",
    # views and replays
    "view_for", "cards_in_view", "fold", "states", "state_to_json", "state_from_json",
    "action_to_json", "action_from_json", "log_to_json", "log_from_json",
    "match_to_json", "match_from_json",
    # simulation (lazy)
    "simulate_deal", "simulate_match",
]

_LAZY = {"simulate_deal", "simulate_match"}


def __getattr__(name: str) -> Any:
    # PEP 562: the simulation module is imported on first use only, so running it with
    # ``python -m games.engine.simulate`` does not find it already imported.
    if name in _LAZY:
        from . import simulate
        return getattr(simulate, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
