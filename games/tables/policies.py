"""Who may do what at a table (R10.1-R10.7), as checks without side effects.

Each ``refuse_*`` function looks at rows already loaded and returns the reason a person
would be refused, citing the rule, or ``None`` when the step is allowed. ``games.tables.services``
raises that reason as a ``TableError`` (under the table lock, so the answer is current);
``games.tables.selectors`` asks the same functions to decide which buttons to show, so a button
is offered exactly when the step would succeed.
"""

from collections.abc import Mapping

from django.core.exceptions import ObjectDoesNotExist
from django.utils.translation import gettext as _

from accounts import career
from games.models import SEAT_COUNT, Seat, Table


class TableError(Exception):
    """A refused table step. The message cites the rule and nothing was changed."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def humans_seated(seats: Mapping[int, Seat]) -> list[Seat]:
    """The seats a human occupies right now (bots, bot accounts and away players
    excluded): a bot account plays a seat but is not a person, so it neither counts
    toward the two humans who may fill with bots (R10.2) nor hosts a table (R10.5)."""
    return [seat for seat in seats.values() if seat.user_id is not None and not is_bot_account(seat)]


def is_bot_account(seat: Seat) -> bool:
    """Whether a bot account's user sits in ``seat`` (no query when the seats were read
    with ``user__bot_account``)."""
    try:
        return seat.user.bot_account is not None
    except ObjectDoesNotExist:
        return False


def host_id(table: Table, seats: Mapping[int, Seat]) -> int | None:
    """The user id of the table's host (R10.5): its creator while seated at it, otherwise
    the human in the lowest-numbered seat; ``None`` when no human sits."""
    humans = sorted(humans_seated(seats), key=lambda seat: seat.position)
    if table.host_id is not None and any(seat.user_id == table.host_id for seat in humans):
        return table.host_id
    return humans[0].user_id if humans else None


def _seat_of(user, seats: Mapping[int, Seat]) -> Seat | None:
    return next((seat for seat in seats.values() if seat.user_id == user.pk), None)


def _refuse_elsewhere(current_seat: Seat | None, table: Table | None = None) -> str | None:
    """R10.5 (one seat at a time): a player sits at one open table at a time."""
    if current_seat is not None and (table is None or current_seat.table_id != table.pk):
        return _("R10.5: you already sit at %(table)s; leave it before taking another seat.") % {
            "table": current_seat.table
        }
    return None


def _refuse_match_access(kind: str, tier: str, profile) -> str | None:
    """R10.1 (registered players only) and R10.7 (tiers open by career points)."""
    if kind != Table.Kind.MATCH:
        return None
    if profile.is_guest:
        return _("R10.1: match tables are for registered players; sign up or register your guest account first.")
    if tier not in career.TIERS:
        return _("R10.1: a match table has a tier: Junior, Senior or Grandmaster.")
    if not career.tier_is_open(tier, profile.career_points):
        rule = career.TIERS[tier]
        return _("R10.7: the %(tier)s tier opens at %(needed)s career points; you have %(points)s.") % {
            "tier": rule.label,
            "needed": rule.opens_at,
            "points": profile.career_points,
        }
    return None


def refuse_create(*, kind: str, tier: str, profile, current_seat: Seat | None, card_counter: bool = False) -> str | None:
    """Why ``profile``'s player may not create a table of this kind and tier, if so.

    Guests create practice and friend tables only (R10.1); a match table's tier must be open
    to the player's points (R10.7); no card counter at a match table (R10.8); the creator
    takes seat 1, so must not sit elsewhere.
    """
    if kind not in Table.Kind.values or kind == Table.Kind.TOURNAMENT:
        return _("R10.1: a table is a match, friend or practice table.")
    if card_counter and kind == Table.Kind.MATCH:
        return refuse_card_counter_at_match()
    return _refuse_match_access(kind, tier, profile) or _refuse_elsewhere(current_seat)


def refuse_card_counter_at_match() -> str:
    return _("R10.8: no assistance at match tables, the card counter included.")


def refuse_sit(
    *,
    table: Table,
    seats: Mapping[int, Seat],
    user,
    profile,
    position: int,
    invited: bool,
    current_seat: Seat | None,
    bot_account: bool = False,
) -> str | None:
    """Why the player may not take (or switch to) seat ``position``, if so (R10.1-R10.5).
    ``bot_account``: the player is a bot account's user (``accounts.bots``)."""
    if not 0 <= position < SEAT_COUNT:
        return _("R1.1: seats are numbered 1 to 4.")
    if bot_account and table.kind == Table.Kind.MATCH:
        return refuse_bot_at_match_table()
    if table.kind == Table.Kind.PRACTICE:
        return _("R10.4: practice tables seat one human and three bots; others may watch but cannot sit.")
    if table.kind == Table.Kind.TOURNAMENT:
        return refuse_tournament_seat()
    if table.status != Table.Status.WAITING:
        if table.status == Table.Status.PLAYING:
            return _("R10.5: seats are taken before the match starts; you may watch this table.")
        return _("R10.5: this table is no longer open.")
    mine = _seat_of(user, seats)
    if mine is None:
        if table.kind == Table.Kind.FRIEND and not invited and table.host_id != user.pk:
            return _("R10.3: friend tables are joined by invitation link or code.")
        refusal = _refuse_match_access(table.kind, table.tier, profile) or _refuse_elsewhere(current_seat, table)
        if refusal:
            return refusal
    occupant = seats.get(position)
    if occupant is not None:
        if occupant.user_id == user.pk:
            return _("R10.5: you already sit in seat %(number)s.") % {"number": occupant.number}
        return _("R10.5: seat %(number)s is taken; choose an empty seat.") % {"number": position + 1}
    return None


