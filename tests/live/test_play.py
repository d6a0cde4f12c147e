"""The one door (games.live.door): every action applies once or changes nothing, with the rule
named; timers make bots, timeouts and the autopilot act; deals settle and follow on."""

import random
import re
from datetime import timedelta
from unittest.mock import patch

import pytest
from django.utils import timezone

from accounts.models import PointsEntry
from games.engine.deal import Action as EngineAction
from games.engine.deal import apply, legal_actions, new_deal, timeout_action
from games.engine.errors import RuleError
from games.engine.replay import fold, state_from_json
from games.live import door
from games.live import selectors as live_selectors
from games.models import Action, Deal, Match, Seat, Table
from games.replays.log import engine_actions, initial_state

from .conftest import expire
from .helpers import act, current, play_out

pytestmark = pytest.mark.django_db(transaction=True)


def snapshot(table):
    """Everything an action could change."""
    deal = live_selectors.current_deal(table)
    return (
        deal.pk, deal.seq, deal.state, deal.result, deal.finished_at,
        list(Action.objects.filter(deal=deal).values_list("seq", "kind", "cards")),
        list(Seat.objects.filter(table=table).values_list("position", "autopilot", "auto_play")),
        Table.objects.get(pk=table.pk).status,
    )


def test_starting_a_match_deals_the_first_deal_and_arms_a_timer(playing_table, timers):
    table, users = playing_table
    deal, state = current(table)
    assert deal.number == 1 and deal.seq == 0 and deal.finished_at is None
    assert state == new_deal(hands=deal.hands, level=0, team_levels=(0, 0), prev_places=None, seed=deal.seed)
    assert deal.deadline is not None  # R9.2: the think clock runs
    # Four players thinking for themselves: the deal's one think-time timer, due then.
    assert timers.pending == [("table_clock", (table.pk, deal.pk, deal.deadline.isoformat()), pytest.approx(30, abs=1))]
    assert deal.clock_at == deal.deadline


def test_players_who_think_share_one_pending_timer(playing_table, timers):
    """Steps between players restart the think time (R9.2) but start no timer of their
    own: the pending one, when it fires early, comes back at the newest deadline."""
    table, users = playing_table
    first, _state = current(table)
    for _ in range(6):
        act(table, users)
    deal, state = current(table)
    assert deal.deadline > first.deadline and deal.clock_at == first.deadline
    assert timers.names() == ["table_clock"]
    seq = deal.seq
    # It fires at its time (the players were quick): no action, back at the new deadline.
    assert timers.run(rounds=1) == 1
    deal.refresh_from_db()
    assert deal.seq == seq and deal.clock_at == deal.deadline
    assert timers.pending == [("table_clock", (table.pk, deal.pk, deal.deadline.isoformat()), pytest.approx(30, abs=1))]
    # A timer that was replaced does nothing, and leaves the pending one alone.
    assert door.run_table_clock(table_id=table.pk, deal_id=deal.pk, due=first.deadline.isoformat()) is False
    assert door.run_table_clock(table_id=table.pk, deal_id=deal.pk, due="junk") is False
    deal.refresh_from_db()
    assert deal.clock_at == deal.deadline
    # Once the time is out, the pending timer makes the seat to act time out.
    past = timezone.now() - timedelta(seconds=1)
    Deal.objects.filter(pk=deal.pk).update(deadline=past, clock_at=past)
    assert door.run_table_clock(table_id=table.pk, deal_id=deal.pk, due=past.isoformat()) is True
    deal.refresh_from_db()
    assert deal.seq == seq + 1
    assert Action.objects.get(deal=deal, seq=seq + 1).actor == "timeout"
    # That step started the next timer (the previous one had fired).
    assert deal.clock_at == deal.deadline and timers.pending[-1][0] == "table_clock"


def test_a_lost_think_time_timer_is_started_again(playing_table, timers):
    """A crash took the pending timer with it: its time is well past, so the next step
    starts another rather than counting on it."""
    table, users = playing_table
    deal, _state = current(table)
    lost = timezone.now() - timedelta(seconds=30)
    Deal.objects.filter(pk=deal.pk).update(clock_at=lost)
    timers.pending.clear()
    act(table, users)
    deal.refresh_from_db()
    assert deal.clock_at == deal.deadline
    assert timers.names() == ["table_clock"]


