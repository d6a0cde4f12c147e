"""Who may do what with a tournament (R13.1), as checks without side effects.

Each ``refuse_*`` looks at rows already loaded and returns the reason a person would be
refused, citing the rule, or ``None``. ``games.tournaments.services`` raises it as a
``TournamentError`` under the tournament's lock; the pages ask the same checks to decide
which buttons to show.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext as _

from .models import MAX_BOARDS_PER_ROUND, MAX_ROUNDS, Tournament

# Duplicate scoring compares tables (R13.4): at least two, so three pairs (the odd one
# with the bot pair, R13.1). Plain pairs need two.
MIN_PAIRS = {Tournament.Format.DUPLICATE: 3, Tournament.Format.PLAIN: 2}
# The longest a tournament may be announced ahead.
MAX_AHEAD = timedelta(days=366)


class TournamentError(Exception):
    """A refused tournament step. The message cites the rule and nothing was changed."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def refuse_create(*, user, profile, is_private: bool) -> str | None:
    """Staff create any tournament; a registered player a private one, for a club
    (entered by invitation link); guests none (R13.1: entrants are registered players)."""
    if user is None or not user.is_authenticated or profile is None or profile.is_guest:
        return _("R13.1: tournaments are for registered players; sign up or register your guest account first.")
    if not user.is_staff and not is_private:
        return _("R13.1: players create private tournaments, entered by invitation link; staff create public ones.")
    return None


def refuse_schedule(*, now, opens_at, closes_at, starts_at, rounds: int, boards_per_round: int,
                    fmt: str) -> str | None:
    """A tournament's settings must make sense (R13.1): registration opens, then closes,
    no later than the start, which lies ahead; rounds and boards within the limits."""
    if fmt not in Tournament.Format.values:
        return _("R13.1: the format is duplicate pairs or plain pairs.")
    if not 1 <= rounds <= MAX_ROUNDS:
        return _("R13.1: a tournament plays 1 to %(most)s rounds.") % {"most": MAX_ROUNDS}
    if not 1 <= boards_per_round <= MAX_BOARDS_PER_ROUND:
        return _("R13.2: a round plays 1 to %(most)s boards.") % {"most": MAX_BOARDS_PER_ROUND}
    if closes_at <= now:
        return _("R13.1: registration must close in the future.")
    if opens_at >= closes_at:
        return _("R13.1: registration must open before it closes.")
    if closes_at > starts_at:
        return _("R13.1: registration closes no later than the start.")
    if starts_at > now + MAX_AHEAD:
        return _("R13.1: a tournament starts within a year.")
    return None


def refuse_register(*, tournament: Tournament, profile, now, registered: bool, invited: bool,
                    bot_account: bool = False) -> str | None:
    """Why a player may not register (alone, or as the first of a pair), if so (R13.1).
    ``bot_account``: the player is a bot account's user (``accounts.bots``)."""
    if profile is None or profile.is_guest:
        return _("R13.1: tournaments are for registered players; sign up or register your guest account first.")
    if bot_account:
        return _("R13.1: entrants are registered players; a bot account does not enter a tournament.")
    if tournament.is_private and not invited:
        return _("R13.1: this private tournament is entered by its invitation link.")
    return _refuse_window(tournament, now) or (
        _("R13.1: you are registered already.") if registered else None)


def _refuse_window(tournament: Tournament, now) -> str | None:
    if tournament.status != Tournament.Status.REGISTERING or now >= tournament.registration_closes_at:
        return _("R13.1: registration is closed.")
    if now < tournament.registration_opens_at:
        return _("R13.1: registration opens at %(time)s.") % {
            "time": date_format(localtime(tournament.registration_opens_at), "DATETIME_FORMAT")}
    return None


def refuse_join(*, tournament: Tournament, profile, now, registered: bool, entrant, players: int,
                bot_account: bool = False) -> str | None:
    """Why a player may not join a lone entrant through its partner link, if so (R13.1)."""
    if entrant is None or entrant.tournament_id != tournament.pk or entrant.is_bot_pair:
        return _("R13.1: this partner link is not valid for this tournament.")
    if players >= 2:
        return _("R13.1: this pair is complete.")
    return refuse_register(tournament=tournament, profile=profile, now=now, registered=registered, invited=True,
                           bot_account=bot_account)


def refuse_withdraw(*, tournament: Tournament, now, registered: bool) -> str | None:
    """Why a player may not withdraw, if so: only while registration is open (R13.1)."""
    if not registered:
        return _("R13.1: you are not registered for this tournament.")
    return _refuse_window(tournament, now)


def refuse_cancel(*, tournament: Tournament, user) -> str | None:
    """Staff and the organiser cancel a tournament that has not started (R13.1)."""
    if not (user.is_staff or user.pk == tournament.organiser_id):
        return _("R13.1: only the organiser or staff cancel a tournament.")
    if tournament.status not in (Tournament.Status.REGISTERING, Tournament.Status.CLOSED):
        return _("R13.1: a tournament is cancelled before it starts.")
    return None