def refuse_tournament_seat() -> str:
    """R13.3: a tournament seats its own pairs at its tables; nobody else sits there."""
    return _("R13.3: the tournament seats its pairs at its tables; you may watch this table.")


def refuse_bot_at_match_table() -> str:
    """R10.1: match tables award career points to registered people only, so a bot
    account never sits at one (it plays friend tables it is invited to and its owner's
    practice tables)."""
    return _("R10.1: bot accounts cannot sit at match tables; invite the bot to a friend table or "
             "seat it at your practice table.")


def refuse_bot_seat(*, table: Table, seats: Mapping[int, Seat], owner_id: int, position: int,
                    current_seat: Seat | None) -> str | None:
    """Why a bot account may not take the built-in bot's seat ``position`` at a practice
    table, if so: only at its owner's practice table while it is open, in place of a
    built-in bot (R10.4)."""
    if not 0 <= position < SEAT_COUNT:
        return _("R1.1: seats are numbered 1 to 4.")
    if table.kind == Table.Kind.MATCH:
        return refuse_bot_at_match_table()
    if table.kind == Table.Kind.TOURNAMENT:
        return refuse_tournament_seat()
    if table.kind != Table.Kind.PRACTICE:
        return _("R10.3: a bot joins a friend table with its invitation code.")
    if not table.is_open:
        return _("R10.5: this table is no longer open.")
    if not any(seat.user_id == owner_id for seat in seats.values()):
        return _("R10.4: a bot takes a seat only at its owner's practice table.")
    occupant = seats.get(position)
    if occupant is None or not occupant.is_bot or occupant.away_user_id is not None:
        return _("R10.4: a bot takes the place of one of the practice table's built-in bots; seat %(number)s has none.") % {
            "number": position + 1
        }
    return _refuse_elsewhere(current_seat, table)


def refuse_leave(*, table: Table, seats: Mapping[int, Seat], user) -> str | None:
    """Why the player may not leave, if so: only a seated player leaves an open table."""
    if not table.is_open:
        return _("R10.5: this table is no longer open.")
    if _seat_of(user, seats) is None:
        return _("R10.5: you have no seat at this table.")
    return None


def refuse_return(*, table: Table, seats: Mapping[int, Seat], user, current_seat: Seat | None) -> str | None:
    """Why the player may not come back to the seat they left, if so (R10.7). At a
    tournament table the autopilot keeps the seat for the rest of the round (R13.5)."""
    if table.kind == Table.Kind.TOURNAMENT:
        return _("R13.5: the autopilot plays your seat for the rest of this round; your results count.")
    if table.status != Table.Status.PLAYING or not any(seat.away_user_id == user.pk for seat in seats.values()):
        return _("R10.7: only a player who left this table's match in progress may come back to its seat.")
    return _refuse_elsewhere(current_seat, table)


def _refuse_not_host(table: Table, seats: Mapping[int, Seat], user) -> str | None:
    """R10.5: the host (the creator, else seat 1) runs the waiting room."""
    if host_id(table, seats) != user.pk:
        return _("R10.5: only the host fills seats with bots and starts the match.")
    return None


def refuse_fill(*, table: Table, seats: Mapping[int, Seat], user) -> str | None:
    """Why the empty seats may not be filled with bots now, if so (R10.2, R10.4)."""
    if table.kind == Table.Kind.PRACTICE:
        return _("R10.4: practice tables seat one human and three bots from the start.")
    if table.status != Table.Status.WAITING:
        return _("R10.2: bots fill empty seats only while the table is waiting.")
    refusal = _refuse_not_host(table, seats, user)
    if refusal:
        return refusal
    if len(humans_seated(seats)) < 2:
        return _("R10.2: a lone human cannot fill with bots; at least two humans must be seated.")
    if len(seats) >= SEAT_COUNT:
        return _("R10.2: there is no empty seat to fill.")
    return None


def refuse_start(*, table: Table, seats: Mapping[int, Seat], user) -> str | None:
    """Why the match may not start now, if so (R10.5)."""
    if table.status != Table.Status.WAITING:
        return _("R10.5: this table is not waiting to start.")
    refusal = _refuse_not_host(table, seats, user)
    if refusal:
        return refusal
    empty = SEAT_COUNT - len(seats)
    if empty:
        return _("R10.5: the match starts when all four seats are taken; %(empty)s still empty.") % {"empty": empty}
    return None


def refuse_close(*, table: Table, seats: Mapping[int, Seat], user) -> str | None:
    """Why the table may not be closed by this person, if so: staff close any open table;
    the host closes a table that is still waiting (R10.5)."""
    if not table.is_open:
        return _("R10.5: this table is no longer open.")
    if table.kind == Table.Kind.TOURNAMENT:
        return _("R13.2: a tournament table plays its boards to the end.")
    if user.is_staff:
        return None
    if table.status != Table.Status.WAITING:
        return _("R10.5: a match in progress is not closed by the host; leave the table instead.")
    return _refuse_not_host(table, seats, user) and _("R10.5: only the host closes a waiting table.")