def test_a_legal_action_is_logged_and_snapshotted(playing_table):
    table, users = playing_table
    deal, before = current(table)
    outcome = act(table, users)
    deal.refresh_from_db()
    row = Action.objects.get(deal=deal, seq=1)
    assert outcome.seq == deal.seq == 1
    assert row.actor == "human" and row.user == users[row.seat]
    assert state_from_json(deal.state) == apply(before, EngineAction(row.kind, row.seat, tuple(row.cards),
                                                                     outcome.state.history[-1].reading))


def _refused(table, rule, **kwargs):
    before = snapshot(table)
    with pytest.raises((door.PlayError, RuleError)) as info:
        door.submit_action(table_id=table.pk, **kwargs)
    assert str(info.value).startswith(rule), str(info.value)
    assert snapshot(table) == before, "a refused action changed something (R9.1)"
    return str(info.value)


def _lead(table):
    deal, state = current(table)
    seat = state.turn
    first = next(a for a in legal_actions(state, seat) if a.kind == "play")
    return deal, state, seat, first


def test_refusals_name_the_rule_and_change_nothing(playing_table):
    table, users = playing_table
    deal, state, seat, first = _lead(table)
    other = (seat + 1) % 4
    common = dict(expected_deal=deal.pk, expected_seq=deal.seq)
    # Out of turn (R6.2): another seated player tries to lead.
    other_cards = state.hands[other][:1]
    _refused(table, "R6.2", seat=other, kind="play", cards=other_cards, user=users[other], **common)
    # A stale step and a stale deal (R9.1).
    _refused(table, "R9.1", seat=seat, kind="play", cards=first.cards, user=users[seat],
             expected_deal=deal.pk, expected_seq=deal.seq + 3)
    _refused(table, "R9.1", seat=seat, kind="play", cards=first.cards, user=users[seat],
             expected_deal=deal.pk + 99, expected_seq=deal.seq)
    # A player who sits elsewhere, and a visitor who does not sit here (R10.5).
    _refused(table, "R10.5", seat=seat, kind="play", cards=first.cards, user=users[other], **common)
    _refused(table, "R10.5", seat=seat, kind="play", cards=first.cards, user=None, **common)
    # Cards not in hand, forged ids, duplicates.
    _refused(table, "R9.1", seat=seat, kind="play", cards=state.hands[other][:1], user=users[seat], **common)
    _refused(table, "R1.4", seat=seat, kind="play", cards=["x"], user=users[seat], **common)
    _refused(table, "R1", seat=seat, kind="play", cards=[999], user=users[seat], **common)
    card = state.hands[seat][0]
    _refused(table, "R", seat=seat, kind="play", cards=[card, card], user=users[seat], **common)
    # A reading the cards do not have (R3.5), junk readings, a pass on the lead (R6.1).
    _refused(table, "R", seat=seat, kind="play", cards=[card], user=users[seat],
             reading={"shape": "bomb", "rank": "3", "size": 4}, **common)
    _refused(table, "R", seat=seat, kind="play", cards=[card], user=users[seat], reading={"shape": "spaceship"}, **common)
    _refused(table, "R6.1", seat=seat, kind="pass", user=users[seat], **common)
    _refused(table, "R9.1", seat=seat, kind="dance", user=users[seat], **common)


def test_a_double_click_applies_once(playing_table):
    table, users = playing_table
    deal, state, seat, first = _lead(table)
    kwargs = dict(table_id=table.pk, seat=seat, kind="play", cards=first.cards, reading=first.reading,
                  expected_deal=deal.pk, expected_seq=deal.seq, user=users[seat])
    door.submit_action(**kwargs)
    message = _refused(table, "R9.1", **{k: v for k, v in kwargs.items() if k != "table_id"})
    assert "moved on" in message
    assert Action.objects.filter(deal=deal).count() == 1


