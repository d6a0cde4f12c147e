"""Staff create a tournament in the admin (through the service), follow it, advance it
and cancel it; bad settings are refused with the rule."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games.tournaments.models import Entrant, Round, Tournament

from .conftest import absent, close_registration

pytestmark = pytest.mark.django_db(transaction=True)


def form(**overrides):
    now = timezone.now()
    data = {"name": "Spring open", "format": "duplicate", "rounds": 2, "boards_per_round": 2, "think_time": 30,
            "bot_speed": "1.0", "bot_level": "normal",
            "registration_opens_at_0": now.strftime("%Y-%m-%d"), "registration_opens_at_1": now.strftime("%H:%M:%S"),
            "registration_closes_at_0": (now + timedelta(hours=1)).strftime("%Y-%m-%d"),
            "registration_closes_at_1": (now + timedelta(hours=1)).strftime("%H:%M:%S"),
            "starts_at_0": (now + timedelta(hours=2)).strftime("%Y-%m-%d"),
            "starts_at_1": (now + timedelta(hours=2)).strftime("%H:%M:%S"),
            "round_break": 120,
            "registrations-TOTAL_FORMS": 0, "registrations-INITIAL_FORMS": 0,
            "round_set-TOTAL_FORMS": 0, "round_set-INITIAL_FORMS": 0}
    data.update(overrides)
    return data


def test_staff_create_advance_and_cancel_in_the_admin(client, make_user, make_tournament):
    staff = make_user(is_staff=True)
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    response = client.post(reverse("admin:tournaments_tournament_add"), form())
    assert response.status_code == 302, response.content.decode()[:3000]
    tournament = Tournament.objects.get(name="Spring open")
    assert tournament.organiser == staff and tournament.seed and not tournament.is_private
    for url in (reverse("admin:tournaments_tournament_changelist"),
                reverse("admin:tournaments_tournament_change", args=[tournament.pk]),
                reverse("admin:tournaments_entrant_changelist"), reverse("admin:tournaments_round_changelist")):
        assert client.get(url).status_code == 200, url
    # A tournament whose registration time has come, advanced from the admin.
    played, _players = make_tournament(pairs=3)
    close_registration(played)
    absent(played)
    client.post(reverse("admin:tournaments_tournament_changelist"),
                {"action": "advance_now", "_selected_action": [played.pk]})
    assert Round.objects.filter(tournament=played, status="playing").exists()
    assert Entrant.objects.filter(tournament=played, is_bot_pair=True).count() == 1
    for url in (reverse("admin:tournaments_round_change", args=[Round.objects.get(tournament=played).pk]),
                reverse("admin:tournaments_entrant_change", args=[Entrant.objects.filter(tournament=played).first().pk])):
        assert client.get(url).status_code == 200, url
    client.post(reverse("admin:tournaments_tournament_changelist"),
                {"action": "cancel_tournaments", "_selected_action": [tournament.pk]})
    tournament.refresh_from_db()
    assert tournament.status == "cancelled"


def test_bad_settings_are_refused_in_the_admin(client, make_user):
    staff = make_user(is_staff=True)
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    now = timezone.now()
    response = client.post(reverse("admin:tournaments_tournament_add"), form(
        starts_at_0=now.strftime("%Y-%m-%d"), starts_at_1=(now + timedelta(minutes=30)).strftime("%H:%M:%S")))
    assert "R13.1: registration closes no later than the start." in response.content.decode()
    assert not Tournament.objects.exists()
