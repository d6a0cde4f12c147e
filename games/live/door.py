"""The one door that changes a deal: humans, bots and timeouts all submit actions here.

``submit_action`` locks the table row, checks that the submitter saw the latest step
(deal and sequence number), applies the engine (which names the broken rule and changes
nothing on refusal, R9.1), appends the ``Action`` row (unique on deal + seq), stores the
new snapshot and, on commit only, tells the table's pages and schedules what comes next:
a bot turn, a think-time timeout, the autopilot, or the next deal.

Settlement happens inside the same transaction as the action that ends a deal: the match
record, the levels and the career points (R7, R10.6) are never half written.
"""

from __future__ import annotations

import copy
import logging
import random
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

import orjson
from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import services as account_services
from games.analysis import services as analysis_services
from games.engine import match as engine_match
from games.engine.boards import Board, board_deal
from games.engine.deal import AUTOPILOT, BOT, HUMAN, DealState, apply, timeout_action
from games.engine.deal import Action as EngineAction
from games.engine.errors import RuleError
from games.engine.reading import Reading
from games.engine.replay import (
    match_from_json,
    match_to_json,
    state_from_json,
    state_to_json,
)
from games.live.broadcast import announce_table_changed
from games.live.render import SEAT_RELATED, kept_step, scene_for
from games.live.scheduler import schedule
from games.live.selectors import current_deal, lock_step, seat_of
from games.models import Action, Deal, Match, Seat, Table
from games.players import services as player_services

log = logging.getLogger(__name__)

AUTOPILOT_DELAY = 1.0  # seconds before the autopilot plays for a seat (R9.2)
AUTO_PLAY_INTERVALS = (Decimal("0.3"), Decimal("0.5"), Decimal("1"), Decimal("2"), Decimal("3"), Decimal("4"), Decimal("5"))


class PlayError(Exception):
    """A refused submission; ``str()`` cites the rule. Nothing was changed."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


@dataclass(frozen=True)
class Outcome:
    deal_id: int
    seq: int
    state: DealState


# ----------------------------------------------------------------------------------------
# Dealing


def deal_first(*, table: Table, match: Match) -> Deal:
    """Deal the match's first deal (call inside the transaction that starts the match).
    A tournament table's match plays its boards instead (R13.2): the first board."""
    if match.boards:
        return _open_deal(table, match, board_deal(board_of(match, 1)), number=1)
    engine = engine_match.start_match(match.seed)
    match.state = match_to_json(engine)
    match.save(update_fields=["state"])
    return _create_deal(table, match, engine)


def board_of(match: Match, number: int) -> Board:
    """Board ``number`` (from 1) of the boards a tournament table's match plays (R13.2)."""
    data = match.boards[number - 1]
    return Board(number=int(data["number"]), seed=int(data["seed"]),
                 hands=tuple(tuple(int(c) for c in hand) for hand in data["hands"]),  # type: ignore[arg-type]
                 level=int(data["level"]), leader=int(data["leader"]))


def deal_row(match: Match, state: DealState, *, number: int) -> Deal:
    """Write a freshly dealt deal: what R11.1 needs to replay it, and its first snapshot."""
    return Deal.objects.create(
        match=match,
        number=number,
        ruleset_version=state.version,
        seed=state.seed,
        hands=[list(hand) for hand in state.dealt],
        active_level=state.level,
        team_levels_before=list(state.team_levels),
        prev_places=None if state.prev_places is None else list(state.prev_places),
        state=state_to_json(state),
        seq=state.step,
    )


def _create_deal(table: Table, match: Match, engine: engine_match.Match) -> Deal:
    return _open_deal(table, match, engine_match.next_deal(engine), number=engine.deals_played + 1)


def _open_deal(table: Table, match: Match, state: DealState, *, number: int) -> Deal:
    deal = deal_row(match, state, number=number)
    seats = _seats(table)
    timers = []
    _arm(table, deal, state, previous=None, seats=seats, on_commit=timers.append)
    deal.save(update_fields=["deadline", "clock_at"])
    announce_table_changed(table.pk, scene_for(table, deal, seats.values(), state=state))
    _after_announcement(timers)
    return deal


def _seats(table: Table) -> dict[int, Seat]:
    """The table's seats by position, with what the pages show of their players."""
    return {s.position: s for s in table.seats.select_related(*SEAT_RELATED)}


