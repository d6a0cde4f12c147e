"""The admin: every page loads for a superuser, the close action, the read-only ordered
action log, and ledger adjustments that move the points with them."""

import re

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.urls import reverse

from accounts import services as account_services
from accounts.bots import create_bot
from accounts.models import PointsEntry, Profile
from games.bots.analysis import ANALYSIS_VERSION
from games.models import Action, Deal, DealAnalysis, Match, Participant, Seat, Table
from games.tables import services

# The admin's fixture writes a made-up action log to show it in order.
pytestmark = pytest.mark.rigged_deal


@pytest.fixture
def admin_client_with_data(client, make_user, make_table, full_table):
    """A superuser's client and one row of every model."""
    table, users = full_table
    match = services.start_match(table=table, user=users[0])
    deal = Deal.objects.get(match=match, number=1)  # dealt when the match started
    # Written out of order on purpose: the admin must still show the log by seq.
    for seq, seat in [(2, 1), (1, 0), (3, 2)]:
        Action.objects.create(deal=deal, seq=seq, seat=seat, kind="play", cards=[seq + 10], actor="human", user=users[seat])
    account_services.award_deal_points(deal=deal, winners=[users[0], users[2]], levels_advanced=2, match_won=False)
    make_table(make_user(), kind="friend")
    create_bot(owner=users[1], name="Probe")
    DealAnalysis.objects.create(deal=deal, version=ANALYSIS_VERSION, status="queued")
    from django.utils import timezone

    from games.players.models import PlayedDeal, Rating, RatingChange
    from games.quickplay import services as quickplay_services

    Rating.objects.create(user=users[0], mu=1520, sigma=400, rated_deals=1)
    RatingChange.objects.create(user=users[0], deal=deal, position=0, won=True, mu_before=1500, sigma_before=500,
                                mu_after=1520, sigma_after=400, rated_deals=1, created_at=timezone.now())
    PlayedDeal.objects.create(user=users[0], deal=deal, match=match, table_kind="match", position=0, place=1, won=True,
                              advance=2, finished_at=timezone.now())
    quickplay_services.join(user=make_user(), tier="junior")
    Group.objects.create(name="Moderators")
    superuser = get_user_model().objects.create_superuser("root", "root@example.com", "root-password-123")
    client.post(reverse("accounts:login"), {"username": "root", "password": "wrong"})  # a counted attempt
    client.force_login(superuser)
    return client


def _a_tournament_with_a_round(make_user):
    from datetime import timedelta

    from django.utils import timezone

    from games.tournaments import services as tournament_services
    from games.tournaments.models import Tournament

    now = timezone.now()
    tournament = tournament_services.create_tournament(
        organiser=make_user(is_staff=True), name="Open", format="duplicate", rounds=1, boards_per_round=1,
        think_time=30, registration_closes_at=now + timedelta(hours=1), starts_at=now + timedelta(hours=1))
    for _ in range(3):
        entrant = tournament_services.register(tournament=tournament, user=make_user())
        tournament_services.join_partner(tournament=tournament, user=make_user(), code=entrant.partner_code)
    Tournament.objects.filter(pk=tournament.pk).update(registration_opens_at=now - timedelta(hours=2),
                                                       registration_closes_at=now, starts_at=now)
    tournament_services.advance(tournament_id=tournament.pk)


def model_admins():
    return [(model, model_admin) for model, model_admin in admin.site._registry.items()]


@pytest.mark.django_db
def test_every_admin_page_loads(admin_client_with_data, rf, make_user):
    client = admin_client_with_data
    _a_tournament_with_a_round(make_user)
    assert client.get(reverse("admin:index")).status_code == 200
    superuser = get_user_model().objects.get(username="root")
    checked = 0
    for model, model_admin in model_admins():
        info = (model._meta.app_label, model._meta.model_name)
        changelist = client.get(reverse("admin:%s_%s_changelist" % info))
        assert changelist.status_code == 200, info
        obj = model._default_manager.first()
        assert obj is not None, f"no {info} row to open"
        change = client.get(reverse("admin:%s_%s_change" % info, args=[obj.pk]))
        assert change.status_code == 200, info
        request = rf.get("/")
        request.user = superuser
        add = client.get(reverse("admin:%s_%s_add" % info))
        assert add.status_code == (200 if model_admin.has_add_permission(request) else 403), info
        checked += 1
    assert checked >= 9


@pytest.mark.django_db
def test_admin_search_by_user_and_table(admin_client_with_data):
    client = admin_client_with_data
    table = Table.objects.filter(kind="match").get()
    username = Seat.objects.filter(table=table, position=1).get().user.username
    by_user = client.get(reverse("admin:games_table_changelist"), {"q": username})
    assert list(by_user.context["cl"].queryset) == [table]
    by_id = client.get(reverse("admin:games_table_changelist"), {"q": str(table.pk)})
    assert table in by_id.context["cl"].queryset
    matches = client.get(reverse("admin:games_match_changelist"), {"q": username})
    assert list(matches.context["cl"].queryset) == [Match.objects.get()]
    ledger = client.get(reverse("admin:accounts_pointsentry_changelist"), {"q": username})
    assert ledger.status_code == 200
    filtered = client.get(reverse("admin:games_table_changelist"), {"kind__exact": "friend"})
    assert {t.kind for t in filtered.context["cl"].queryset} == {"friend"}


