"""The rules page and the engine's and bots' words in the reader's language (issue 14):

- the rules page has an anchor for every rule id the code cites, in both languages;
- every sentence the engine gives at a table (refusals, play names, the settlement) and
  every reason the bots give (suggestions, the coach) is rebuilt in Chinese from
  translated parts, keeping its rule ids;
- every drill text is in the catalogue;
- rule ids become links to their rule.
"""

from __future__ import annotations

import ast
import itertools
import random
import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation

from games.bots.drills import DRILLS
from games.engine.cards import NUM_CARDS, rank_index
from games.engine.combos import explain_not_combination
from games.engine.deal import settle
from games.engine.reading import why_not_beats
from games.practice import drill_texts
from games.rules import words
from games.rules.rulebook import rule_ids

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")
CITED = re.compile(r"\bR(?:1[0-1]|[1-9])\.(?:1[0-2]|[1-9])\b")


def cited_rule_ids() -> set[str]:
    """Every rule id the site's code, templates and scripts cite (tests left out)."""
    found = set()
    for folder in ("games", "accounts", "guandan_site", "templates", "static"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".html", ".js", ".css") and "migrations" not in path.parts:
                found.update(CITED.findall(path.read_text(encoding="utf-8")))
    return found


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_rules_page_has_every_cited_rule(client, language):
    ids = cited_rule_ids()
    assert len(ids) > 40
    response = client.get(reverse("rules:page"), HTTP_ACCEPT_LANGUAGE=language)
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    missing = sorted(i for i in ids if f'id="{i}"' not in html)
    assert not missing, missing
    for section in range(1, 12):
        assert f'id="R{section}"' in html
    assert 'id="ladder"' in html and 'id="tribute-steps"' in html
    text = re.sub(r"<[^>]+>", " ", html)
    if language == "zh-hans":
        assert "逢人配" in text and "进贡" in text and "四大天王" in text
    else:
        assert "wild" in text and not CJK.search(re.sub(r'<(\w+)[^>]*lang="zh-hans".*?</\1>', "", html).replace("掼", ""))
    # Examples are drawn with the site's cards, standing for kinds of cards (no ids).
    assert 'class="card card-h' in html and "data-card=" not in html


def test_the_rulebook_has_each_rule_of_the_ruleset_once():
    ids = rule_ids()
    assert len(ids) == len(set(ids))
    text = Path("/work/shared/RULES.md")
    if text.exists():
        listed = set(re.findall(r"\bR\d+\.\d+\b", text.read_text()))
        assert listed <= set(ids)