def test_bots_act_when_their_timer_runs_and_stale_timers_do_nothing(practice_table, timers):
    table, user = practice_table(bot_speed="0.3")
    deal, state = current(table)
    timers.run(rounds=50)
    deal.refresh_from_db()
    state = state_from_json(deal.state)
    # The bots played until it was the human's turn (or the deal needs the human).
    assert 0 in state.to_act or state.is_over
    assert set(Action.objects.filter(deal=deal).values_list("actor", flat=True)) <= {"bot"}
    seq = deal.seq
    assert door.run_table_turn(table_id=table.pk, deal_id=deal.pk, seq=seq - 1 if seq else 99) is False
    deal.refresh_from_db()
    assert deal.seq == seq


def test_timeouts_then_autopilot_then_taking_back_control(practice_table, timers):
    """R9.2: a follower passes and a leader plays on timeout; two timeouts in a row put the
    seat on autopilot until its player acts again."""
    table, user = practice_table(bot_speed="0.3", think_time=10)
    timeouts = 0
    for _ in range(400):
        timers.run(rounds=20)
        deal, state = current(table)
        if state.is_over:
            break
        if 0 not in state.to_act:
            continue
        expire(deal)
        assert door.run_table_turn(table_id=table.pk, deal_id=deal.pk, seq=deal.seq)
        timeouts += 1
        if timeouts == 2:
            break
    deal.refresh_from_db()
    rows = list(Action.objects.filter(deal=deal, seat=0).order_by("seq"))
    assert [r.actor for r in rows[-2:]] == ["timeout", "timeout"]
    seat = Seat.objects.get(table=table, position=0)
    assert seat.autopilot and state_from_json(deal.state).autopilot[0]
    # The autopilot now plays for the seat without waiting for the think time.
    for _ in range(200):
        timers.run(rounds=20)
        if Action.objects.filter(deal__match__table=table, seat=0, actor="autopilot").exists():
            break
    assert Action.objects.filter(deal__match__table=table, seat=0, actor="autopilot").exists()
    door.take_back_control(table=table, user=user)
    assert not Seat.objects.get(table=table, position=0).autopilot


def test_auto_play_acts_for_the_player_until_switched_off(practice_table, timers):
    table, user = practice_table(bot_speed="0.3")
    with pytest.raises(door.PlayError, match="R9.2"):
        door.set_auto_play(table=table, user=user, interval="7")
    door.set_auto_play(table=table, user=user, interval="0.5")
    assert Seat.objects.get(table=table, position=0).auto_play is not None
    timers.run(rounds=300)
    assert Action.objects.filter(deal__match__table=table, seat=0, actor="bot").exists()
    door.set_auto_play(table=table, user=user, interval=None)
    assert Seat.objects.get(table=table, position=0).auto_play is None


def test_a_whole_deal_settles_and_the_next_deal_carries_the_tribute(playing_table, timers):
    table, users = playing_table
    deal = play_out(table, users, timers)
    assert deal.finished_at is not None and deal.result["explanation"]
    match = Match.objects.get(pk=deal.match_id)
    places = deal.result["places"]
    assert sorted(places) == [0, 1, 2, 3]
    assert [match.level_a, match.level_b] == deal.result["levels"]
    # R10.6: registered winners earn levels advanced x tier factor (Junior 1).
    winners = [users[p] for p in range(4) if p % 2 == deal.result["winner_team"]]
    for user in winners:
        entry = PointsEntry.objects.get(user=user, deal=deal, reason=PointsEntry.Reason.DEAL_WIN)
        assert entry.delta == deal.result["advance"]
    assert "next_deal" in timers.names()
    # R9.6 and R10.6 on the table: the promotion in words and the points earned.
    from django.utils.html import escape

    from games.live.render import render_public, scene_for

    from games.engine.reading import shown_rank

    panel = render_public(scene_for(table))
    # Each team's level before -> after, named by its players (Us/Them on the page, never
    # "Team A"), and the rule in words (R7.1-R7.3).
    winner = deal.result["winner_team"]
    before = state_from_json(deal.state).team_levels[winner]
    after = deal.result["levels"][winner]
    assert f"level {shown_rank(before)} → {shown_rank(after)}" in panel
    assert re.search(r"\(R7\.[123]", re.sub(r"<[^>]+>", "", panel))  # the rule id is a link (README)
    assert "Team A" not in panel and "Team B" not in panel
    for user in users:
        assert escape(user.profile.display_name) in panel
    assert f"earns {deal.result['advance']} career point" in panel
    # The next deal: dealt once, at the winners' level, with tribute from these places (R8).
    second = door.start_next_deal(table_id=table.pk, deal_id=deal.pk)
    assert door.start_next_deal(table_id=table.pk, deal_id=deal.pk) is None
    state = state_from_json(second.state)
    assert second.number == 2 and list(state.prev_places) == places
    assert state.level == deal.result["levels"][deal.result["winner_team"]]
    assert state.phase in ("tribute", "return", "play") and state.tribute.kind in ("single", "double")


