"""The one door that changes a table: lifecycle and seating (R10.1-R10.7).

Every function takes keyword arguments only, runs in one transaction with the table row
locked (``select_for_update``; IMMEDIATE transactions on SQLite), asks ``games.tables.policies``
whether the step is allowed, and raises ``TableError`` (whose message cites the rule) before
changing anything when it is not. Lobby and table pages hear of each change only once it
is committed (``games.live.broadcast``).
"""

import secrets
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import bots as account_bots
from accounts import services as account_services
from accounts.models import Profile
from games.live import door
from games.live.broadcast import announce_table_changed
from games.models import SEAT_COUNT, BotLevel, Match, Participant, Seat, Table
from games.tables import policies
from games.tables.policies import TableError

__all__ = [
    "TableError",
    "close_table",
    "create_table",
    "fill_with_bots",
    "leave_seat",
    "return_to_seat",
    "seat_bot_account",
    "start_match",
    "switch_seat",
    "take_seat",
]

# Invitation codes avoid letters and digits that read alike (0/O, 1/I/L).
INVITE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
INVITE_LENGTH = 8


def _locked_table(table: Table) -> Table:
    return Table.objects.select_for_update().get(pk=table.pk)


def _locked_profile(user) -> Profile:
    # Locking the player's profile serialises one player's seat changes across tables, so
    # two tabs cannot seat the same player at two tables at once. Always lock the profile
    # before the table, so two steps never wait on each other in opposite order.
    return Profile.objects.select_for_update().get(user=user)


def _seats(table: Table) -> dict[int, Seat]:
    return {seat.position: seat for seat in table.seats.select_related("table", "user__bot_account")}


def _current_seat(user, *, exclude: Table | None = None) -> Seat | None:
    """The seat the player occupies at another open table, if any."""
    seats = Seat.objects.filter(user=user, table__status__in=[Table.Status.WAITING, Table.Status.PLAYING])
    if exclude is not None:
        seats = seats.exclude(table=exclude)
    return seats.select_related("table").first()


def _refuse(reason: str | None) -> None:
    if reason:
        raise TableError(reason)


def _touch(table: Table) -> None:
    """Bump ``updated_at`` (the table's version) and announce the change on commit."""
    table.save(update_fields=["updated_at"])
    announce_table_changed(table.pk)


def _new_invite_code() -> str:
    while True:
        code = "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))
        if not Table.objects.filter(invite_code=code).exists():
            return code


def _bot_seat(table: Table, position: int, **extra) -> Seat:
    return Seat(table=table, position=position, is_bot=True, bot_level=table.bot_level, **extra)


def create_table(
    *,
    host,
    kind: str,
    tier: str = "",
    think_time: int = 30,
    bot_speed: Decimal = Decimal("1.0"),
    bot_level: str = BotLevel.NORMAL,
) -> Table:
    """Create a table and seat its creator in seat 1.

    Practice tables are always one human and three bots (R10.4), so the bots sit down at
    once. Friend tables get an invitation code (R10.3). Guests create practice and friend
    tables only (R10.1); a match table's tier must be open to the creator's points (R10.7).
    """
    with transaction.atomic():
        profile = _locked_profile(host)
        _refuse(policies.refuse_create(kind=kind, tier=tier, profile=profile, current_seat=_current_seat(host)))
        table = Table.objects.create(
            kind=kind,
            tier=tier if kind == Table.Kind.MATCH else "",
            host=host,
            think_time=think_time,
            bot_speed=bot_speed,
            bot_level=bot_level,
            invite_code=_new_invite_code() if kind == Table.Kind.FRIEND else None,
        )
        Seat.objects.create(table=table, position=0, user=host)
        if kind == Table.Kind.PRACTICE:
            Seat.objects.bulk_create([_bot_seat(table, position) for position in range(1, SEAT_COUNT)])
        announce_table_changed(table.pk)
    return table


