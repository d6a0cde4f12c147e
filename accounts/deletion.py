"""Deleting a player's account, at the player's own request, and what it leaves behind.

``delete_account`` (the caller has confirmed with the password) erases the person:
the user (username, password, email, last login), the profile (display name, language,
career points), the points ledger, the player's bot accounts with their users and
tickets, the login attempts django-axes counted under the username, and every session
the player is signed in with; the player's sockets close (``account_deleted``, the
tables' and lobby's consumers listen). What the others played with the player stays:
matches, deals, action logs and replays are kept, and the player's seat in them is
shown as "Deleted player" (``Participant.user``, ``Action.user`` and the like are set to
none; ``tests/site/test_account_deletion.py`` checks every foreign key to the user).

Seats first: the player (and each of the player's bots) leaves every open table as a
player would (``games.tables.services.leave_seat``): a practice table closes, a waiting
seat is freed, and in a match in progress a bot takes the seat for the rest of the match.

The username is not taken by anyone else for ``RETIRE_FOR`` (30 days), so nobody can pass
for the player at once: a ``RetiredName`` keeps only its hash, sign-up and registration
refuse it until then, and the daily housekeeping job (``accounts.tasks.housekeeping``,
Celery beat; ``manage.py housekeeping`` where beat does not run) deletes expired rows.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from accounts import bots as account_bots
from accounts.models import BotAccount, RetiredName
from accounts.services import retired_name_hash
from games.models import Seat, Table
from games.tables import services as table_services
from games.tables.policies import TableError

log = logging.getLogger(__name__)

RETIRE_FOR = timedelta(days=30)

# Sent with ``user_id`` once an account's deletion is committed: its sockets close.
account_deleted = Signal()


def delete_account(*, user) -> None:
    """Delete ``user``'s account as described above. Its open seats are left first, each
    in its own transaction (as the player would leave them); then everything else goes in
    one."""
    bot_users = list(get_user_model().objects.filter(bot_account__owner=user))
    for bot in BotAccount.objects.filter(owner=user, revoked_at__isnull=True):
        account_bots.revoke_bot(owner=user, bot_id=bot.pk)  # closes its connections
    for person in [user, *bot_users]:
        _leave_every_table(person)
    user_id, username = user.pk, user.get_username()
    with transaction.atomic():
        RetiredName.objects.update_or_create(
            name_hash=retired_name_hash(username), defaults={"free_at": timezone.now() + RETIRE_FOR},
        )
        _forget_login_attempts(username)
        _end_sessions({user_id})
        for bot_user in bot_users:
            bot_user.delete()
        user.delete()
        transaction.on_commit(lambda: account_deleted.send(sender=get_user_model(), user_id=user_id))


def _leave_every_table(user) -> None:
    open_seats = Seat.objects.filter(user=user, table__status__in=[Table.Status.WAITING, Table.Status.PLAYING])
    for seat in open_seats.select_related("table"):
        try:
            table_services.leave_seat(table=seat.table, user=user)
        except TableError:  # it closed meanwhile
            log.info("user %s: seat at table %s left already", user.pk, seat.table_id)


def _forget_login_attempts(username: str) -> None:
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog

    for model in (AccessAttempt, AccessFailureLog, AccessLog):
        model.objects.filter(username=username).delete()


def _end_sessions(user_ids: set[int]) -> int:
    """Delete the sessions signed in as these users. Sessions are not indexed by user, so
    every live one is read: deleting an account is rare, and a session left behind would
    be signed in as nobody anyway."""
    wanted = {str(user_id) for user_id in user_ids}
    doomed = []
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator(chunk_size=500):
        if session.get_decoded().get("_auth_user_id") in wanted:
            doomed.append(session.pk)
    return Session.objects.filter(pk__in=doomed).delete()[0]


def free_retired_names(*, now=None) -> int:
    """Delete the retired usernames whose time is up (the daily housekeeping job)."""
    return RetiredName.objects.filter(free_at__lte=now or timezone.now()).delete()[0]