def test_the_log_folds_to_the_snapshot(playing_table, timers):
    table, users = playing_table
    deal = play_out(table, users, timers, rng=random.Random(5))
    assert fold(initial_state(deal), engine_actions(deal)) == state_from_json(deal.state)


def test_the_sweep_rearms_an_overdue_turn(practice_table, timers):
    """A crash loses the pending timers: the sweep finds the deal and moves it on."""
    table, user = practice_table(bot_speed="0.3")
    timers.pending.clear()  # the process died with its timers
    deal, state = current(table)
    if 0 in state.to_act:
        expire(deal, seconds_ago=10)  # well past the sweep's grace period
    before = deal.seq
    if 0 not in state.to_act:
        # Not yet overdue: the sweep leaves a bot its bot speed (and a grace period).
        assert door.sweep() == 0
        Deal.objects.filter(pk=deal.pk).update(started_at=timezone.now() - timedelta(seconds=10))
    assert door.sweep() >= 1
    deal.refresh_from_db()
    assert deal.seq > before


def test_the_sweep_after_a_reconnection_rearms_every_timer_not_yet_due(practice_table, timers):
    """A worker that has just reconnected to the broker lost every timer it held, due or
    not: the sweep it asks for starts each table's next timer again, at its own time."""
    table, user = practice_table(bot_speed="2")
    Seat.objects.filter(table=table, user=user).update(auto_play=2)  # every seat waits 2 s
    timers.pending.clear()  # the timers went with the old connection
    deal, _state = current(table)
    # Not due yet: an ordinary sweep leaves it alone, and nothing would move it until a
    # later sweep found it overdue.
    assert door.sweep(grace=0.0) == 0 and timers.pending == []
    assert door.sweep(grace=0.0, rearm=True) == 0
    [(name, args, delay)] = timers.pending
    assert (name, args) == ("table_turn", (table.pk, deal.pk, deal.seq)) and 0 < delay <= 2
    timers.run(rounds=1)
    deal.refresh_from_db()
    assert deal.seq > 0


def test_the_rearming_sweep_starts_the_think_time_timer_again(playing_table, timers):
    table, _users = playing_table
    deal, _state = current(table)
    assert deal.clock_at is not None and deal.clock_at > timezone.now()
    timers.pending.clear()
    assert door.sweep(grace=0.0, rearm=True) == 0
    [(name, args, delay)] = timers.pending
    assert (name, args) == ("table_clock", (table.pk, deal.pk, deal.clock_at.isoformat()))
    assert table.think_time - 2 < delay <= table.think_time
    # It is the deal's one pending timer (R9.2): when it fires past the deadline, the
    # player to act times out.
    expire(deal)
    timers.run(rounds=1)
    assert Action.objects.filter(deal=deal, actor="timeout").count() == 1


def test_the_rearming_sweep_deals_the_next_deal_of_a_deal_just_settled(practice_table, timers, settings):
    settings.GUANDAN_NEXT_DEAL_DELAY = 30
    table, user = practice_table(bot_speed="0.3")
    finished = play_out(table, {0: user}, timers)
    timers.pending.clear()
    assert door.sweep(grace=0.0) == 0 and timers.pending == []
    door.sweep(grace=0.0, rearm=True)
    [(name, args, delay)] = [t for t in timers.pending if t[0] == "next_deal"]
    assert args == (table.pk, finished.pk) and 25 < delay <= 30
    timers.pending[:] = [("next_deal", args, delay)]
    timers.run(rounds=1)
    deal, _state = current(table)
    assert deal.number == finished.number + 1


