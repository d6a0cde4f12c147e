"""The replay glue (``games.replays.log``): rows to engine values, the fold, the check, the
export (R11.1)."""

import copy
import json
import random

import pytest

from games.engine.cards import FACE_OF
from games.engine.deal import AUTOPILOT, PLAY, TIMEOUT, apply
from games.engine.replay import fold, state_from_json, state_to_json
from games.models import Action, Deal
from games.replays.log import (
    ReplayError,
    check_deal,
    engine_actions,
    export_deal,
    import_export,
    initial_state,
    replay_states,
    tribute_step,
    trick_starts,
)

from . import factories

pytestmark = pytest.mark.django_db


def _face_level(state):
    """A state with every physical card id replaced by its face (R1.4): two games that
    differ only in which copy of a face went where are the same game."""
    data = state_to_json(state)

    def faces(node, cards):
        if isinstance(node, dict):
            return {k: faces(v, k in ("dealt", "hands", "cards", "card", "returned")) for k, v in node.items()}
        if isinstance(node, list):
            return [faces(v, cards) for v in node]
        if cards and isinstance(node, int) and not isinstance(node, bool):
            return FACE_OF[node]
        return node

    out = faces(data, False)
    # Hands are multisets of faces.
    out["dealt"] = [sorted(h) for h in out["dealt"]]
    out["hands"] = [sorted(h) for h in out["hands"]]
    for move in out["history"] + out["trick"] + ([out["top"]] if out["top"] else []):
        move["cards"] = sorted(move["cards"])
    return out


def test_every_state_of_every_played_deal_refolds_exactly(played):
    """R11.1: replaying the log reproduces every intermediate state the table stored."""
    assert len(played) == 2
    for item in played:
        replay = replay_states(item.deal)
        stored = [state_from_json(snapshot) for snapshot in item.snapshots]
        assert len(replay) == len(stored) == item.deal.seq + 1
        for step, (folded, kept) in enumerate(zip(replay, stored)):
            assert folded == kept, f"deal {item.deal.number} differs at step {step}"
        assert replay[-1] == state_from_json(Deal.objects.get(pk=item.deal.pk).state)
        assert replay[-1].is_over


def test_initial_state_is_the_first_snapshot_the_table_stored(played):
    for item in played:
        assert initial_state(item.deal) == state_from_json(item.snapshots[0])
        assert state_to_json(initial_state(item.deal)) == item.snapshots[0]


def test_the_played_deals_cover_tribute_timeouts_and_autopilot(played):
    """The fixtures exercise what the replay must show: tribute from the second deal (R8),
    timeouts and the autopilot (R9.2), and plays with their declared readings (R3.5)."""
    first, second = replay_states(played[0].deal), replay_states(played[1].deal)
    assert first[0].tribute.kind == "none"
    assert second[0].tribute.kind in ("single", "double")
    actors = {row.actor for item in played for row in item.deal.actions.all()}
    assert {TIMEOUT, AUTOPILOT, "human", "bot"} <= actors
    plays = Action.objects.filter(deal__in=[item.deal for item in played], kind=PLAY)
    assert plays.exists() and not plays.filter(reading=None).exists()


def test_engine_actions_keep_reading_and_actor(played):
    deal = played[0].deal
    actions = engine_actions(deal)
    rows = list(deal.actions.order_by("seq"))
    assert len(actions) == len(rows)
    for action, row in zip(actions, rows):
        assert (action.kind, action.seat, list(action.cards), action.actor) == (row.kind, row.seat, row.cards, row.actor)
        assert (action.reading.to_json() if action.reading else None) == row.reading
    assert fold(initial_state(deal), actions) == state_from_json(deal.state)


@pytest.mark.rigged_deal
def test_a_gap_in_the_log_is_reported(played):
    deal = played[0].deal
    deal.actions.filter(seq=5).delete()
    with pytest.raises(ReplayError, match="no action #5"):
        engine_actions(deal)
    assert "no action #5" in check_deal(deal)


def test_check_deal_finds_nothing_on_good_data(played, open_deal):
    for deal in Deal.objects.all():
        assert check_deal(deal) is None, deal


@pytest.mark.rigged_deal
def test_check_deal_reports_a_tampered_snapshot(played):
    deal = Deal.objects.get(pk=played[1].deal.pk)
    state = copy.deepcopy(deal.state)
    # Move one card to another seat: still a possible-looking table, but not what the log says.
    holder = next(seat for seat in range(4) if state["hands"][seat])
    card = state["hands"][holder].pop()
    state["hands"][(holder + 1) % 4].append(card)
    deal.state = state
    deal.save(update_fields=["state"])
    problem = check_deal(deal)
    assert problem is not None and "hands" in problem


@pytest.mark.rigged_deal
def test_check_deal_reports_a_wrong_seq_and_a_refused_action(played):
    deal = Deal.objects.get(pk=played[0].deal.pk)
    deal.seq += 1
    assert "seq is" in check_deal(deal)
    deal.refresh_from_db()
    row = deal.actions.filter(kind=PLAY).order_by("seq").first()
    row.cards = [c for c in range(108) if c not in deal.hands[row.seat]][:1]
    row.reading = None
    row.save()
    problem = check_deal(deal)
    assert f"action #{row.seq}" in problem and "R9.1" in problem


