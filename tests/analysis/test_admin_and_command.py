"""Staff analyse deals from the admin; ``manage.py analyse_deals`` analyses a range."""

import random
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from games.models import DealAnalysis

from ..replays import factories

pytestmark = pytest.mark.django_db


def test_staff_queue_analyses_from_the_deal_admin(client, make_user, finished, match, timers,
                                                  django_capture_on_commit_callbacks):
    in_play = factories.play(factories.deal_next(match), rng=random.Random(1), max_actions=4).deal
    staff = make_user(is_staff=True)
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("admin:games_deal_changelist"), {
            "action": "analyse_deals", "_selected_action": [finished.pk, in_play.pk]}, follow=True)
    page = response.content.decode()
    assert "1 analysis queued." in page and "R9.3" in page
    assert list(DealAnalysis.objects.values_list("deal_id", flat=True)) == [finished.pk]
    assert [name for name, _a, _d in timers.background] == ["analyse_deal"]
    # The stored analyses are listed, read-only.
    listing = client.get(reverse("admin:games_dealanalysis_changelist")).content.decode()
    assert "Analysis of" in listing
    assert client.get(reverse("admin:games_dealanalysis_add")).status_code == 403


def test_the_command_analyses_a_range_here_and_skips_what_it_should(finished, match, quick_analysis, timers):
    in_play = factories.play(factories.deal_next(match), rng=random.Random(1), max_actions=4).deal
    out = StringIO()
    call_command("analyse_deals", "--from", str(finished.pk), "--to", str(in_play.pk), stdout=out)
    text = out.getvalue()
    assert f"deal {finished.pk}: {finished.seq} decisions in" in text
    assert f"deal {in_play.pk}: skipped" in text and "R9.3" in text
    assert DealAnalysis.objects.get(deal=finished).status == DealAnalysis.Status.DONE
    assert not timers.background  # run here, nothing sent
    out = StringIO()
    call_command("analyse_deals", str(finished.pk), stdout=out)
    assert "already done" in out.getvalue()
    call_command("analyse_deals", str(finished.pk), "--force", "--send", stdout=StringIO())
    assert DealAnalysis.objects.get(deal=finished).status == DealAnalysis.Status.QUEUED


def test_the_command_needs_deals_named():
    with pytest.raises(CommandError):
        call_command("analyse_deals")