def test_timeout_action_is_the_automatic_choice_only(playing_table):
    """A 'timeout' action must be exactly what R9.2 picks."""
    table, users = playing_table
    deal, state = current(table)
    seat = state.turn
    auto = timeout_action(state, seat)
    other = next(a for a in legal_actions(state, seat) if a.kind == "play" and a.cards != auto.cards)
    _refused(table, "R9.2", seat=seat, kind="play", cards=other.cards, reading=other.reading,
             expected_deal=deal.pk, expected_seq=deal.seq, actor="timeout")


def test_the_tribute_is_told_until_the_first_play(playing_table, timers):
    """R8 on the table: once tribute and return are done (chosen or automatic), the
    table says who gave whom what until the first lead is played."""
    from games.live.render import render_public, scene_for

    table, users = playing_table
    deal = play_out(table, users, timers, rng=random.Random(11))
    second = door.start_next_deal(table_id=table.pk, deal_id=deal.pk)
    rng = random.Random(12)
    while True:
        _deal, state = current(table)
        if state.phase == "play":
            break
        act(table, users, rng)
    assert state.tribute.kind in ("single", "double")
    panel = render_public(scene_for(table))
    if state.tribute.resisted:  # R8.5: no gifts to tell of
        assert "Tribute resisted" in panel and "Tribute this deal" not in panel
        return
    assert "Tribute this deal" in panel
    from django.utils.html import escape

    names = {seat.position: seat.user.profile.display_name for seat in table.seats.select_related("user__profile")}
    for gift in state.tribute.gifts:  # told by the players' names
        assert f"{escape(names[gift.donor])} gave {escape(names[gift.recipient])}" in panel
        assert f'data-card="{gift.card}"' in panel
    act(table, users, rng)
    assert "Tribute this deal" not in render_public(scene_for(table))
    assert second.pk == current(table)[0].pk


def _seat_reads(table, users):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        act(table, users)
    return [q["sql"] for q in queries.captured_queries if 'FROM "games_seat"' in q["sql"]]


def test_the_door_reads_the_seats_again_only_when_they_change(playing_table):
    """The door keeps each table's seats for as long as the table's version holds; a
    seat or a shown name that changes, even outside the door (the admin), gives the
    table a new version and the pages the new facts."""
    from accounts import services as account_services
    from games.live.render import scene_for

    table, users = playing_table
    door.seat_cache.clear()
    assert len(_seat_reads(table, users)) == 1
    assert _seat_reads(table, users) == []  # the same version: no read
    kept = door.seat_cache._entries[table.pk]
    assert _seat_reads(table, users) == []
    assert door.seat_cache._entries[table.pk] is kept  # nor copied and stored again
    # A player renames: the next step reads the seats again and shows the new name.
    deal, state = current(table)
    seat = state.to_act[0]
    account_services.rename(user=users[seat], display_name="Renamed Player")
    assert len(_seat_reads(table, users)) == 1
    assert scene_for(Table.objects.get(pk=table.pk)).seats[seat].name == "Renamed Player"
    assert _seat_reads(table, users) == []
    # A seat edited in the admin (a plain save) is a change too.
    row = Seat.objects.get(table=table, position=(seat + 1) % 4)
    row.auto_play = None
    row.save()
    assert len(_seat_reads(table, users)) == 1