@pytest.mark.django_db
def test_admin_action_closes_tables(admin_client_with_data):
    client = admin_client_with_data
    ids = list(Table.objects.values_list("pk", flat=True))
    response = client.post(
        reverse("admin:games_table_changelist"), {"action": "close_tables", "_selected_action": ids}, follow=True
    )
    assert response.status_code == 200
    assert set(Table.objects.values_list("status", flat=True)) == {"closed"}
    assert Match.objects.get().status == Match.Status.ABANDONED
    assert "Closed 2 tables." in response.content.decode()


@pytest.mark.django_db
def test_deal_page_shows_the_action_log_read_only_and_in_order(admin_client_with_data):
    client = admin_client_with_data
    deal = Deal.objects.get()
    html = client.get(reverse("admin:games_deal_change", args=[deal.pk])).content.decode()
    inline = html[html.index('id="actions-group"') :]
    seqs = re.findall(r'<td class="field-seq">\s*<p>(\d+)</p>', inline)
    assert seqs == ["1", "2", "3"]
    assert 'name="actions-0-seq"' not in inline  # shown, never editable
    assert "actions-__prefix__" not in inline  # no row to add
    assert 'name="actions-0-DELETE"' not in inline


@pytest.mark.django_db
def test_a_deals_record_is_shown_never_edited(admin_client_with_data):
    """The snapshot is the fold of the log (R11.1), written by the door alone."""
    client = admin_client_with_data
    deal = Deal.objects.get()
    before = (deal.state, deal.seq, deal.hands)
    html = client.get(reverse("admin:games_deal_change", args=[deal.pk])).content.decode()
    assert 'name="state"' not in html and 'name="seq"' not in html and 'name="hands"' not in html
    client.post(reverse("admin:games_deal_change", args=[deal.pk]), {"seq": 40, "state": "{}", "hands": "[]"})
    deal.refresh_from_db()
    assert (deal.state, deal.seq, deal.hands) == before
    assert client.get(reverse("admin:games_deal_add")).status_code == 403


@pytest.mark.django_db
def test_actions_cannot_be_added_changed_or_deleted(admin_client_with_data):
    client = admin_client_with_data
    action = Action.objects.get(seq=1)
    response = client.post(reverse("admin:games_action_change", args=[action.pk]), {"seq": 9})
    assert response.status_code == 403
    assert client.post(reverse("admin:games_action_delete", args=[action.pk]), {"post": "yes"}).status_code == 403
    assert Action.objects.filter(seq=1).exists()


@pytest.mark.django_db
def test_points_adjustment_through_the_admin_moves_the_balance(admin_client_with_data):
    client = admin_client_with_data
    player = Participant.objects.get(position=1).user
    response = client.post(reverse("admin:accounts_pointsentry_add"), {"user": player.pk, "delta": 40, "note": "event prize"})
    assert response.status_code == 302
    assert Profile.objects.get(user=player).career_points == 40
    entry = PointsEntry.objects.get(user=player)
    assert (entry.reason, entry.delta, entry.balance_after, entry.note) == ("adjustment", 40, 40, "event prize")
    # Taking more than the balance is refused at 0 points; zero changes are refused.
    other = Participant.objects.get(position=3).user
    response = client.post(reverse("admin:accounts_pointsentry_add"), {"user": other.pk, "delta": -5, "note": ""})
    assert response.status_code == 200 and response.context["adminform"].form.errors
    response = client.post(reverse("admin:accounts_pointsentry_add"), {"user": other.pk, "delta": 0, "note": ""})
    assert response.status_code == 200
    assert not PointsEntry.objects.filter(user=other).exists()


@pytest.mark.django_db
def test_the_admin_speaks_chinese(admin_client_with_data):
    """Issue 14: this project's models, their fields and the admin's own labels read in
    Chinese for a zh-Hans browser (Django's own words come from Django's catalogue)."""
    client = admin_client_with_data
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/admin/"})
    index = client.get(reverse("admin:index")).content.decode()
    assert '<html lang="zh-hans"' in index
    for word in ("掼蛋管理", "牌桌", "对局", "积分明细", "个人资料"):
        assert word in index, word
    english, seen = [], 0
    for model, _model_admin in model_admins():
        if model._meta.app_label not in ("games", "accounts"):
            continue
        info = (model._meta.app_label, model._meta.model_name)
        html = client.get(reverse("admin:%s_%s_changelist" % info)).content.decode()
        headers = re.findall(r'<th scope="col"[^>]*>.*?<(?:a|span)[^>]*>([^<]+)<', html, re.S)
        seen += len(headers)
        english += [(info, h.strip()) for h in headers if re.search(r"[A-Za-z]{3,}", h)]
    assert seen >= 20
    assert not english, english