def take_seat(*, table: Table, user, position: int, invite_code: str | None = None) -> Seat:
    """Take the empty seat ``position`` (0-3) while the table waits (R10.5).

    A player already seated here moves instead (``switch_seat``). Refused at practice tables
    (R10.4), for guests and closed tiers at match tables (R10.1, R10.7), at friend tables
    without the invitation code (R10.3), and while seated at another open table.
    """
    with transaction.atomic():
        _locked_profile(user)
        table = _locked_table(table)
        seats = _seats(table)
        profile = Profile.objects.get(user=user)
        invited = invite_code is not None and invite_code.strip().upper() == (table.invite_code or "")
        _refuse(
            policies.refuse_sit(
                table=table,
                seats=seats,
                user=user,
                profile=profile,
                position=position,
                invited=invited,
                current_seat=_current_seat(user, exclude=table),
                bot_account=account_bots.is_bot_user(user),
            )
        )
        mine = next((seat for seat in seats.values() if seat.user_id == user.pk), None)
        try:
            with transaction.atomic():
                if mine is not None:
                    mine.position = position
                    mine.save(update_fields=["position"])
                    seat = mine
                else:
                    seat = Seat.objects.create(table=table, position=position, user=user)
        except IntegrityError:
            # Only reachable where the lock does not hold (SQLite under heavy contention);
            # the unique constraint keeps one player per seat all the same.
            raise TableError(_("R10.5: seat %(number)s is taken; choose an empty seat.") % {"number": position + 1}) from None
        _touch(table)
    return seat


def switch_seat(*, table: Table, user, position: int) -> Seat:
    """Move a seated player to another empty seat before the match starts (R10.5)."""
    with transaction.atomic():
        _locked_profile(user)
        table = _locked_table(table)
        if not any(seat.user_id == user.pk for seat in _seats(table).values()):
            raise TableError(_("R10.5: take a seat at this table before switching seats."))
        return take_seat(table=table, user=user, position=position)


def _close(table: Table, *, match_status: str = Match.Status.ABANDONED) -> None:
    """Close the table; a match still in progress ends without a winner."""
    Match.objects.filter(table=table, status=Match.Status.PLAYING).update(status=match_status, finished_at=timezone.now())
    table.status = Table.Status.CLOSED
    table.save(update_fields=["status", "updated_at"])
    announce_table_changed(table.pk)


def leave_seat(*, table: Table, user) -> None:
    """Leave the table.

    Waiting: the seat is simply freed. Practice: the table closes with its one human.
    A match in progress at a match or friend table: a bot takes the seat for the rest of the
    match and the player may come back (``return_to_seat``); at a match table the player
    loses 10 x the tier factor points, never below 0 (R10.7). A table left with no human
    closes.
    """
    with transaction.atomic():
        _locked_profile(user)
        table = _locked_table(table)
        seats = _seats(table)
        _refuse(policies.refuse_leave(table=table, seats=seats, user=user))
        seat = next(seat for seat in seats.values() if seat.user_id == user.pk)
        if table.kind == Table.Kind.PRACTICE:
            seat.delete()
            _close(table)
            return
        if table.status == Table.Status.WAITING:
            seat.delete()
            if not any(other.user_id is not None for other in seats.values() if other.pk != seat.pk):
                _close(table)
            else:
                _touch(table)
            return
        match = Match.objects.filter(table=table, status=Match.Status.PLAYING).first()
        seat.user = None
        seat.is_bot = True
        seat.bot_level = table.bot_level
        seat.away_user = user
        seat.autopilot = False
        seat.save(update_fields=["user", "is_bot", "bot_level", "away_user", "autopilot"])
        account_services.apply_leave_penalty(user=user, table=table, match=match)
        if not any(other.user_id is not None for other in seats.values() if other.pk != seat.pk):
            _close(table)
        else:
            _touch(table)