def _door_queries(table, users, rng):
    """The statements of one action through the door (the player's choice made first)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    deal, state = current(table)
    seat = state.to_act[0]
    action = legal_actions(state, seat)[0] if state.phase != "play" else rng.choice(legal_actions(state, seat))
    with CaptureQueriesContext(connection) as queries:
        door.submit_action(table_id=table.pk, seat=seat, kind=action.kind, cards=action.cards, reading=action.reading,
                           expected_deal=deal.pk, expected_seq=deal.seq, user=users[seat])
    return [q["sql"] for q in queries.captured_queries]


def test_the_door_reads_the_snapshot_only_when_this_process_does_not_hold_the_step(playing_table):
    """Every step's scene is kept by the process that sent or received it; the door locks
    the table and reads the deal in one statement, and leaves the snapshot out when the
    deal is still at the step this process holds. A process that does not hold it (it
    was started afresh, or another process moved the deal on) reads the snapshot."""
    from games.live import render

    table, users = playing_table
    rng = random.Random(5)
    _door_queries(table, users, rng)  # this process now holds the newest step
    sql = _door_queries(table, users, rng)
    reads = [s for s in sql if s.lstrip().upper().startswith("SELECT") and '"games_deal"' in s]
    assert len(reads) == 1, reads  # the lock and the deal in one statement
    deal, state = current(table)
    kept = render.kept_step(table.pk, deal.pk)
    assert kept is not None and kept[0] == state and kept[1] == deal.state
    # Held at an older step (another process played the last one): read, and right.
    older = render.Scene.from_event(render.scene_for(table).to_event())
    _door_queries(table, users, rng)
    with render._scenes_lock:
        render._scenes[table.pk] = ("stale", older)
    _door_queries(table, users, rng)
    render.forget_scenes()  # held by none: read, and right
    _door_queries(table, users, rng)
    deal, state = current(table)
    assert fold(initial_state(deal), engine_actions(deal)) == state
    assert deal.seq == Action.objects.filter(deal=deal).count() == state.step


def test_a_seats_drawn_fragment_is_kept_by_what_it_shows(playing_table):
    """The seats' fragments are kept by the repr of their context: plain values only (a
    lazy translation's repr names its address, and would miss every time)."""
    from games.live import render

    table, users = playing_table
    rng = random.Random(2)
    for _ in range(12):
        act(table, users, rng)
        context = render.public_context(render.scene_for(table))
        for seat in context["seats"]:
            assert " at 0x" not in repr(seat), seat
    scene = render.scene_for(table)
    assert render.render_public(scene) == render.render_public(render.scene_for(table))


def test_the_public_fragments_from_kept_pieces_are_the_frame_drawn_whole(playing_table, timers):
    """The public fragments, from the frame and the trick kept per process, equal the
    frame drawn afresh around the trick drawn afresh, in both languages, at every step of
    a deal, its settlement and the next deal's tribute and return; a pass, which shows
    nothing new in the middle, draws no template at all."""
    from django.template.loader import render_to_string
    from django.utils import translation
    from django.utils.safestring import mark_safe

    from games.live import render

    def afresh(scene):
        context = render.public_context(scene)
        seats = "".join(render._seats.render(s, context["deadline"], context["think_time"]) for s in context["seats"])
        return render.compact(render_to_string("live/_public.html", {
            **context, "seats_html": mark_safe(seats), "log_html": mark_safe("".join(context["history"])),
            "trick_html": mark_safe(render_to_string("live/_trick.html", context))}))

    table, users = playing_table
    rng = random.Random(5)
    phases, passes, after_tribute, deals = set(), 0, 0, 1
    # Until a deal's end and a later deal's tribute or return and first plays are seen
    # (a deal whose tribute is resisted, R8.5, has neither: then the next one).
    while after_tribute < 8:
        scene = render.scene_for(table)
        state = scene.state
        phases.add(state.phase)
        if phases & {"tribute", "return"} and state.phase == "play":
            after_tribute += 1
        # A pass that leaves the trick going shows the same middle as the step before.
        same_middle = state.phase == "play" and state.top is not None and state.history and state.history[-1].is_pass
        for language in ("en", "zh-hans"):
            with translation.override(language):
                context = render.public_context(scene)
                # The middle is kept by the repr of plain values (a lazy text's names its address).
                assert " at 0x" not in repr(context["tribute"]) + repr(context["top"])
                drawn = []
                real = render.render_to_string
                with patch.object(render, "render_to_string", lambda *a, **k: drawn.append(a[0]) or real(*a, **k)):
                    kept = render.render_public(scene)
                if same_middle:
                    assert drawn == []
                    passes += 1
                assert kept == afresh(scene)
        if state.is_over:
            assert deals < 5, "no tribute in five deals"
            deals += 1
            door.start_next_deal(table_id=table.pk, deal_id=scene.deal_id)
        else:
            act(table, users, rng)
    assert "over" in phases and passes


