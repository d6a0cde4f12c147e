"""Single-use connection tickets for bot accounts (``games.models.BotTicket``).

A bot program that can be given only a URL (the competition's own client programs take
a URL and nothing else) cannot send its token in the ``Authorization`` header, and a
token in a URL ends up in the logs of every proxy and server on the way. Instead its
owner chooses, on the bots page, a table and a seat where the bot may sit (``tables_for``)
and gets a URL holding a ticket: good for one connection, within ``TICKET_LIFETIME``,
for that bot at that seat. The ticket is shown once and stored as its SHA-256.

Every function takes keyword arguments and runs in one transaction.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.bots import hash_token
from accounts.models import BotAccount
from games.models import SEAT_COUNT, BotTicket, Table
from games.tables.policies import TableError

TICKET_LIFETIME = timedelta(minutes=10)
TICKET_BYTES = 24


@dataclass(frozen=True)
class IssuedTicket:
    """A new ticket and the only copy of its secret."""

    ticket: BotTicket
    secret: str


def tables_for(owner) -> list[Table]:
    """The open tables where ``owner``'s bots may be seated: the owner's practice tables
    (in place of a built-in bot, R10.4) and the friend tables the owner hosts or sits at
    (the owner holds their invitation code, R10.3). Never a match table (R10.1)."""
    return list(
        Table.objects.filter(status__in=[Table.Status.WAITING, Table.Status.PLAYING])
        .filter(
            Q(kind=Table.Kind.PRACTICE, host=owner)
            | Q(kind=Table.Kind.FRIEND, host=owner)
            | Q(kind=Table.Kind.FRIEND, seats__user=owner)
        )
        .distinct()
        .order_by("-created_at", "-id")
    )


def issue_ticket(*, owner, bot_id: int, table_id: int, position: int) -> IssuedTicket:
    """A ticket for one of ``owner``'s active bots to take seat ``position`` (0-3) at one
    of ``tables_for(owner)``; the seat itself is checked when the bot connects, as for a
    token. Raises ``TableError`` naming the rule."""
    if not isinstance(position, int) or not 0 <= position < SEAT_COUNT:
        raise TableError(_("R1.1: a seat is 1, 2, 3 or 4."))
    with transaction.atomic():
        bot = BotAccount.objects.filter(pk=bot_id, owner=owner).first()
        if bot is None:
            raise TableError(_("You have no such bot."))
        if not bot.is_active:
            raise TableError(_("%(name)s cannot connect: it is revoked or waits for approval.") % {"name": bot.name})
        table = next((t for t in tables_for(owner) if t.pk == table_id), None)
        if table is None:
            raise TableError(_(
                "R10.1: a bot sits only at your own practice table or a friend table you host or play at."
            ))
        secret = secrets.token_urlsafe(TICKET_BYTES)
        ticket = BotTicket.objects.create(
            bot=bot, table=table, position=position, ticket_hash=hash_token(secret),
            expires_at=timezone.now() + TICKET_LIFETIME,
        )
    return IssuedTicket(ticket=ticket, secret=secret)


def redeem_ticket(*, secret: str | None) -> BotTicket | None:
    """The ticket ``secret`` names, marked used, if it is unused, unexpired and its bot
    may connect; None otherwise. A ticket opens one connection only."""
    if not secret or not isinstance(secret, str) or len(secret) > 200:
        return None
    now = timezone.now()
    with transaction.atomic():
        ticket = (
            BotTicket.objects.select_for_update()
            .select_related("bot__user", "bot__owner", "table")
            .filter(ticket_hash=hash_token(secret), used_at__isnull=True, expires_at__gt=now)
            .first()
        )
        if ticket is None or not ticket.bot.is_active:
            return None
        ticket.used_at = now
        ticket.save(update_fields=["used_at"])
    return ticket


def forget_tickets(*, bot_id: int) -> int:
    """Drop a bot's unused tickets (its token was rotated or the bot revoked)."""
    return BotTicket.objects.filter(bot_id=bot_id, used_at__isnull=True).delete()[0]


def delete_stale_tickets(*, now=None) -> int:
    """Delete tickets used or expired more than a day ago (the periodic cleanup)."""
    cutoff = (now or timezone.now()) - timedelta(days=1)
    return BotTicket.objects.filter(expires_at__lt=cutoff).delete()[0]
