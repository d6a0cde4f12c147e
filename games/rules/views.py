"""The rules page (/rules/): every rule of the site's ruleset, each with its id as an
anchor (/rules/#R4.2), examples drawn with the site's cards, the bomb ladder and the
tribute steps as pictures."""

from django.shortcuts import render

from games.engine.cards import parse_faces, rank_index
from games.live.render import cards_context

from .rulebook import BOMB_LADDER, DUPLICATE_EXAMPLE, DUPLICATE_EXAMPLE_TOP, SECTIONS


def _drawn(example):
    level = rank_index(example.level)
    return {"cards": cards_context(parse_faces(example.faces.split()), level), "caption": example.caption}


def rules_page(request):
    sections = [
        {"id": s.id, "title": s.title, "rules": [
            {"id": r.id, "text": r.text, "examples": [_drawn(e) for e in r.examples]} for r in s.rules
        ]}
        for s in SECTIONS
    ]
    return render(request, "rules/rules.html", {
        "sections": sections,
        "ladder": [_drawn(e) for e in BOMB_LADDER],
        "duplicate": [
            {"table": table, "ns": _signed(ns), "ns_points": ns_points, "ew": _signed(ew), "ew_points": ew_points}
            for table, ns, ns_points, ew, ew_points in DUPLICATE_EXAMPLE
        ],
        "duplicate_top": DUPLICATE_EXAMPLE_TOP,
    })


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value)