def test_check_deal_reports_an_unknown_ruleset(played):
    deal = played[0].deal
    deal.ruleset_version = "1999.1"
    assert "ruleset" in check_deal(deal)


def test_trick_starts_and_tribute_step(played):
    deal = played[1].deal
    replay = replay_states(deal)
    starts = trick_starts(replay)
    assert [number for number, _, _ in starts] == list(range(1, len(starts) + 1))
    assert starts[-1][0] == replay[-1].trick_no + 1
    for number, step, leader in starts:
        before, after = replay[step - 1], replay[step]
        assert before.leading and before.turn == leader
        assert after.history[-1].seat == leader and after.history[-1].trick == number - 1
    at = tribute_step(replay, engine_actions(deal))
    assert at is not None
    assert tribute_step(replay_states(played[0].deal), engine_actions(played[0].deal)) is None


def test_export_then_import_reproduces_the_deal(played):
    """An export read back through the engine replays to the very same states."""
    for item in played:
        data = json.loads(json.dumps(export_deal(item.deal)))
        first, actions = import_export(data)
        replay = replay_states(item.deal)
        assert first == replay[0]
        assert fold(first, actions) == replay[-1]
        assert data["result"]["explanation"] == replay[-1].result.settlement.explanation
        assert data["result"]["places"] == list(replay[-1].result.places)


def test_export_speaks_the_rules_notation(played):
    deal = played[1].deal
    data = export_deal(deal)
    assert data["ruleset_version"] == deal.ruleset_version
    assert data["hands"][0] == [FACE_OF[c] for c in deal.hands[0]]
    assert data["active_level"] == "23456789TJQKA"[deal.active_level]
    assert data["prev_places"] == deal.prev_places
    play = next(a for a in data["actions"] if a["kind"] == "play")
    assert set(play) >= {"seq", "seat", "cards", "reading", "actor"}
    assert play["reading"]["shape"] and play["name"]
    assert len(data["actions"]) == deal.seq


def _faces_only(data):
    data = copy.deepcopy(data)
    del data["hand_ids"]
    for action in data["actions"]:
        del action["card_ids"]
    return data


def test_a_faces_only_export_plays_the_same_game(match):
    """A hand-written file gives faces only: the copies of a face may land elsewhere, but
    face for face it is the same deal (here two deals, the second with tribute)."""
    for number in range(2):
        match.refresh_from_db()
        deal = factories.play(factories.deal_next(match), rng=random.Random(number)).deal
        first, actions = import_export(_faces_only(export_deal(deal)))
        replay = replay_states(deal)
        ours = [first]
        for action in actions:
            ours.append(apply(ours[-1], action))
        assert len(ours) == len(replay)
        for mine, theirs in zip(ours, replay):
            assert _face_level(mine) == _face_level(theirs)


def test_a_faces_only_timeout_is_the_engines_choice(played):
    """R9.2: a timeout in a faces-only file is the engine's automatic choice; where that
    choice depends on which physical copy a seat holds (R8.3), the import says so."""
    for item in played:
        data = _faces_only(export_deal(item.deal))
        try:
            first, actions = import_export(data)
        except ValueError as error:
            assert "R9.2" in str(error) and "card_ids" in str(error)
            continue
        assert any(a.actor == TIMEOUT for a in actions)
        assert _face_level(fold(first, actions)) == _face_level(replay_states(item.deal)[-1])
    broken = _faces_only(export_deal(played[0].deal))
    timeout = next(a for a in broken["actions"] if a["actor"] == TIMEOUT)
    timeout["cards"] = ["2S"] if timeout["cards"] != ["2S"] else ["3S"]
    with pytest.raises(ValueError, match="R9.2"):
        import_export(broken)


def test_import_refuses_what_the_rules_refuse(played):
    data = export_deal(played[0].deal)
    broken = copy.deepcopy(data)
    broken["hand_ids"][0][0] = broken["hand_ids"][1][0]
    with pytest.raises(ValueError):
        import_export(broken)
    illegal = copy.deepcopy(data)
    first_play = next(a for a in illegal["actions"] if a["kind"] == "play")
    first_play["seat"] = (first_play["seat"] + 1) % 4
    with pytest.raises(ValueError, match="refused"):
        import_export(illegal)
    with pytest.raises(ValueError, match="ruleset"):
        import_export({**data, "ruleset_version": "1999.1"})
    with pytest.raises(ValueError):
        import_export({"format": "something else"})


def test_a_resisted_tribute_replays(match, played):
    """R8.5: a deal whose tribute is resisted deals, plays and replays like any other."""
    match.refresh_from_db()
    resisted = factories.deal_next(match, seed=factories.resisting_seed(match))
    factories.play(resisted, rng=random.Random(3))
    replay = replay_states(resisted.deal)
    assert replay[0].tribute.resisted
    assert replay[0].phase == "play" and replay[0].lead_seat == replay[0].prev_places[0]
    assert [state_from_json(s) for s in resisted.snapshots] == replay
    assert tribute_step(replay, engine_actions(resisted.deal)) == 0
    assert check_deal(resisted.deal) is None


def test_an_unfinished_deal_replays_up_to_now(open_deal):
    replay = replay_states(open_deal.deal)
    assert not replay[-1].is_over
    assert len(replay) == 31
    assert [state_from_json(s) for s in open_deal.snapshots] == replay