def test_a_seat_drawn_from_kept_pieces_is_the_seat_drawn_afresh(playing_table):
    """A seat is its box, plate and last play, each kept by what it shows: along a deal,
    every seat drawn with the pieces kept from earlier steps equals the seat drawn with
    nothing kept, and a turn passing on draws plates only."""
    from games.live import render

    table, users = playing_table
    rng = random.Random(3)
    drawn = []

    def counting(name, real):
        def draw(*args, **kwargs):
            drawn.append(args[0] if name == "template" else name)
            return real(*args, **kwargs)
        return draw

    for _ in range(16):
        act(table, users, rng)
        context = render.public_context(render.scene_for(table))
        del drawn[:]
        with patch.object(render, "render_to_string", counting("template", render.render_to_string)), \
                patch.object(render, "seat_last_html", counting("last", render.seat_last_html)), \
                patch.object(render, "seat_plate_html", counting("plate", render.seat_plate_html)):
            warm = [render._seats.render(s, context["deadline"], context["think_time"]) for s in context["seats"]]
        assert "live/_seat.html" not in drawn  # the boxes never change
        assert drawn.count("last") <= 2  # the seat that played, the top it beat
        assert drawn.count("plate") <= 3  # the seat that played, the next to act, a seat that finished
        render._seats._drawn._drawn.clear()
        fresh = [render._seats.render(s, context["deadline"], context["think_time"]) for s in context["seats"]]
        assert warm == fresh
        for number, html in enumerate(fresh, 1):
            assert html.index(f"<!--tbl:plate-{number}-->") < html.index(f"<!--tbl:last-{number}-->") \
                < html.index(f'id="tbl-talk-{number}"') < html.index(f"<!--tbl:seat-{number}-end-->")


def test_the_event_carries_the_state_text_the_database_holds(playing_table):
    """The door dumps the deal's state once: the same text is written to the database
    and spliced into the event every process reads the step from."""
    import json

    from games.live import render

    table, users = playing_table
    rng = random.Random(4)
    for _ in range(6):
        act(table, users, rng)
        deal, _state = current(table)
        text, scene = render._scenes[table.pk]
        event = json.loads(text)
        assert event["state"] == deal.state == scene.state_json
        assert render.Scene.from_event(text) == scene
        assert state_from_json(event["state"]) == state_from_json(deal.state)


def test_a_seats_plate_and_last_play_are_drawn_in_the_viewers_language():
    """The plate and the last play are written in code: their words come from the
    catalogue (Chinese here), the name is escaped, and the countdown shows only with a
    deadline."""
    from django.utils import translation

    from games.live import render

    seat = {"position": 0, "number": 1, "team": "A", "name": "<Mei>", "is_bot": True, "away": False,
            "rating": "1500?", "autopilot": True, "count": 7, "to_act": True, "place": 1, "last": None, "is_top": False}
    with translation.override("zh-hans"):
        plate = render.seat_plate_html(seat, "", 20)
        counting = render.seat_plate_html(seat, "2026-12-07T01:00:00+00:00", 20)
        last = render.seat_last_html(dict(seat, last={"pass": True, "actor": "timeout"}, is_top=False))
    assert plate.startswith('<!--tbl:plate-1--><div id="tbl-plate-1" class="seat-plate is-turn is-finished">')
    assert "&lt;Mei&gt;" in plate and "<Mei>" not in plate
    for word in ("机器人", "托管", "头游", "7 张", "1500?"):
        assert word in plate, word
    assert 'class="timer"' not in plate and 'data-deadline="2026-12-07T01:00:00+00:00" data-total="20"' in counting
    assert last.startswith('<!--tbl:last-1--><div id="tbl-last-1" class="seat-last">') and "move-pass" in last
