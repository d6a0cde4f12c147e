"""Practice tables (R10.4): the practice page starts one (one human, three bots of the
chosen level at the chosen speed, dealt at once), and the seated human alone changes the
bots' speed and level; every refusal cites R10.4 and changes nothing."""

from decimal import Decimal

import pytest
from django.urls import reverse

from games.models import Deal, Match, Seat, Table
from games.practice import services as practice
from games.tables import services
from games.tables.policies import TableError


def snapshot(table):
    """Everything a bot change may touch, to prove a refusal changed nothing."""
    table = Table.objects.get(pk=table.pk)
    seats = list(Seat.objects.filter(table=table).order_by("position").values_list("position", "user_id", "is_bot", "bot_level"))
    return (table.kind, table.status, table.bot_speed, table.bot_level, table.updated_at, seats)


def refused(step, table, **kwargs):
    """Run ``step`` and check it raises TableError citing R10.4 and changes nothing."""
    before = snapshot(table)
    with pytest.raises(TableError) as caught:
        step(table=table, **kwargs)
    assert caught.value.message.startswith("R10.4:"), caught.value.message
    assert snapshot(table) == before
    return caught.value.message


@pytest.fixture
def practice_table(make_user, no_timers):
    """A practice table in play: its human, and the table."""
    user = make_user()
    return user, practice.start_practice(user=user, bot_level="easy", bot_speed=Decimal("2.0"))


# --- Starting ---------------------------------------------------------------------------


def test_start_practice_creates_and_starts_a_practice_table(make_user, no_timers):
    """R10.4: one human and three bots, no tier, dealt at once (R10.5: the host starts)."""
    user = make_user()
    table = practice.start_practice(user=user, bot_level="hard", bot_speed=Decimal("0.3"))
    assert table.kind == Table.Kind.PRACTICE and table.tier == "" and not table.awards_points
    assert table.status == Table.Status.PLAYING
    assert table.bot_level == "hard" and table.bot_speed == Decimal("0.3")
    seats = {seat.position: seat for seat in table.seats.all()}
    assert seats[0].user_id == user.pk and not seats[0].is_bot
    assert [(seats[p].is_bot, seats[p].bot_level) for p in (1, 2, 3)] == [(True, "hard")] * 3
    match = Match.objects.get(table=table)
    assert match.status == Match.Status.PLAYING
    assert Deal.objects.filter(match=match, number=1).exists()


def test_start_practice_refused_leaves_no_table(make_user, make_table, no_timers):
    """R10.5: a player sits at one open table at a time; nothing is created."""
    user = make_user()
    make_table(user, kind="friend")
    count = Table.objects.count()
    with pytest.raises(TableError) as caught:
        practice.start_practice(user=user)
    assert caught.value.message.startswith("R10.5:")
    assert Table.objects.count() == count


def test_practice_page_starts_a_table_and_goes_to_it(client, make_user, no_timers):
    user = make_user()
    client.force_login(user)
    response = client.post(reverse("practice:start"), {"bot_level": "easy", "bot_speed": "0.3"})
    table = Table.objects.get(kind=Table.Kind.PRACTICE, host=user)
    assert response.status_code == 302 and response["Location"] == reverse("games:table", args=[table.pk])
    assert table.status == Table.Status.PLAYING
    assert (table.bot_level, table.bot_speed) == ("easy", Decimal("0.3"))
    assert Deal.objects.filter(match__table=table).count() == 1
    page = client.get(response["Location"])
    assert page.status_code == 200 and 'id="play"' in page.content.decode()


def test_practice_page_starts_a_guest_when_nobody_is_signed_in(client, db, no_timers):
    """R10.1: guests play practice tables; a visitor becomes one on starting."""
    response = client.post(reverse("practice:start"), {"bot_level": "normal", "bot_speed": "1.0"})
    table = Table.objects.get(kind=Table.Kind.PRACTICE)
    assert response["Location"] == reverse("games:table", args=[table.pk])
    assert table.host.profile.is_guest
    assert client.get(reverse("practice:home")).context["user"] == table.host


