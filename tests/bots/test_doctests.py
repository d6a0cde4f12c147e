"""The examples in the bot modules' docstrings run."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["games.bots.model", "games.bots.registry", "games.bots.drills",
                                    "games.bots.grouping", "games.bots.protocol"])
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
