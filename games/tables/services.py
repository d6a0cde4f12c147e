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
    "create_tournament_table",
    "fill_with_bots",
    "leave_seat",
    "open_quick_table",
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
    card_counter: bool = False,
) -> Table:
    """Create a table and seat its creator in seat 1.

    Practice tables are always one human and three bots (R10.4), so the bots sit down at
    once. Friend tables get an invitation code (R10.3). Guests create practice and friend
    tables only (R10.1); a match table's tier must be open to the creator's points (R10.7).
    ``card_counter``: the host of a friend table lets its players open the card counter
    (practice tables always have it; match tables never, R10.8).
    """
    with transaction.atomic():
        profile = _locked_profile(host)
        _refuse(policies.refuse_create(kind=kind, tier=tier, profile=profile, current_seat=_current_seat(host),
                                       card_counter=card_counter))
        table = Table.objects.create(
            kind=kind,
            tier=tier if kind == Table.Kind.MATCH else "",
            host=host,
            think_time=think_time,
            bot_speed=bot_speed,
            bot_level=bot_level,
            invite_code=_new_invite_code() if kind == Table.Kind.FRIEND else None,
            card_counter=card_counter and kind == Table.Kind.FRIEND,
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
        if table.kind == Table.Kind.TOURNAMENT:
            # R13.5: the autopilot plays the seat for the rest of the round and its results
            # count; the table plays on whoever is left (no penalty, R10.7 is for match tables).
            _away(seat, table)
            _touch(table)
            return
        if table.status == Table.Status.WAITING:
            seat.delete()
            if not any(other.user_id is not None for other in seats.values() if other.pk != seat.pk):
                _close(table)
            else:
                _touch(table)
            return
        match = Match.objects.filter(table=table, status=Match.Status.PLAYING).first()
        _away(seat, table)
        account_services.apply_leave_penalty(user=user, table=table, match=match)
        if not any(other.user_id is not None for other in seats.values() if other.pk != seat.pk):
            _close(table)
        else:
            _touch(table)
            door.seats_changed(table=table)  # the bot plays the seat from its next turn


def _away(seat: Seat, table: Table) -> None:
    """A bot keeps the seat of the player who left a match in progress (R10.7, R13.5)."""
    seat.away_user = seat.user
    seat.user = None
    seat.is_bot = True
    seat.bot_level = table.bot_level
    seat.autopilot = False
    seat.save(update_fields=["user", "is_bot", "bot_level", "away_user", "autopilot"])


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
        door.seats_changed(table=table)  # the player's own think time, not the bot's pace
    return seat


def seat_bot_account(*, table: Table, bot, position: int, invite_code: str | None = None) -> Seat:
    """Seat a bot account (``accounts.models.BotAccount``) as its own user.

    Already seated here: its seat (a reconnecting bot) when it asks for that seat; when
    it asks for another, it moves there while the table is still waiting (``switch_seat``,
    R10.5), and is refused, naming the seat it holds, once the match is on. A friend
    table: the ordinary ``take_seat`` with the table's invitation code, so the bot sits
    only where the host's invitation lets it (R10.3). Its owner's practice table: it
    takes the place of the built-in bot in seat ``position``, at once even mid-deal
    (R10.4). Never at a match table (R10.1).
    """
    user = bot.user
    with transaction.atomic():
        _locked_profile(user)
        locked = _locked_table(table)
        mine = next((seat for seat in _seats(locked).values() if seat.user_id == user.pk), None)
        if mine is not None and mine.position == position:
            return mine
        if mine is not None:
            if locked.status == Table.Status.WAITING:
                return switch_seat(table=locked, user=user, position=position)
            raise TableError(
                _("R10.5: this bot sits in seat %(held)s here, and seats change only before the match starts; "
                  "connect to seat %(held)s.") % {"held": mine.number}
            )
    if table.kind == Table.Kind.FRIEND:
        return take_seat(table=table, user=user, position=position, invite_code=invite_code)
    with transaction.atomic():
        _locked_profile(user)
        table = _locked_table(table)
        seats = _seats(table)
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
        return _begin_match(table, seats)


def _begin_match(table: Table, seats: dict[int, Seat]) -> Match:
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


def open_quick_table(*, tier: str, players: dict, bot_level: str) -> Table:
    """A quick-play match table (R10.9): ``players`` by seat position, seated at once,
    bots in the other seats (R10.2), the match started, the first player its host.

    Called by the quick-play matcher inside its transaction, with the players' profiles
    locked and each checked (registered, the tier open, seated nowhere else)."""
    host = players[min(players)]
    table = Table.objects.create(kind=Table.Kind.MATCH, tier=tier, host=host, bot_level=bot_level)
    Seat.objects.bulk_create(
        [Seat(table=table, position=position, user=user) for position, user in sorted(players.items())]
        + [_bot_seat(table, position) for position in range(SEAT_COUNT) if position not in players]
    )
    announce_table_changed(table.pk)
    _begin_match(table, _seats(table))
    return table


def create_tournament_table(
    *,
    players: list,
    absent: set,
    boards: list[dict],
    think_time: int,
    bot_speed: Decimal,
    bot_level: str,
) -> Table:
    """A tournament's table (R13.2, R13.3), seated and playing at once: ``players`` are
    the four seats' users (``None`` for a bot pair's seat), ``absent`` the users the
    autopilot plays from the start (R13.5: they are kept as the seats' away players, so
    their results count), ``boards`` the boards it plays in order (dicts of number, seed,
    hands, level, leader). Nobody else takes a seat; no career points (R10.1).

    Call inside the transaction that starts the round: the first board is dealt, and the
    pages and timers hear of it on commit."""
    if len(players) != SEAT_COUNT or not boards:
        raise ValueError("R13.2: a tournament table seats four and plays at least one board")
    table = Table.objects.create(
        kind=Table.Kind.TOURNAMENT, status=Table.Status.PLAYING, think_time=think_time, bot_speed=bot_speed,
        bot_level=bot_level, human_seen_at=timezone.now(),
    )
    seats = []
    for position, user in enumerate(players):
        if user is None:
            seats.append(_bot_seat(table, position))
        elif user.pk in absent:
            seats.append(_bot_seat(table, position, away_user=user))
        else:
            seats.append(Seat(table=table, position=position, user=user))
    Seat.objects.bulk_create(seats)
    match = Match.objects.create(table=table, number=1, seed=secrets.randbits(63), boards=boards)
    Participant.objects.bulk_create([
        Participant(match=match, position=position, user=user, is_bot=user is None,
                    bot_level=table.bot_level if user is None else "")
        for position, user in enumerate(players)
    ])
    door.deal_first(table=table, match=match)  # announces the change on commit
    return table


def close_table(*, table: Table, user) -> Table:
    """Close a table: staff close any open table, the host a table still waiting. A match in
    progress ends without a winner and awards nothing more."""
    with transaction.atomic():
        table = _locked_table(table)
        _refuse(policies.refuse_close(table=table, seats=_seats(table), user=user))
        _close(table)
    return table
