"""``manage.py demo``: a demo player and a practice table with its match started (a deal in
play, not a waiting room), however often it runs."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from games.models import Seat, Table


@pytest.mark.django_db
def test_demo_is_idempotent():
    out = StringIO()
    call_command("demo", stdout=out)
    call_command("demo", stdout=out)
    user = get_user_model().objects.get(username="demo")
    assert user.check_password("demo-password")
    tables = Table.objects.filter(kind="practice")
    assert tables.count() == 1
    table = tables.get()
    assert table.status == Table.Status.PLAYING
    assert table.matches.count() == 1 and table.matches.get().deals.count() == 1
    seats = Seat.objects.filter(table=table).order_by("position")
    assert [(s.user_id, s.is_bot) for s in seats] == [(user.pk, False), (None, True), (None, True), (None, True)]
    assert f"http://127.0.0.1:8000/tables/{table.pk}/" in out.getvalue()


@pytest.mark.django_db
def test_demo_makes_a_new_table_when_the_old_one_closed():
    call_command("demo", stdout=StringIO())
    first = Table.objects.get()
    first.status = Table.Status.CLOSED
    first.save()
    call_command("demo", stdout=StringIO())
    assert Table.objects.filter(status="playing", kind="practice").count() == 1