class _SeatCache:
    """The seats of the tables this process's door served last, by table, as of the
    table's version (``Table.updated_at``, read with the table's lock).

    Seats change far less often than deals move: every change to a seat or to who
    plays in it bumps the table's version (``services``, the autopilot and auto play
    below, a renamed player), so the door reads the seats again only then. Entries are
    stored on commit only, and handed out as copies, so a rolled-back step or a copy
    changed by the door never alters them.
    """

    SIZE = 2000

    def __init__(self):
        self._entries: OrderedDict[int, tuple] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, table: Table) -> dict[int, Seat]:
        with self._lock:
            entry = self._entries.get(table.pk)
        if entry is not None and entry[0] == table.updated_at:
            return {position: copy.copy(seat) for position, seat in entry[1].items()}
        return _seats(table)

    def keep_on_commit(self, table: Table, seats: dict[int, Seat]) -> None:
        with self._lock:
            kept = self._entries.get(table.pk)
            if kept is not None and kept[0] == table.updated_at:
                # Kept at this version already (any change to a seat bumps the version):
                # only the order of use changes.
                self._entries.move_to_end(table.pk)
                return
        entry = (table.updated_at, {position: copy.copy(seat) for position, seat in seats.items()})
        transaction.on_commit(lambda: self._put(table.pk, entry))

    def _put(self, table_id: int, entry: tuple) -> None:
        with self._lock:
            self._entries[table_id] = entry
            self._entries.move_to_end(table_id)
            while len(self._entries) > self.SIZE:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


seat_cache = _SeatCache()


def start_next_deal(*, table_id: int, deal_id: int) -> Deal | None:
    """Deal the next deal after ``deal_id`` ended (idempotent: does nothing when that deal
    is not the table's newest finished deal of a match in progress)."""
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        deal = current_deal(table) if table is not None else None
        if deal is None or deal.pk != deal_id or deal.finished_at is None or table.status != Table.Status.PLAYING:
            return None
        match = deal.match
        if match.status != Match.Status.PLAYING:
            return None
        if match.boards:
            if deal.number >= len(match.boards):
                return None  # the last board is played: the table has finished
            return _open_deal(table, match, board_deal(board_of(match, deal.number + 1)), number=deal.number + 1)
        return _create_deal(table, match, match_from_json(match.state))


# ----------------------------------------------------------------------------------------
# The door


def submit_action(
    *,
    table_id: int,
    seat: int,
    kind: str,
    cards=(),
    reading: dict | Reading | None = None,
    expected_deal: int | None = None,
    expected_seq: int,
    actor: str = HUMAN,
    user=None,
) -> Outcome:
    """Apply one action for ``seat`` if the submitter saw the latest step.

    ``user`` is required for human actions and must sit in ``seat``. Raises ``PlayError``
    or ``RuleError`` (both cite a rule) and changes nothing when refused.
    """
    if isinstance(reading, dict):
        try:
            reading = Reading.from_json(reading)
        except (ValueError, KeyError) as exc:
            raise PlayError("R3.5", str(exc)) from None
    try:
        card_ids = tuple(int(c) for c in cards)
    except (TypeError, ValueError):
        raise PlayError("R1.4", _("a card is a physical card id 0-107")) from None
    if any(not 0 <= c < 108 for c in card_ids):
        raise PlayError("R1.4", _("a card is a physical card id 0-107"))
    if kind not in Action.Kind.values:
        raise PlayError("R9.1", _("%(kind)r is not an action") % {"kind": kind})
    for attempt in range(3):
        try:
            return _submit(table_id, seat, kind, card_ids, reading, expected_deal, expected_seq, actor, user)
        except IntegrityError:
            # Another submission took this place in the log first (SQLite has no row
            # locks); the retry sees the new seq and refuses as stale.
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _submit(table_id, seat, kind, cards, reading, expected_deal, expected_seq, actor, user) -> Outcome:
    with transaction.atomic():
        # The lock and the deal in one statement that locks both rows, so a door that
        # waited reads the deal as the previous holder left it (``lock_step``). When this
        # process holds the step already (its newest scene of the table), the snapshot is
        # neither read nor parsed, only checked to be that step.
        kept = kept_step(table_id, expected_deal) if expected_deal is not None else None
        locked = (lock_step(table_id, expected_deal, known=kept[0].step if kept else None)
                  if expected_deal is not None else None)
        if locked is not None:
            table, deal = locked
        else:  # no deal given, or not the one in play: the answer names what is
            table = Table.objects.select_for_update().get(pk=table_id)
            deal = current_deal(table)
        if table.status != Table.Status.PLAYING:
            raise PlayError("R10.5", _("this table is not playing a match"))
        if deal is None:
            raise PlayError("R10.5", _("no deal is in progress"))
        seats = seat_cache.get(table)
        if actor == HUMAN:
            user_id = user.pk if user is not None and user.is_authenticated else None
            sitting = next((s for s in seats.values() if user_id is not None and s.user_id == user_id), None)
            if sitting is None:
                raise PlayError("R10.5", _("you are not seated at this table"))
            if sitting.position != seat:
                raise PlayError("R10.5", _("you sit in seat %(number)s") % {"number": sitting.position + 1})
            if not getattr(user, "is_guandan_bot", False):
                # A bot account's answers (games.botapi) do not keep a table alive: only
                # people do (abandon_tables).
                _seen_human(table)
        if (expected_deal is not None and expected_deal != deal.pk) or expected_seq != deal.seq:
            raise PlayError(
                "R9.1",
                _("the table has moved on (you saw step %(seen)s, it is at step %(now)s); nothing was played")
                % {"seen": expected_seq, "now": deal.seq},
            )
        if deal.finished_at is not None:
            raise PlayError("R6.6", _("the deal is over"))
        if deal.state is None:  # the step ``kept`` holds (``lock_step``)
            state, deal.state = kept[0], kept[1] if kept[1] is not None else state_to_json(kept[0])
        else:
            state = state_from_json(deal.state)
        new_state = apply(state, EngineAction(kind, seat, cards, reading, actor))
        if kind == "play" and reading is None:
            reading = new_state.history[-1].reading
        row = {
            "deal_id": deal.pk, "seq": deal.seq + 1, "seat": seat, "kind": kind, "cards": list(cards),
            "reading": None if reading is None or kind != "play" else reading.to_json(), "actor": actor,
            "user_id": user.pk if actor == HUMAN and user is not None else None, "created_at": timezone.now(),
        }
        deal.state = state_to_json(new_state, since=(state, deal.state))
        # Dumped once: the same text goes to the database and in the event (Scene.to_event);
        # orjson writes the same text as ``json.dumps`` with compact separators, a dozen times faster.
        state_text = orjson.dumps(deal.state).decode()
        deal.seq = new_state.step
        fields = ["state", "seq", "deadline", "clock_at"]
        if new_state.is_over:
            _write_step(None, (), row)  # the settlement reads the whole log (R10.8)
            row = None
            _settle(table, deal, new_state, seats)
            fields += ["result", "finished_at"]
        if _sync_autopilot(seats, new_state) | _away_for_the_round(table, seats):
            table.save(update_fields=["updated_at"])  # the seats changed: a new version
        seat_cache.keep_on_commit(table, seats)
        timers = []
        _arm(table, deal, new_state, previous=state, seats=seats, on_commit=timers.append)
        _write_step(deal, fields, row, texts={"state": state_text})
        # The pages draw this step from the scene the event carries: no page queries.
        announce_table_changed(table.pk, scene_for(table, deal, seats.values(), state=new_state,
                                                   state_json=deal.state, state_text=state_text))
        _after_announcement(timers)
        return Outcome(deal.pk, deal.seq, new_state)


