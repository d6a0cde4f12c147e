"""The rules conformance command (rules/CONFORMANCE.md).

    python -m games.engine.conformance

Reads one JSON request per line on standard input and writes one JSON answer per line,
flushed each time, in order. A request that cannot be parsed or answered gets
``{"error": "..."}`` and the command goes on with the next line. Pure Python: no Django.

Ops answered here: ``readings``, ``beats`` and ``plays``. The deal-level ops
(``tribute``, ``returns``, ``settle``, ``deal``) live in ``deal_conformance`` and are
imported only when first asked for.

>>> answer({"op": "readings", "level": "7", "cards": ["7H", "7H"]})
{'readings': [{'shape': 'pair', 'rank': '7'}]}
>>> answer({"op": "beats", "level": "7", "table": {"shape": "single", "rank": "A"}, "cards": ["7S"]})
{'beats': True, 'readings': [{'shape': 'single', 'rank': '7'}]}
>>> answer({"op": "dance"})
{'error': "unknown op 'dance'"}
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any, Callable, TextIO

from .cards import parse_faces, rank_index
from .combos import beating_readings, readings_of
from .plays import legal_plays
from .reading import Reading

# Ops that another module answers: op name -> function name in deal_conformance.
_DEAL_OPS = {"tribute": "op_tribute", "returns": "op_returns", "settle": "op_settle",
             "deal": "op_deal"}


def _level(req: dict[str, Any]) -> int:
    value = req.get("level")
    if not isinstance(value, str):
        raise ValueError("R2.1: a level is a rank character such as '7' or 'T'")
    level = rank_index(value)
    if level > 12:
        raise ValueError(f"R2.1: {value!r} is not a level")
    return level


def _cards(req: dict[str, Any], field: str) -> list[int]:
    faces = req.get(field)
    if not isinstance(faces, list) or not all(isinstance(f, str) for f in faces):
        raise ValueError(f"{field!r} must be a list of card faces")
    return parse_faces(faces)


def op_readings(req: dict[str, Any]) -> dict[str, Any]:
    """Every legal reading of exactly these cards as a lead (R3, R4)."""
    readings = readings_of(_cards(req, "cards"), _level(req))
    return {"readings": [r.to_json() for r in readings]}


def op_beats(req: dict[str, Any]) -> dict[str, Any]:
    """The readings of these cards that beat the table's reading (R5)."""
    table = Reading.from_json(req.get("table"))
    readings = beating_readings(_cards(req, "cards"), _level(req), table)
    return {"beats": bool(readings), "readings": [r.to_json() for r in readings]}


def op_plays(req: dict[str, Any]) -> dict[str, Any]:
    """Every distinct legal play from the hand: leads, or plays that beat the table."""
    table_json = req.get("table")
    table = None if table_json is None else Reading.from_json(table_json)
    plays = legal_plays(_cards(req, "hand"), _level(req), table)
    return {"plays": [p.to_json() for p in plays]}


_OPS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "readings": op_readings,
    "beats": op_beats,
    "plays": op_plays,
}


def _deal_op(name: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    module = importlib.import_module("games.engine.deal_conformance")
    return getattr(module, _DEAL_OPS[name])


def answer(req: Any) -> dict[str, Any]:
    """The answer to one parsed request; errors become ``{"error": ...}``."""
    if not isinstance(req, dict):
        return {"error": "a request must be a JSON object"}
    op = req.get("op")
    try:
        if op in _OPS:
            return _OPS[op](req)
        if op in _DEAL_OPS:
            try:
                handler = _deal_op(op)
            except (ImportError, AttributeError) as exc:
                return {"error": f"op {op!r} is not available: {exc}"}
            return handler(req)
        return {"error": f"unknown op {op!r}"}
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        return {"error": str(exc) or type(exc).__name__}


def serve(stdin: TextIO, stdout: TextIO) -> None:
    """Answer every line of ``stdin`` on ``stdout``, one line each, flushed."""
    for line in stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError as exc:
            result: dict[str, Any] = {"error": f"not JSON: {exc}"}
        else:
            try:
                result = answer(req)
            except Exception as exc:  # a bad request must never stop the command
                result = {"error": f"{type(exc).__name__}: {exc}"}
        stdout.write(json.dumps(result) + "\n")
        stdout.flush()


def main() -> int:
    serve(sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
