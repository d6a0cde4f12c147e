"""``manage.py replay_check``: re-folds every stored deal and reports any whose snapshot
differs from its log (R11.1)."""

import copy
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.models import Deal

pytestmark = pytest.mark.django_db


def run(*args):
    out = StringIO()
    call_command("replay_check", *args, stdout=out)
    return out.getvalue()


def test_it_finds_nothing_on_good_data(played, open_deal):
    output = run()
    assert output.strip().splitlines() == [f"checked {Deal.objects.count()} deals, 0 differ"]


@pytest.mark.rigged_deal
def test_it_reports_a_tampered_snapshot_and_fails(played):
    tampered = Deal.objects.get(pk=played[1].deal.pk)
    state = copy.deepcopy(tampered.state)
    state["trick_no"] += 1
    tampered.state = state
    tampered.save(update_fields=["state"])
    out = StringIO()
    with pytest.raises(CommandError, match=f"1 of {Deal.objects.count()} deals differ"):
        call_command("replay_check", stdout=out)
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"deal {tampered.pk} ") and "trick_no" in lines[0]
    assert lines[1] == f"checked {Deal.objects.count()} deals, 1 differ"


@pytest.mark.rigged_deal
def test_it_reports_a_log_that_lost_an_action(played):
    deal = played[0].deal
    deal.actions.order_by("-seq").first().delete()
    with pytest.raises(CommandError):
        run()


@pytest.mark.rigged_deal
def test_it_checks_only_the_deals_named(played):
    tampered = Deal.objects.get(pk=played[1].deal.pk)
    tampered.seq += 1
    tampered.save(update_fields=["seq"])
    assert "checked 1 deal, 0 differ" in run(str(played[0].deal.pk))
    assert "checked 1 deal, 0 differ" in run("--match", str(tampered.match_id), str(played[0].deal.pk))
    with pytest.raises(CommandError):
        run(str(tampered.pk))
    with pytest.raises(CommandError, match="no deal with id 999999"):
        run("999999")
