"""Fixtures for the analysis tests: finished deals played through the site's own doors
(tests/replays/factories.py), and a quicker evaluation (fewer sampled deals) wherever a
test is not about the verdicts' strength."""

import functools
import random
from decimal import Decimal

import pytest

from games.analysis import services
from games.bots.analysis import analyse
from games.practice import services as practice

from ..replays import factories
from ..replays.conftest import match, players  # noqa: F401  (fixtures)

QUICK_SAMPLES = 8


@pytest.fixture
def quick_analysis(monkeypatch):
    """Analyses judge on 8 sampled deals instead of the default, to keep tests fast."""
    monkeypatch.setattr(services, "analyse", functools.partial(analyse, samples=QUICK_SAMPLES))


@pytest.fixture
def finished(match):  # noqa: F811
    """One finished deal of a Junior match (seats 1 and 3 human, 2 and 4 bots)."""
    return factories.play_deals(match, 1, seed=3)[0].deal


@pytest.fixture
def practice_deal(make_user, django_capture_on_commit_callbacks):
    """A practice deal played to its end by its one human (at random among legal moves,
    so with mistakes) and three bots, the commit callbacks run as in production."""
    user = make_user(username="learner")
    with django_capture_on_commit_callbacks(execute=True):
        table = practice.start_practice(user=user, bot_level="easy", bot_speed=Decimal("1.0"))
        played = factories.play(factories.PlayedDeal(table.matches.get().deals.get()), rng=random.Random(5))
    return user, played.deal