def _after_announcement(timers) -> None:
    """Start ``timers`` on commit after the table's announcement, which was registered
    first: on-commit callbacks run in the order given, so the pages hear of the step
    before the broker does of its timer. (Either may be lost if the process dies right
    after the commit: the pages resync, and the sweep re-arms the timer.)"""
    for timer in timers:
        transaction.on_commit(timer)


# The step's writes: the action's row and the deal's new snapshot, in one statement on
# PostgreSQL (a data-modifying WITH: both or neither), as two on SQLite. Plain statements
# with each value prepared by its field, as the ORM's save would, without its
# compilation at every step (about a tenth of a web process's CPU at 100 tables).
_ACTION_FIELDS = [f for f in Action._meta.concrete_fields if not f.primary_key]
quote_name = connection.ops.quote_name  # the same double quotes on PostgreSQL and SQLite
_INSERT_ACTION = (
    f'INSERT INTO "{Action._meta.db_table}" ({", ".join(quote_name(f.column) for f in _ACTION_FIELDS)}) '
    f'VALUES ({", ".join(["%s"] * len(_ACTION_FIELDS))})'
)


def _write_step(deal: Deal | None, fields, row: dict | None, texts: dict[str, str] | None = None) -> None:
    """Insert the action ``row`` (attribute names to values) and/or update ``fields`` of
    ``deal``; raises IntegrityError when the log already has this step (the caller
    retries and is refused as stale). ``texts`` gives JSON fields' values already dumped
    (the deal's state: its text travels in the event too)."""
    texts = texts or {}
    statements = []
    if row is not None:
        statements.append((_INSERT_ACTION, [f.get_db_prep_save(row[f.attname], connection) for f in _ACTION_FIELDS]))
    if deal is not None:
        columns = [Deal._meta.get_field(name) for name in fields]
        as_json = "::jsonb" if connection.vendor == "postgresql" else ""
        assignments = ", ".join(f"{quote_name(f.column)} = %s{as_json if f.name in texts else ''}" for f in columns)
        update = f'UPDATE "{Deal._meta.db_table}" SET {assignments} WHERE "id" = %s'
        statements.append((update, [texts[f.name] if f.name in texts else f.get_db_prep_save(getattr(deal, f.attname), connection)
                                    for f in columns] + [deal.pk]))
    if len(statements) == 2 and connection.vendor == "postgresql":
        (insert, insert_params), (update, update_params) = statements
        statements = [(f"WITH step AS ({insert}) {update}", insert_params + update_params)]
    with connection.cursor() as cursor:
        for sql, params in statements:
            cursor.execute(sql, params)
            if cursor.rowcount != 1:
                raise DatabaseError(f"deal {deal.pk if deal else '?'}: the step's write changed {cursor.rowcount} rows")


