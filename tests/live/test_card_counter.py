"""The card counter (记牌器, R10.8): at practice tables always, at friend tables when the
host allows it, never at match tables; it counts from the viewer's own knowledge only
(tests/live/test_hidden_information.py checks every message of whole deals)."""

import pytest
from django.db import IntegrityError, transaction

from games.engine.deal import deal_hands, new_deal
from games.live.render import SeatInfo, Scene, counter_context, render_private_parts, ViewerState
from games.engine.views import view_for
from games.models import Table
from games.tables import services
from games.tables.forms import CreateTableForm
from games.tables.policies import TableError

pytestmark = pytest.mark.django_db


def scene_of(kind, card_counter, seed=3):
    state = new_deal(hands=deal_hands(seed), level=5, team_levels=(5, 2), prev_places=None, seed=seed)
    seats = {p: SeatInfo(p, f"P{p}", False, user_id=p + 1) for p in range(4)}
    return Scene(table_id=1, kind=kind, think_time=30, awards_points=kind == "match", tier="", deal_id=1,
                 deal_number=1, match_id=1, match_status="playing", match_winner=None, deadline=None, result=None,
                 state=state, seats=seats, card_counter=card_counter)


def test_the_host_of_a_friend_table_chooses_practice_always_match_never(make_user):
    allowed = services.create_table(host=make_user(), kind="friend", card_counter=True)
    plain = services.create_table(host=make_user(), kind="friend")
    practice = services.create_table(host=make_user(), kind="practice")
    assert (allowed.has_card_counter, plain.has_card_counter, practice.has_card_counter) == (True, False, True)
    host = make_user()
    before = Table.objects.count()
    with pytest.raises(TableError, match="R10.8"):
        services.create_table(host=host, kind="match", tier="junior", card_counter=True)
    assert Table.objects.count() == before
    match = services.create_table(host=host, kind="match", tier="junior")
    assert not match.has_card_counter
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=match.pk).update(card_counter=True)


def test_the_create_form_keeps_the_choice_for_friend_tables_only(make_user):
    user = make_user()
    base = {"think_time": 30, "bot_speed": "1.0", "bot_level": "normal", "card_counter": "on"}
    friend = CreateTableForm(dict(base, kind="friend"), user=user)
    match = CreateTableForm(dict(base, kind="match", tier="junior"), user=user)
    assert friend.is_valid() and match.is_valid(), (friend.errors, match.errors)
    assert friend.cleaned_data["card_counter"] is True
    assert match.cleaned_data["card_counter"] is False


@pytest.mark.parametrize("kind, allowed, shown", [
    ("practice", True, True), ("friend", True, True), ("friend", False, False), ("match", False, False)])
def test_the_counter_is_drawn_only_where_the_table_offers_it(kind, allowed, shown):
    scene = scene_of(kind, allowed)
    parts = render_private_parts(scene, 0, ViewerState())
    assert bool(parts.counter) == shown
    assert ('id="tbl-counter"' in parts.html()) == shown
    assert render_private_parts(scene, None, ViewerState()).counter == ""  # a spectator has no hand to count from


def test_the_counter_counts_every_rank_from_the_hand_and_the_plays():
    scene = scene_of("practice", True)
    view = view_for(scene.state, 0)
    counter = counter_context(view)
    assert counter["total"] == 108 - 27
    by_rank = {c["rank"]: c["count"] for c in counter["cells"]}
    assert len(counter["cells"]) == 16 and sum(by_rank.values()) == 81
    # The level (7, index 5) shows its six plain cards and its two wild hearts apart.
    assert [c["rank"] for c in counter["cells"][:4]] == ["BJ", "SJ", "7", "wild"]
    assert [c["rank"] for c in counter["cells"][4:]] == ["A", "K", "Q", "J", "10", "9", "8", "6", "5", "4", "3", "2"]


def test_the_counter_cannot_tell_hidden_hands_apart():
    """Two deals that differ only in how the other three hands share their cards draw the
    same counter for seat 1."""
    scene = scene_of("practice", True)
    state = scene.state
    others = sorted(c for seat in (1, 2, 3) for c in state.hands[seat])
    hands = [state.hands[0], tuple(others[:27]), tuple(others[27:54]), tuple(others[54:])]
    shuffled = new_deal(hands=[list(h) for h in hands], level=5, team_levels=(5, 2), prev_places=None, seed=3)
    other = scene_of("practice", True)
    other.state = shuffled
    assert render_private_parts(scene, 0, ViewerState()).counter == render_private_parts(other, 0, ViewerState()).counter