def test_practice_page_shows_the_form_and_refusals(client, make_user, make_table, no_timers):
    user = make_user()
    client.force_login(user)
    html = client.get(reverse("practice:home")).content.decode()
    assert 'name="bot_level"' in html and 'name="bot_speed"' in html and "Start a practice game" in html
    response = client.post(reverse("practice:start"), {"bot_level": "expert", "bot_speed": "0.3"})
    assert response.status_code == 400 and not Table.objects.exists()
    response = client.post(reverse("practice:start"), {"bot_level": "easy", "bot_speed": "9"})
    assert response.status_code == 400 and not Table.objects.exists()
    table = make_table(user, kind="friend")
    response = client.post(reverse("practice:start"), {"bot_level": "easy", "bot_speed": "0.3"})
    assert response.status_code == 400 and "R10.5:" in response.content.decode()
    assert list(Table.objects.all()) == [table]
    # The table the player sits at is offered instead.
    assert reverse("games:table", args=[table.pk]) in client.get(reverse("practice:home")).content.decode()


# --- Bot speed and level: the services ----------------------------------------------------


def test_seated_human_sets_the_bot_speed(practice_table):
    user, table = practice_table
    changed = practice.set_bot_speed(table=table, user=user, speed="0.5")
    assert changed.bot_speed == Decimal("0.5")
    assert Table.objects.get(pk=table.pk).bot_speed == Decimal("0.5")


def test_new_speed_reschedules_a_bot_that_is_due(make_user, no_timers, django_capture_on_commit_callbacks):
    """The new speed applies at once when a bot is to act: its turn is scheduled again."""
    user = make_user()
    for attempt in range(20):
        table = practice.start_practice(user=user, bot_speed=Decimal("3.0"))
        deal = Deal.objects.get(match__table=table)
        if deal.state["turn"] != 0:
            break
        services.leave_seat(table=table, user=user)  # the human leads: try another deal
    else:
        pytest.fail("the human led twenty deals in a row")
    no_timers.clear()
    with django_capture_on_commit_callbacks(execute=True):
        practice.set_bot_speed(table=table, user=user, speed=Decimal("0.3"))
    assert no_timers == [("table_turn", (table.pk, deal.pk, deal.seq), 0.3)]


def test_seated_human_sets_the_bot_level_of_every_bot(practice_table):
    user, table = practice_table
    practice.set_bot_level(table=table, user=user, level="hard")
    table.refresh_from_db()
    assert table.bot_level == "hard"
    assert list(table.seats.filter(is_bot=True).values_list("bot_level", flat=True)) == ["hard"] * 3
    assert table.seats.get(position=0).bot_level == ""


def test_changes_are_announced_on_commit(practice_table, monkeypatch, django_capture_on_commit_callbacks):
    user, table = practice_table
    sent = []
    monkeypatch.setattr("games.live.broadcast.send_table_changed", sent.append)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        practice.set_bot_level(table=table, user=user, level="normal")
    assert sent == []  # nothing before the commit
    for callback in callbacks:
        callback()
    assert sent == [table.pk]


@pytest.mark.parametrize("step, value", [(practice.set_bot_speed, {"speed": "0.5"}), (practice.set_bot_level, {"level": "hard"})])
def test_only_practice_tables_have_the_control(make_user, make_table, step, value):
    user = make_user()
    for kind in ("match", "friend"):
        table = make_table(user, kind=kind)
        message = refused(step, table, user=user, **value)
        assert "only practice tables" in message
        services.leave_seat(table=table, user=user)


@pytest.mark.parametrize("step, value", [(practice.set_bot_speed, {"speed": "0.5"}), (practice.set_bot_level, {"level": "hard"})])
def test_only_the_seated_human_sets_the_bots(practice_table, make_user, step, value):
    _user, table = practice_table
    message = refused(step, table, user=make_user(), **value)
    assert "only the player seated" in message
    from django.contrib.auth.models import AnonymousUser

    refused(step, table, user=AnonymousUser(), **value)
    refused(step, table, user=None, **value)


@pytest.mark.parametrize("step, value", [(practice.set_bot_speed, {"speed": "0.5"}), (practice.set_bot_level, {"level": "hard"})])
def test_a_closed_practice_table_keeps_its_bots(practice_table, step, value):
    user, table = practice_table
    services.leave_seat(table=table, user=user)  # the practice table closes with its human
    assert "no longer open" in refused(step, table, user=user, **value)