# A human's presence is written at most this often per table (an action, an open page).
PRESENCE_EVERY = timedelta(seconds=60)


def _seen_human(table: Table) -> None:
    """A seated player acted: the table has a human (see ``abandon_tables``). Written at
    most once a minute, and without touching the table's version."""
    now = timezone.now()
    if table.human_seen_at is None or now - table.human_seen_at >= PRESENCE_EVERY:
        Table.objects.filter(pk=table.pk).update(human_seen_at=now)


def human_present(*, table_id: int) -> None:
    """A seated player has the table open (the table's socket says so once a minute)."""
    Table.objects.filter(pk=table_id, status=Table.Status.PLAYING).update(human_seen_at=timezone.now())


def abandon_tables() -> int:
    """End the match of every table that has had no human for ``GUANDAN_ABANDON_AFTER``
    seconds (nobody seated acted or had the table open): it is abandoned, without a
    winner, and the table closes, rather than bots and the autopilot playing on for ever.
    Returns how many tables closed."""
    cutoff = timezone.now() - timedelta(seconds=settings.GUANDAN_ABANDON_AFTER)
    closed = 0
    # A tournament table is never abandoned: the autopilot plays absent entrants to the
    # end of its boards (R13.5), whose results count.
    stale = Table.objects.filter(status=Table.Status.PLAYING, human_seen_at__lt=cutoff).exclude(kind=Table.Kind.TOURNAMENT)
    for table_id in stale.values_list("pk", flat=True):
        with transaction.atomic():
            table = Table.objects.select_for_update().filter(
                pk=table_id, status=Table.Status.PLAYING, human_seen_at__lt=cutoff).first()
            if table is None:
                continue  # a human came back meanwhile
            Match.objects.filter(table=table, status=Match.Status.PLAYING).update(
                status=Match.Status.ABANDONED, finished_at=timezone.now())
            table.status = Table.Status.CLOSED
            table.save(update_fields=["status", "updated_at"])
            announce_table_changed(table.pk)
            log.info("table %s: no human for %s s; match abandoned, table closed", table_id, settings.GUANDAN_ABANDON_AFTER)
            closed += 1
    return closed


def _settle(table: Table, deal: Deal, state: DealState, seats: dict[int, Seat]) -> None:
    """R7 and R10.6 at the end of a deal: the match record, levels, points."""
    settlement = state.result.settlement
    deal.result = {
        "places": list(state.result.places),
        "levels": list(settlement.levels),
        "winner_team": settlement.winner_team,
        "advance": settlement.advance,
        "match_over": settlement.match_over,
        "explanation": settlement.explanation,
    }
    deal.finished_at = timezone.now()
    match = deal.match
    match.table = table  # the row this door holds locked: no second read of it
    if match.boards:
        _settle_board(table, deal, match)
        return
    engine = engine_match.record(match_from_json(match.state), state)
    match.state = match_to_json(engine)
    match.level_a, match.level_b = engine.team_levels
    fields = ["state", "level_a", "level_b"]
    if engine.is_over:
        match.status = Match.Status.FINISHED
        match.winner_team = engine.winner
        match.finished_at = deal.finished_at
        fields += ["status", "winner_team", "finished_at"]
        table.status = Table.Status.FINISHED
        table.save(update_fields=["status", "updated_at"])
    match.save(update_fields=fields)
    # R10.8: at a match table, a seat the autopilot played for more than half of its own
    # decisions earns its player nothing for the deal; the settlement says so.
    assisted = _mostly_automatic_seats(deal, seats) if table.kind == Table.Kind.MATCH else []
    deal.result["no_points_r10_8"] = assisted
    winners = [
        s.user for s in seats.values()
        if s.position % 2 == settlement.winner_team and s.user_id and s.position not in assisted
    ]
    account_services.award_deal_points(
        deal=deal, winners=winners, levels_advanced=settlement.advance, match_won=engine.is_over
    )
    # Who played, each player's record of the deal and, at a match table, the ratings
    # (R10.10); the result carries the changes for the settlement overlay.
    if player_services.record_deal(table=table, deal=deal, seats=seats, assisted=assisted):
        _refresh_ratings(table, seats)
    if table.kind == Table.Kind.PRACTICE:
        # A practice deal is analysed at its end (复盘): the replay has the verdicts ready.
        transaction.on_commit(lambda: analysis_services.request_analysis(deal=deal), robust=True)
    if not engine.is_over:
        deal_id, table_id = deal.pk, table.pk
        transaction.on_commit(
            lambda: schedule("next_deal", table_id, deal_id, delay=settings.GUANDAN_NEXT_DEAL_DELAY)
        )


def _refresh_ratings(table: Table, seats: dict[int, Seat]) -> None:
    """The seat plates show ratings (R10.10): the seats this door holds take their new
    ratings, and the table a new version, so every process reads its seats afresh."""
    from games.players.models import Rating

    users = {seat.user_id: seat.user for seat in seats.values() if seat.user_id is not None}
    for row in Rating.objects.filter(user_id__in=users):
        users[row.user_id].rating = row
    table.save(update_fields=["updated_at"])


