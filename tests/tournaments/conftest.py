"""Fixtures for tournaments: registered pairs, a tournament whose registration has
closed, and running it to its end through the real services and task functions."""

from datetime import timedelta

import pytest
from django.utils import timezone


@pytest.fixture
def make_tournament(make_user):
    """``make_tournament(pairs=4, lone=0, organiser=None, **settings)``: a tournament open
    for registration with ``pairs`` registered pairs (each a player who registered and a
    partner who joined by the partner link) and ``lone`` players registered alone;
    returns ``(tournament, [[user, user], ...] + [[user], ...])``."""
    from games.tournaments import services

    def make(*, pairs=4, lone=0, organiser=None, **options):
        organiser = organiser or make_user(is_staff=True)
        now = timezone.now()
        settings = {"name": "Club night", "format": "duplicate", "rounds": 2, "boards_per_round": 2,
                    "think_time": 30, "registration_closes_at": now + timedelta(hours=1),
                    "starts_at": now + timedelta(hours=1), "round_break": 0, "bot_speed": "0.3"}
        settings.update(options)
        tournament = services.create_tournament(organiser=organiser, **settings)
        players = []
        for _ in range(pairs):
            first, second = make_user(), make_user()
            entrant = services.register(tournament=tournament, user=first)
            services.join_partner(tournament=tournament, user=second, code=entrant.partner_code)
            players.append([first, second])
        for _ in range(lone):
            user = make_user()
            services.register(tournament=tournament, user=user)
            players.append([user])
        tournament.refresh_from_db()
        return tournament, players

    return make


def close_registration(tournament, *, start_in=0.0):
    """Move the registration window into the past (as if its time had come), the start
    ``start_in`` seconds from now."""
    from games.tournaments.models import Tournament

    now = timezone.now()
    Tournament.objects.filter(pk=tournament.pk).update(
        registration_opens_at=now - timedelta(hours=2), registration_closes_at=now - timedelta(seconds=1),
        starts_at=now + timedelta(seconds=start_in))
    tournament.refresh_from_db()


def absent(tournament):
    """Every entrant has been away from the tournament's page: the autopilot plays them
    all (R13.5)."""
    from games.tournaments.models import Registration

    Registration.objects.filter(tournament=tournament).update(seen_at=timezone.now() - timedelta(hours=1))


def run_to_the_end(tournament, timers, *, limit=200_000):
    """Run the timers (bots, the autopilot, next boards, the tournament's own steps)
    until none is left; returns how many ran."""
    from games.tournaments import services

    services.advance(tournament_id=tournament.pk)
    ran = timers.run(rounds=limit)
    tournament.refresh_from_db()
    return ran