def _random_selections(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        size = rng.randint(1, 10)
        yield rng.sample(range(NUM_CARDS), size), rng.randrange(13)


def test_every_refusal_the_engine_gives_is_translated():
    seen = set()
    with translation.override("zh-hans"):
        for cards, level in _random_selections(7, 6000):
            reason = explain_not_combination(cards, level)
            assert words.is_known_reason(reason), reason
            seen.add(reason.split(":")[0])
            text = words.reason_text(reason)
            assert CJK.search(text), (reason, text)
            assert text.startswith(reason.split(":")[0] + "："), text
    assert len(seen) >= 8


def test_every_beating_refusal_is_translated():
    rng = random.Random(3)
    readings = [(r, rank_index("7")) for r in _every_reading().values()]
    assert len(readings) > 100
    with translation.override("zh-hans"):
        for _ in range(2000):
            (play, level), (top, _) = rng.choice(readings), rng.choice(readings)
            reason = why_not_beats(play, top, level)
            assert words.is_known_reason(reason), reason
            text = words.reason_text(reason)
            assert CJK.search(text) and not re.search(r"\b(?:pair|single|straight|bomb|three)\b", text), (reason, text)


def _every_reading():
    """The readings of every lead from a few dealt hands at several levels."""
    from games.engine.deal import deal_hands
    from games.engine.plays import legal_plays

    found = {}
    for seed, level in itertools.product(range(4), (0, 5, 12)):
        for hand in deal_hands(seed):
            for play in legal_plays(hand, level, None):
                found[play.reading.name] = play.reading
    return found


def test_play_names_are_built_from_translated_parts():
    names = _every_reading()
    assert len(names) > 100
    with translation.override("zh-hans"):
        for english, reading in names.items():
            assert words.reading_from_name(english) == reading, english
            text = words.reading_label(reading)
            assert CJK.search(text), (english, text)
            assert not re.search(r"[a-z]{3,}", text), (english, text)
    with translation.override("en"):
        for english, reading in names.items():
            assert words.reading_label(reading) == english


@pytest.mark.parametrize("levels, active, places", [
    (("K", "5"), "K", (0, 1, 2, 3)), (("A", "5"), "A", (0, 1, 3, 2)), (("A", "5"), "A", (0, 3, 2, 1)),
    (("A", "5"), "5", (0, 3, 2, 1)), (("2", "5"), "5", (1, 0, 3, 2)), (("9", "Q"), "Q", (3, 1, 0, 2)),
])
def test_the_settlement_is_said_in_either_language(levels, active, places):
    result = settle((rank_index(levels[0]), rank_index(levels[1])), rank_index(active), places)
    with translation.override("en"):
        assert words.settlement_text(result.explanation) == result.explanation
    with translation.override("zh-hans"):
        text = words.settlement_text(result.explanation)
    assert CJK.search(text) and not re.search(r"[a-z]{3,}", text), text


def test_seat_and_tribute_refusals_are_translated():
    sentences = [
        "R9.1: 7H is not in seat 2's hand", "R6.2: it is seat 3's turn", "R8.1: seat 1 owes no tribute now",
        "R8.1: the tribute is the highest card other than a wild: a K",
        "R8.4: with no card ranked 2-10 to return, the weakest card goes back: a 3",
        "R3.5: these cards can be played as straight A-5 or straight flush A-5: choose one",
        "R3.5: these cards cannot be played as pair of 7s; they read as single 7, three 7s",
        "R2.4: Q-K-A-2-3 wraps around; the ace ends a run, it never joins K to 2",
    ]
    with translation.override("zh-hans"):
        for sentence in sentences:
            assert words.is_known_reason(sentence), sentence
            text = words.reason_text(sentence)
            assert CJK.search(text) and not re.search(r"[a-z]{3,}", text), text


def test_the_bots_reasons_are_translated():
    from games.bots import suggest
    from games.engine.deal import apply, deal_hands, new_deal
    from games.engine.views import view_for

    reasons = set()
    hints = []
    for seed in range(3):
        state = new_deal(hands=deal_hands(seed), level=0, team_levels=(0, 0), prev_places=None, seed=seed)
        for _ in range(40):
            if state.is_over:
                break
            seat = state.turn
            suggestion = suggest(view_for(state, seat), budget_ms=2, samples=4)
            reasons.add(suggestion.reason)
            hints.append(suggestion)
            state = apply(state, suggestion.action)
    assert len(reasons) >= 5
    with translation.override("zh-hans"):
        for reason in reasons:
            assert words.is_known_advice(reason), reason
            text = words.advice_text(reason)
            assert CJK.search(text) and not re.search(r"\b[a-z]{4,}\b", text), (reason, text)
        # The hint (提示) as the table says it names the suggested play first: 出对 8：...
        for suggestion in hints:
            text = words.suggestion_text(suggestion.to_json()["name"], suggestion.reason)
            if suggestion.action.kind == "pass":
                assert text.startswith("不出："), text
            else:
                assert text.startswith(f"出{words.reading_label(suggestion.action.reading)}："), text
            assert not re.search(r"\b[a-z]{4,}\b", text), text


def test_the_coach_is_translated():
    message = ("Better: pass. Lets your partner keep the lead (R6.2: passing is always allowed). "
               "It was worth about 1.3 levels more in the deals sampled.")
    with translation.override("zh-hans"):
        text = words.coach_text(message)
    assert text.startswith("更好的选择：不出。") and "1.3" in text and "R6.2" in text
    with translation.override("en"):
        assert words.coach_text(message) == message


def _drill_strings() -> set[str]:
    """The texts of ``games/bots/drills.py`` a person reads: titles, goals, hints and the
    checkers' messages (string literals with a space, not card faces)."""
    tree = ast.parse((ROOT / "games/bots/drills.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Drill":
            for keyword in node.keywords:
                if keyword.arg in ("title", "goal", "hint"):
                    found.add(ast.literal_eval(keyword.value))
                if keyword.arg == "checker":
                    for arg in keyword.value.args:
                        if isinstance(arg, (ast.Constant, ast.BinOp, ast.JoinedStr)):
                            try:
                                value = ast.literal_eval(arg)
                            except ValueError:
                                continue
                            if isinstance(value, str) and " " in value and not re.fullmatch(r"[\w ]+", value.upper()):
                                found.add(value)
    return found


def test_every_drill_text_is_listed_for_the_catalogue():
    listed = set(drill_texts.TEXTS)
    strings = _drill_strings()
    assert len(strings) >= 40
    assert strings <= listed, sorted(strings - listed)[:5]
    with translation.override("zh-hans"):
        for drill in DRILLS:
            for text in (drill.title, drill.goal, drill.hint):
                assert CJK.search(drill_texts.drill_text(text)), text
        assert drill_texts.drill_text("Not out yet: 2 plays so far.").startswith("还没出完")
        example = next(t for t in listed if t.startswith("A straight 3-7"))
        text = drill_texts.drill_text(f"Out in 3 plays (R6.5). {example}")
        assert text.startswith("3 手出完") and not re.search(r"[a-z]{3,}", text)


def test_rule_ids_become_links_to_their_rule():
    html = words.rule_links("R5.1: a <pair> never beats R10.4 or R4")
    assert html == ('<a class="rule-link" href="/rules/#R5.1">R5.1</a>: a &lt;pair&gt; never beats '
                    '<a class="rule-link" href="/rules/#R10.4">R10.4</a> or <a class="rule-link" href="/rules/#R4">R4</a>')