def _settle_board(table: Table, deal: Deal, match: Match) -> None:
    """A tournament board ends (R13.2, R13.4): its result is the deal's places, kept on
    the deal; no levels carry over, no career points (R10.1) nor ratings change. After the
    last board the match and the table finish. Either way the tournament hears of it on
    commit (task ``board_finished``), and the next board follows after the usual pause."""
    deal.result["no_points_r10_8"] = []
    last = deal.number >= len(match.boards)
    if last:
        match.status = Match.Status.FINISHED
        match.finished_at = deal.finished_at
        match.save(update_fields=["status", "finished_at"])
        table.status = Table.Status.FINISHED
        table.save(update_fields=["status", "updated_at"])
    deal_id, table_id = deal.pk, table.pk
    transaction.on_commit(lambda: schedule("board_finished", table_id, deal_id, delay=0))
    if not last:
        transaction.on_commit(
            lambda: schedule("next_deal", table_id, deal_id, delay=settings.GUANDAN_NEXT_DEAL_DELAY)
        )


def _mostly_automatic_seats(deal: Deal, seats: dict[int, Seat]) -> list[int]:
    """The human seats (R10.8) more than half of whose own actions in the deal were made
    for them (timeouts and the autopilot, R9.2), in seat order."""
    own, automatic = [0] * 4, [0] * 4
    for position, actor in Action.objects.filter(deal=deal).values_list("seat", "actor"):
        own[position] += 1
        if actor != HUMAN:
            automatic[position] += 1
    return [
        position for position, seat in sorted(seats.items())
        if seat.user_id is not None and own[position] and automatic[position] * 2 > own[position]
    ]


def _sync_autopilot(seats: dict[int, Seat], state: DealState) -> bool:
    """Mirror the engine's autopilot flags (R9.2) onto the human seats; returns whether
    any changed."""
    changed = False
    for seat in seats.values():
        if seat.user_id is None:
            continue
        flag = state.autopilot[seat.position]
        if seat.autopilot != flag:
            seat.autopilot = flag
            seat.save(update_fields=["autopilot"])
            changed = True
    return changed


def _away_for_the_round(table: Table, seats: dict[int, Seat]) -> bool:
    """R13.5: at a tournament table, an entrant the autopilot took over (two think times
    in a row away, R9.2) is played by it for the rest of the round: the seat passes to
    the autopilot, as for an entrant absent when the round started, and the player is
    kept as its away player (its results count, and are marked). Returns whether a seat
    changed."""
    if table.kind != Table.Kind.TOURNAMENT:
        return False
    changed = False
    for seat in seats.values():
        if seat.user_id is not None and seat.autopilot:
            seat.away_user, seat.user = seat.user, None
            seat.is_bot, seat.bot_level, seat.autopilot = True, table.bot_level, False
            seat.save(update_fields=["user", "away_user", "is_bot", "bot_level", "autopilot"])
            changed = True
    return changed


# ----------------------------------------------------------------------------------------
# Timers


def _arm(table: Table, deal: Deal, state: DealState, *, previous: DealState | None, seats: dict[int, Seat],
         on_commit=transaction.on_commit) -> None:
    """Set the think-time deadline and, on commit, schedule whoever acts next.

    ``on_commit`` registers the timer's start; a caller that collects the timers to
    register them after its announcement (``_submit``) has the pages hear of the step
    before the timer is handed to the broker (about 0.75 ms for Celery's send here)."""
    if state.is_over:
        deal.deadline = None
        return
    to_act = set(state.to_act)
    kept = previous is not None and deal.deadline is not None and to_act <= set(previous.to_act)
    if not kept:
        deal.deadline = timezone.now() + timedelta(seconds=table.think_time)
    _schedule_next(table, deal, state, seats, on_commit=on_commit)


def _schedule_next(table: Table, deal: Deal, state: DealState, seats: dict[int, Seat],
                   on_commit=transaction.on_commit) -> None:
    """On commit, start the timer of whoever acts next at ``state``: a bot turn (also the
    autopilot and auto play) at its own pace, or, when only players who think for
    themselves are to act, the deal's one think-time timer (``deal.clock_at``; the
    caller saves the deal)."""
    if _thinking_only(state, seats):
        _arm_clock(table.pk, deal, on_commit=on_commit)
        return
    table_id, deal_id, seq = table.pk, deal.pk, state.step
    delay = _next_delay(table, deal, state, seats)
    on_commit(lambda: schedule("table_turn", table_id, deal_id, seq, delay=delay))


def _thinking(seat: Seat | None) -> bool:
    """A player who acts for themself (no bot, autopilot or auto play): only their think
    time (R9.2) can act for them."""
    return seat is not None and not seat.is_bot and not seat.autopilot and seat.auto_play is None