@pytest.mark.parametrize("speed", ["0.4", "0", "-1", "fast", "", "NaN", "Infinity", None])
def test_speeds_come_from_the_list(practice_table, speed):
    user, table = practice_table
    assert "bot speed from the list" in refused(practice.set_bot_speed, table, user=user, speed=speed)


@pytest.mark.parametrize("level", ["expert", "", "EASY", None])
def test_levels_are_easy_normal_or_hard(practice_table, level):
    user, table = practice_table
    assert "easy, normal or hard" in refused(practice.set_bot_level, table, user=user, level=level)


# --- Bot speed and level: the views and the table-page controls ---------------------------


HTMX = {"HTTP_HX_REQUEST": "true"}


def test_controls_post_through_htmx_and_answer_with_the_controls(client, practice_table):
    user, table = practice_table
    client.force_login(user)
    response = client.post(reverse("practice:table_speed", args=[table.pk]), {"speed": "0.3"}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and 'id="practice-controls"' in html
    assert '<option value="0.3" selected>' in html
    assert Table.objects.get(pk=table.pk).bot_speed == Decimal("0.3")
    response = client.post(reverse("practice:table_level", args=[table.pk]), {"level": "hard"}, **HTMX)
    assert '<option value="hard" selected>' in response.content.decode()
    assert Table.objects.get(pk=table.pk).bot_level == "hard"


def test_the_table_header_follows_the_bot_controls(client, practice_table):
    """The header's facts are swapped out of band with the controls' answer, so they say
    the new speed and level without a reload."""
    user, table = practice_table
    client.force_login(user)
    page = client.get(reverse("games:table", args=[table.pk])).content.decode()
    assert '<li id="table-fact-speed">' in page and '<li id="table-fact-level">' in page
    html = client.post(reverse("practice:table_speed", args=[table.pk]), {"speed": "0.3"}, **HTMX).content.decode()
    table.refresh_from_db()
    assert f'<li id="table-fact-speed" hx-swap-oob="true">Bot speed: {table.get_bot_speed_display()}</li>' in html
    html = client.post(reverse("practice:table_level", args=[table.pk]), {"level": "hard"}, **HTMX).content.decode()
    table.refresh_from_db()
    assert f'<li id="table-fact-level" hx-swap-oob="true">Bot level: {table.get_bot_level_display()}</li>' in html


def test_controls_without_htmx_go_back_to_the_table(client, practice_table):
    user, table = practice_table
    client.force_login(user)
    response = client.post(reverse("practice:table_level", args=[table.pk]), {"level": "normal"})
    assert response.status_code == 302 and response["Location"] == reverse("games:table", args=[table.pk])
    assert Table.objects.get(pk=table.pk).bot_level == "normal"


def test_controls_refuse_another_player_with_the_rule(client, practice_table, make_user):
    _user, table = practice_table
    client.force_login(make_user())
    before = snapshot(table)
    response = client.post(reverse("practice:table_speed", args=[table.pk]), {"speed": "0.3"}, **HTMX)
    html = response.content.decode()
    assert "R10.4: only the player seated at this practice table sets its bots." in html
    assert "<select" not in html  # a watcher sees the settings, not the controls
    assert snapshot(table) == before
    response = client.post(reverse("practice:table_speed", args=[table.pk]), {"speed": "0.3"})
    assert response.status_code == 302
    assert snapshot(table) == before


def test_controls_need_a_signed_in_player(client, practice_table):
    _user, table = practice_table
    response = client.post(reverse("practice:table_speed", args=[table.pk]), {"speed": "0.3"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_controls_template_renders_for_practice_tables_only(rf, practice_table, make_user, make_table):
    from django.template.loader import render_to_string

    user, table = practice_table
    request = rf.get("/")
    request.user = user
    html = render_to_string("practice/_bot_controls.html", {"table": table, "can_set_bots": True}, request=request)
    assert 'id="practice-controls"' in html and 'name="speed"' in html and 'name="level"' in html
    assert '<option value="2.0" selected>' in html and '<option value="easy" selected>' in html
    watcher = render_to_string("practice/_bot_controls.html", {"table": table, "can_set_bots": False}, request=request)
    assert "<form" not in watcher and "Bot speed: Slow (2 s)" in watcher
    other = make_table(make_user(), kind="friend")
    assert render_to_string("practice/_bot_controls.html", {"table": other, "can_set_bots": True}).strip() == ""
