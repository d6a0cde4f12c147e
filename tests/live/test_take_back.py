"""R9.2: taking back control is for a seat on autopilot, and the think-time deadline
belongs to the seat to act: no other seat's player can move it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.live import door
from games.models import Deal, Seat

from .helpers import current

pytestmark = pytest.mark.django_db


def _deadline(deal):
    return Deal.objects.values_list("deadline", flat=True).get(pk=deal.pk)


def test_take_back_without_autopilot_is_refused_and_keeps_the_deadline(playing_table):
    table, users = playing_table
    deal, state = current(table)
    waiting = next(p for p in range(4) if p not in state.to_act)
    before = _deadline(deal)
    for position in (waiting, state.to_act[0]):
        with pytest.raises(door.PlayError, match="R9.2"):
            door.take_back_control(table=table, user=users[position])
    assert _deadline(deal) == before


def test_take_back_by_a_seat_not_to_act_leaves_the_deadline_alone(playing_table):
    table, users = playing_table
    deal, state = current(table)
    waiting = next(p for p in range(4) if p not in state.to_act)
    Seat.objects.filter(table=table, position=waiting).update(autopilot=True)
    soon = timezone.now() + timedelta(seconds=3)
    Deal.objects.filter(pk=deal.pk).update(deadline=soon)
    door.take_back_control(table=table, user=users[waiting])
    assert not Seat.objects.get(table=table, position=waiting).autopilot
    assert _deadline(deal) == soon


def test_take_back_by_the_seat_to_act_restarts_its_think_time(playing_table):
    table, users = playing_table
    deal, state = current(table)
    turn = state.to_act[0]
    Seat.objects.filter(table=table, position=turn).update(autopilot=True)
    soon = timezone.now() + timedelta(seconds=3)
    Deal.objects.filter(pk=deal.pk).update(deadline=soon)
    door.take_back_control(table=table, user=users[turn])
    assert _deadline(deal) > soon + timedelta(seconds=table.think_time - 10)