def _thinking_only(state: DealState, seats: dict[int, Seat]) -> bool:
    return all(_thinking(seats.get(position)) for position in state.to_act)


# A pending think-time timer whose time passed this long ago was lost (a crash): the next
# step starts another (the sweep covers the time in between).
CLOCK_LOST = timedelta(seconds=5)


def _arm_clock(table_id: int, deal: Deal, on_commit=transaction.on_commit) -> None:
    """One pending think-time timer per deal (R9.2), not one per step: players thinking
    for themselves mostly act long before their time runs out, so a timer started for
    every step would mostly wake to find the table moved on. A timer already pending
    for no later than the new deadline is kept; when it fires it finds the clock
    restarted and comes back at the new deadline (``run_table_clock``)."""
    pending, deadline = deal.clock_at, deal.deadline
    if pending is not None and pending <= deadline and pending > timezone.now() - CLOCK_LOST:
        return
    deal.clock_at = deadline
    _start_clock(table_id, deal.pk, deadline, on_commit=on_commit)


def _start_clock(table_id: int, deal_id: int, at, on_commit=transaction.on_commit) -> None:
    due = at.isoformat()
    on_commit(
        lambda: schedule("table_clock", table_id, deal_id, due, delay=(at - timezone.now()).total_seconds())
    )


def _next_delay(table: Table, deal: Deal, state: DealState, seats: dict[int, Seat]) -> float:
    """Seconds until the first seat to act would act on its own."""
    delays = []
    for position in state.to_act:
        seat = seats.get(position)
        if seat is None or seat.is_bot:
            delays.append(float(table.bot_speed))
        elif seat.autopilot:
            delays.append(max(float(table.bot_speed), AUTOPILOT_DELAY))
        elif seat.auto_play is not None:
            delays.append(float(seat.auto_play))
        else:
            delays.append(max(0.0, (deal.deadline - timezone.now()).total_seconds()))
    return min(delays) if delays else 0.0


def run_table_turn(*, table_id: int, deal_id: int, seq: int) -> bool:
    """The timer body (task ``table_turn``): the first seat that is due at step ``seq``
    acts (a bot, the autopilot, auto play, or a think-time timeout). One action per run:
    its commit arms the next timer, so the table's bot speed paces every bot move. Does
    nothing once the table has moved past ``seq`` (idempotent). Returns whether an
    action was applied."""
    return _one_due_action(table_id, deal_id, seq) is not None


def run_table_clock(*, table_id: int, deal_id: int, due: str) -> bool:
    """The think-time timer body (task ``table_clock``): the deal's pending timer for
    ``due`` fires. Does nothing when another timer replaced it or the deal is over
    (idempotent); otherwise, at whatever step the deal has reached, a player whose time
    ran out times out (R9.2), or the timer comes back at the current deadline. Bots,
    the autopilot and auto play keep their own timers. Returns whether an action was
    applied."""
    try:
        at = datetime.fromisoformat(due)
    except (TypeError, ValueError):
        return False
    released = Deal.objects.filter(pk=deal_id, match__table_id=table_id, clock_at=at, finished_at__isnull=True)
    if not released.update(clock_at=None):
        return False
    return _one_due_action(table_id, deal_id, None, thinking_only=True) is not None


def _one_due_action(table_id: int, deal_id: int, seq: int | None, *, thinking_only: bool = False) -> int | None:
    deal = Deal.objects.filter(pk=deal_id, match__table_id=table_id).select_related("match__table").first()
    if deal is None or (seq is not None and deal.seq != seq) or deal.finished_at is not None:
        return None
    seq = deal.seq
    table = deal.match.table
    if table.status != Table.Status.PLAYING:
        return None
    state = state_from_json(deal.state)
    seats = {s.position: s for s in table.seats.all()}
    now = timezone.now()
    for position in state.to_act:
        seat = seats.get(position)
        if thinking_only and not _thinking(seat):
            continue  # a bot's own timer moves it at the table's pace
        action = _due_action(table, deal, state, position, seat, now)
        if action is None:
            continue
        try:
            outcome = submit_action(
                table_id=table_id, seat=position, kind=action.kind, cards=action.cards, reading=action.reading,
                expected_deal=deal_id, expected_seq=seq, actor=action.actor,
            )
        except (PlayError, RuleError) as exc:
            # Stale (someone acted first) or a bot's choice refused: the next timer or the
            # sweep tries again from the new state.
            log.info("timer action for table %s seat %s refused: %s", table_id, position, exc)
            return None
        return outcome.seq
    # Nobody due yet (a player still thinking): come back at the deadline, unless a timer
    # for no later than that is pending already.
    if deal.deadline is not None and any(_thinking(seats.get(p)) for p in state.to_act):
        pending = Q(clock_at__isnull=True) | Q(clock_at__gt=deal.deadline) | Q(clock_at__lt=now - CLOCK_LOST)
        if Deal.objects.filter(pending, pk=deal_id, seq=seq).update(clock_at=deal.deadline):
            _start_clock(table_id, deal_id, deal.deadline)
    return None


