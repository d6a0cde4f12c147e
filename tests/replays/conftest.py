"""Fixtures for the replay tests: matches started through the services and played
through the live table's door (``games.live.door``)."""

import random

import pytest

from . import factories


@pytest.fixture
def players(make_user):
    """Two registered players: the host (seat 1) and their partner (seat 3)."""
    return make_user(username="hostess", display_name="Hostess"), make_user(username="partner", display_name="Partner")


@pytest.fixture
def match(players):
    host, partner = players
    return factories.start_match_with_bots(host=host, partner=partner)


@pytest.fixture
def played(match):
    """Two finished deals of one match: the first as dealt, the second with tribute (R8);
    seat 1 times out twice and goes on autopilot in each (R9.2)."""
    return factories.play_deals(match, 2, seed=7, sleepy_seat=0)


@pytest.fixture
def open_deal(match, played):
    """The next deal, dealt and played part of the way: still in progress."""
    match.refresh_from_db()
    deal = factories.deal_next(match)
    return factories.play(deal, rng=random.Random(99), max_actions=30)