def return_to_seat(*, table: Table, user) -> Seat:
    """Come back to the seat a bot took over when the player left the match (R10.7)."""
    with transaction.atomic():
        _locked_profile(user)
        table = _locked_table(table)
        seats = _seats(table)
        _refuse(policies.refuse_return(table=table, seats=seats, user=user, current_seat=_current_seat(user, exclude=table)))
        seat = next(seat for seat in seats.values() if seat.away_user_id == user.pk)
        seat.user = user
        seat.is_bot = False
        seat.bot_level = ""
        seat.away_user = None
        seat.autopilot = False
        seat.save(update_fields=["user", "is_bot", "bot_level", "away_user", "autopilot"])
        _touch(table)
    return seat


def seat_bot_account(*, table: Table, bot, position: int, invite_code: str | None = None) -> Seat:
    """Seat a bot account (``accounts.models.BotAccount``) as its own user.

    Already seated here: its seat, unchanged (a reconnecting bot). A friend table: the
    ordinary ``take_seat`` with the table's invitation code, so the bot sits only where
    the host's invitation lets it (R10.3). Its owner's practice table: it takes the place
    of the built-in bot in seat ``position``, at once even mid-deal (R10.4). Never at a
    match table (R10.1).
    """
    user = bot.user
    if table.kind == Table.Kind.FRIEND:
        with transaction.atomic():
            table = _locked_table(table)
            mine = next((seat for seat in _seats(table).values() if seat.user_id == user.pk), None)
            if mine is not None:
                return mine
        return take_seat(table=table, user=user, position=position, invite_code=invite_code)
    with transaction.atomic():
        _locked_profile(user)
        table = _locked_table(table)
        seats = _seats(table)
        mine = next((seat for seat in seats.values() if seat.user_id == user.pk), None)
        if mine is not None:
            return mine
        _refuse(policies.refuse_bot_seat(table=table, seats=seats, owner_id=bot.owner_id, position=position,
                                         current_seat=_current_seat(user, exclude=table)))
        seat = seats[position]
        seat.user = user
        seat.is_bot = False
        seat.bot_level = ""
        seat.autopilot = False
        seat.save(update_fields=["user", "is_bot", "bot_level", "autopilot"])
        _touch(table)  # a new version of the seats: the door's next step reads them afresh
    return seat


def fill_with_bots(*, table: Table, user) -> list[Seat]:
    """Fill the empty seats with bots: only with at least two humans seated, so a lone
    human cannot (R10.2). Points still count at match tables."""
    with transaction.atomic():
        table = _locked_table(table)
        seats = _seats(table)
        _refuse(policies.refuse_fill(table=table, seats=seats, user=user))
        bots = Seat.objects.bulk_create(
            [_bot_seat(table, position) for position in range(SEAT_COUNT) if position not in seats]
        )
        _touch(table)
    return bots


def start_match(*, table: Table, user) -> Match:
    """Start a match when all four seats are taken; only the host may (R10.5).

    Records who sits where (``Participant``) and a fresh seed, sets the table playing and
    deals the first deal (``games.live.door``); both teams start at level 2 (R2.1).
    """
    with transaction.atomic():
        table = _locked_table(table)
        seats = _seats(table)
        _refuse(policies.refuse_start(table=table, seats=seats, user=user))
        match = Match.objects.create(
            table=table,
            number=table.matches.count() + 1,
            seed=secrets.randbits(63),
        )
        Participant.objects.bulk_create(
            [
                Participant(match=match, position=seat.position, user=seat.user, is_bot=seat.is_bot, bot_level=seat.bot_level)
                for seat in seats.values()
            ]
        )
        table.status = Table.Status.PLAYING
        table.human_seen_at = timezone.now()
        table.save(update_fields=["status", "human_seen_at", "updated_at"])
        door.deal_first(table=table, match=match)  # announces the change on commit
    return match


def close_table(*, table: Table, user) -> Table:
    """Close a table: staff close any open table, the host a table still waiting. A match in
    progress ends without a winner and awards nothing more."""
    with transaction.atomic():
        table = _locked_table(table)
        _refuse(policies.refuse_close(table=table, seats=_seats(table), user=user))
        _close(table)
    return table