def _due_action(table: Table, deal: Deal, state: DealState, position: int, seat: Seat | None, now) -> EngineAction | None:
    from games.live.bot_moves import choose_for_seat

    if seat is None or seat.is_bot:
        level = seat.bot_level if seat is not None else table.bot_level
        return choose_for_seat(state, position, level=level, seed=_bot_seed(deal, state), actor=BOT)
    if seat.autopilot and state.autopilot[position]:
        return choose_for_seat(state, position, level=table.bot_level, seed=_bot_seed(deal, state), actor=AUTOPILOT)
    if seat.auto_play is not None:
        return choose_for_seat(state, position, level="hard", seed=_bot_seed(deal, state), actor=BOT)
    if deal.deadline is not None and now >= deal.deadline - timedelta(milliseconds=50):
        return timeout_action(state, position)
    return None


def _bot_seed(deal: Deal, state: DealState) -> int:
    return random.Random(f"{deal.seed}:{state.step}").getrandbits(32)


def sweep(*, grace: float = 2.0, rearm: bool = False) -> int:
    """Re-arm every deal whose turn is overdue (after a crash or restart lost its timer):
    runs the timer body for it now, and deals the next deal where one is overdue. A turn
    is overdue ``grace`` seconds after it should have happened, so the sweep never hurries
    a bot past the table's bot speed nor a human past the think time. Returns how many
    tables it moved. Tables without a human for ``GUANDAN_ABANDON_AFTER`` seconds are
    closed first (``abandon_tables``).

    ``rearm``: every pending timer is known lost (a worker has just (re)connected to the
    broker, and the timers it held went with the old connection). Each deal that is not
    due yet gets its timer again, for the moment it is due: a bot turn, the think-time
    timer, or the next deal. Without it such a deal would wait for a later sweep. Timers
    are idempotent, so one that was not lost after all only finds the table moved on."""
    abandon_tables()
    now = timezone.now()
    moved = 0
    running = Deal.objects.filter(
        finished_at__isnull=True, match__status=Match.Status.PLAYING, match__table__status=Table.Status.PLAYING
    ).select_related("match__table")
    for deal in running:
        table = deal.match.table
        state = state_from_json(deal.state)
        seats = {s.position: s for s in table.seats.all()}
        due_in = _due_in(deal, table, state, seats, now)
        if due_in is None:
            continue
        if due_in <= -grace:
            if run_table_turn(table_id=table.pk, deal_id=deal.pk, seq=deal.seq):
                moved += 1
        elif rearm:
            _rearm_timer(deal, table, state, seats, max(0.0, due_in))
    delay = settings.GUANDAN_NEXT_DEAL_DELAY
    late = now - timedelta(seconds=delay + grace)
    settled = Deal.objects.filter(match__status=Match.Status.PLAYING, match__table__status=Table.Status.PLAYING)
    if rearm:
        # Deals settled too recently to be overdue: their next deal's timer (idempotent:
        # it deals only after the table's newest deal).
        for deal in settled.filter(finished_at__gte=late).select_related("match"):
            wait = delay - (now - deal.finished_at).total_seconds()
            schedule("next_deal", deal.match.table_id, deal.pk, delay=max(0.0, wait))
    for deal in settled.filter(finished_at__lt=late).select_related("match"):
        if start_next_deal(table_id=deal.match.table_id, deal_id=deal.pk) is not None:
            moved += 1
    return moved


def _due_in(deal: Deal, table: Table, state: DealState, seats: dict[int, Seat], now) -> float | None:
    """Seconds until the first seat to act at the deal's step is due to act on its own
    (negative: overdue by that much); None when nobody is to act."""
    last = deal.actions.order_by("-seq").values_list("created_at", flat=True).first() or deal.started_at
    if deal.deadline is not None and deal.deadline < last:
        last = deal.deadline - timedelta(seconds=table.think_time)  # the clock was restarted since
    waited = (now - last).total_seconds()
    due = []
    for position in state.to_act:
        seat = seats.get(position)
        if seat is None or seat.is_bot or seat.autopilot or seat.auto_play is not None:
            due.append(_next_delay(table, deal, state, {position: seat} if seat else {}) - waited)
        elif deal.deadline is not None:
            due.append((deal.deadline - now).total_seconds())
    return min(due) if due else None


def _rearm_timer(deal: Deal, table: Table, state: DealState, seats: dict[int, Seat], delay: float) -> None:
    """Start again the timer a deal that is not due yet was waiting on (``sweep``)."""
    if not _thinking_only(state, seats):
        schedule("table_turn", table.pk, deal.pk, deal.seq, delay=delay)
        return
    # The deal's one think-time timer (R9.2), for the moment it was pending for.
    at = deal.clock_at
    if at is None:
        at = deal.deadline
        if not Deal.objects.filter(pk=deal.pk, seq=deal.seq, clock_at__isnull=True).update(clock_at=at):
            return  # a step or another timer came first: it armed its own
    schedule("table_clock", table.pk, deal.pk, at.isoformat(), delay=(at - timezone.now()).total_seconds())


