"""The rules page's bomb ladder (R5.2) reads as its caption says, low to high: each
drawn bomb beats every one above it by the engine, in the page's order, and no style turns
the list around."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from games.engine.cards import parse_faces, rank_index
from games.engine.combos import readings_of
from games.engine.reading import beats
from games.rules.rulebook import BOMB_LADDER

ROOT = Path(__file__).resolve().parents[2]


def bomb_of(example):
    """The example's cards read as the bomb the ladder shows (their one bomb reading)."""
    level = rank_index(example.level)
    (bomb,) = [r for r in readings_of(parse_faces(example.faces.split()), level) if r.is_bomb]
    return bomb, level


def test_each_step_of_the_ladder_beats_the_ones_before_it():
    steps = [bomb_of(example) for example in BOMB_LADDER]
    for i, (low, level) in enumerate(steps):
        for high, _level in steps[i + 1:]:
            assert beats(high, low, level), (high, low)
            assert not beats(low, high, level), (low, high)


@pytest.mark.django_db
def test_the_page_draws_the_ladder_low_to_high_and_no_style_reverses_it(client):
    html = client.get(reverse("rules:page"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    ladder = html[html.index('<ol class="ladder"'):]
    ladder = ladder[:ladder.index("</ol>")]
    captions = re.findall(r"<span>([^<]+)</span>\s*</li>", ladder)
    assert captions == [str(example.caption) for example in BOMB_LADDER]
    assert "Low to high" in html
    css = (ROOT / "static" / "rules" / "rules.css").read_text()
    ladder_rules = " ".join(re.findall(r"\.ladder[^{]*\{([^}]*)\}", css))
    assert "reverse" not in ladder_rules
