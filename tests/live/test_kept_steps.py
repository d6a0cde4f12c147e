"""The door takes a process's newest scene of a table for the deal's snapshot while the
deal is at that step (``selectors.lock_step``, ``render.kept_step``). Whatever the order
in which two processes apply a deal's steps, and whatever either forgets, every step
stored is the engine's fold of the log, and a process's kept scene is always the step it
last saw committed."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.replay import fold
from games.live import door, render
from games.replays.log import engine_actions, initial_state

from .helpers import choose, current

pytestmark = pytest.mark.django_db(transaction=True)

# Which process (0 or 1) applies each step, and whether it forgot its scenes first.
plans = st.lists(st.tuples(st.integers(0, 1), st.booleans()), min_size=10, max_size=40)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=plans, seed=st.integers(0, 2**16))
def test_two_processes_applying_a_deals_steps_in_any_order(plan, seed, make_user, make_table, monkeypatch):
    from games.tables import services

    users = [make_user() for _ in range(4)]
    table = make_table(users[0])
    for position, user in enumerate(users[1:], start=1):
        services.take_seat(table=table, user=user, position=position)
    services.start_match(table=table, user=users[0])
    rng = random.Random(seed)
    processes = [{}, {}]  # each process's kept scenes
    for process, forget in plan:
        deal, state = current(table)
        if state.is_over:
            break
        monkeypatch.setattr(render, "_scenes", processes[process])
        if forget:
            render.forget_scenes()
        seat = state.to_act[0]
        action = choose(state, seat, rng)
        door.submit_action(table_id=table.pk, seat=seat, kind=action.kind, cards=action.cards,
                           reading=action.reading, expected_deal=deal.pk, expected_seq=deal.seq, user=users[seat])
        deal, after = current(table)
        assert fold(initial_state(deal), engine_actions(deal)) == after
        kept = render.kept_step(table.pk, deal.pk)
        assert kept is not None and kept[0] == after and kept[1] == deal.state


def test_the_doors_read_gives_the_rows_as_the_orm_reads_them(make_user, make_table):
    """``lock_step`` builds the table and the deal from its own statement with each
    field's converters (found once per process): the same values as the ORM's read,
    the second time as the first, with and without the snapshot."""
    from django.db import transaction

    from games.live.selectors import _DEAL_FIELDS, _TABLE_FIELDS, lock_step
    from games.models import Deal, Table
    from games.tables import services

    users = [make_user() for _ in range(4)]
    table = make_table(users[0])
    for position, user in enumerate(users[1:], start=1):
        services.take_seat(table=table, user=user, position=position)
    services.start_match(table=table, user=users[0])
    deal, _ = current(table)
    orm_table, orm_deal = Table.objects.get(pk=table.pk), Deal.objects.get(pk=deal.pk)
    for known in (None, deal.seq, None):
        with transaction.atomic():
            read_table, read_deal = lock_step(table.pk, deal.pk, known=known)
        assert [getattr(read_table, f.attname) for f in _TABLE_FIELDS] == [getattr(orm_table, f.attname) for f in _TABLE_FIELDS]
        for field in _DEAL_FIELDS:
            expected = None if field.name == "state" and known is not None else getattr(orm_deal, field.attname)
            assert getattr(read_deal, field.attname) == expected, field.name
        assert read_deal.match_status == orm_deal.match.status and read_deal.match_winner == orm_deal.match.winner_team
        assert isinstance(read_deal.state, dict | None) and read_table.updated_at.tzinfo is not None