def grant_resync_grace(*, table_id: int, deal_id: int, seq: int, position: int) -> bool:
    """A page that was shown step ``seq`` only now, because the change's event never
    reached it (the table consumer's resync), gives the player at ``position`` their
    whole think time from now if they are to act there (R9.2: the think time counts from
    the moment the turn is shown). Returns whether the deadline moved."""
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        deal = Deal.objects.filter(pk=deal_id, match__table_id=table_id, seq=seq, finished_at__isnull=True).first()
        if table is None or deal is None or deal.deadline is None:
            return False
        state = state_from_json(deal.state)
        seat = table.seats.filter(position=position).first()
        if position not in state.to_act or not _thinking(seat):
            return False
        deadline = timezone.now() + timedelta(seconds=table.think_time)
        if deal.deadline >= deadline - timedelta(seconds=1):
            return False  # the whole think time is left already
        deal.deadline = deadline
        _arm_clock(table.pk, deal)
        deal.save(update_fields=["deadline", "clock_at"])
        announce_table_changed(table.pk)
    return True


# ----------------------------------------------------------------------------------------
# Seat settings during play


def take_back_control(*, table: Table, user) -> None:
    """Switch the autopilot off for the user's seat until the next timeouts (R9.2).

    Refused when the seat is not on autopilot: there is nothing to take back. The think
    time starts afresh only when the seat is the one to act: the deadline belongs to
    the seat to act, and another seat's player must not be able to move it (sent every
    few seconds, that would stall the table for ever)."""
    _change_seat(table, user, autopilot=False, restart_clock=True, needs_autopilot=True)


def set_auto_play(*, table: Table, user, interval: Decimal | None) -> None:
    """Auto play: the seat's moves are made for it every ``interval`` seconds (the
    suggestion), until switched off (None)."""
    if interval is not None and not table.allows_assistance:
        raise PlayError("R10.8", _("auto play is for friend and practice tables; match tables play unassisted"))
    if interval is not None:
        try:
            interval = Decimal(str(interval))
            listed = interval.is_finite() and interval in AUTO_PLAY_INTERVALS
        except ArithmeticError:  # "sNaN" and the like
            listed = False
        if not listed:
            raise PlayError("R9.2", _("choose an auto-play interval from the list"))
    _change_seat(table, user, auto_play=interval)


def bot_program_connected(*, table: Table, user, connected: bool) -> bool:
    """A bot account's program (``games.botapi``) connected to its seat, or went away.

    While it is away the site plays the seat at the table's bot pace (its auto play,
    never slower than the autopilot, R9.2), so the table does not wait a whole think
    time on every turn of a program that is gone; the seat is shown on autopilot. Back,
    the program plays again from the next turn. Returns whether anything changed
    (nothing does when the user sits nowhere at the table)."""
    seat = seat_of(table, user)
    if seat is None:
        return False
    wanted = None if connected else max(Decimal(str(table.bot_speed)), Decimal(str(AUTOPILOT_DELAY)))
    if seat.auto_play == wanted:
        return False
    _change_seat(table, user, auto_play=wanted)
    return True


def _change_seat(table: Table, user, *, restart_clock: bool = False, needs_autopilot: bool = False, **fields) -> None:
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        seat = seat_of(table, user)
        if seat is None and table.kind == Table.Kind.TOURNAMENT and table.seats.filter(away_user=user).exists():
            raise PlayError("R13.5", _("the autopilot plays your seat for the rest of this round"))
        if seat is None:
            raise PlayError("R10.5", _("you are not seated at this table"))
        if needs_autopilot and not seat.autopilot:
            raise PlayError("R9.2", _("your seat is not on autopilot; there is nothing to take back"))
        Seat.objects.filter(pk=seat.pk).update(**fields)
        table.save(update_fields=["updated_at"])  # the seats changed: a new version
        deal = current_deal(table)
        if deal is not None and deal.finished_at is None:
            if restart_clock and seat.position in state_from_json(deal.state).to_act:
                deal.deadline = timezone.now() + timedelta(seconds=table.think_time)
                deal.save(update_fields=["deadline"])
            _rearm(table, deal)
        announce_table_changed(table.pk)


def seats_changed(*, table: Table) -> None:
    """Who plays a seat changed mid-deal (a bot took the seat of a player who left,
    R10.7, or the player came back): the seat to act gets the timer its new occupant
    needs, so a bot moves at the table's pace rather than when the think time runs out.
    Call inside the transaction that changed the seats, with the table locked."""
    deal = current_deal(table)
    if deal is not None and deal.finished_at is None:
        _rearm(table, deal)


def _rearm(table: Table, deal: Deal) -> None:
    state = state_from_json(deal.state)
    seats = {s.position: s for s in table.seats.all()}
    _schedule_next(table, deal, state, seats)
    deal.save(update_fields=["clock_at"])
