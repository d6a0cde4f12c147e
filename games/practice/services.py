"""The practice arena (R10.4): practice tables and their bot controls, and drills.

Practice tables are always one human and three bots, award no points, and have drills,
coach highlights and a bot speed control (R10.4). This module holds the writes the
practice pages make, as the rest of ``games`` does in ``services``:

- ``start_practice`` creates a practice table (``games.tables.services.create_table``) and starts
  its match at once, in one transaction;
- ``set_bot_speed`` and ``set_bot_level`` let the one human seated at a practice table
  change how fast and how well its three bots play. Every refusal raises ``TableError``
  citing R10.4 before anything changes; a change is made under the table lock and
  announced to the table's pages once committed.

Drills (``games.bots.drills``) are played without the database: a drill's action log (the
human's actions and the bots' answers, in order) is folded from ``drill.start_state()``
with the engine on every request (R11.1), so the page can keep the log anywhere (the
session) and never trusts a stored state. ``DrillRun`` is one such fold.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Sequence

from django.db import transaction
from django.utils.translation import gettext as _

from games.bots.drills import HUMAN_SEAT, Drill, DrillResult
from games.engine.deal import (
    BOT,
    HUMAN,
    PASS,
    PLAY,
    RETURN,
    TRIBUTE,
    Action,
    DealState,
    apply,
)
from games.engine.errors import RuleError
from games.engine.reading import Reading
from games.engine.replay import action_to_json, log_from_json
from games.live import selectors as live_selectors
from games.live.bot_moves import choose_for_seat
from games.live.broadcast import announce_table_changed
from games.live.render import play_as_options
from games.live.scheduler import schedule
from games.models import BotLevel, Seat, Table
from games.tables import services
from games.tables.policies import TableError

__all__ = [
    "BOT_SPEEDS",
    "DRILL_BOT_LEVEL",
    "ChooseReading",
    "DrillRun",
    "advance_drill",
    "check_human_may_act",
    "drill_action",
    "load_drill",
    "refuse_bot_change",
    "set_bot_level",
    "set_bot_speed",
    "start_practice",
]

# The bot speeds a practice table offers (seconds a bot waits before it plays).
BOT_SPEEDS = tuple(value for value, _label in Table.BOT_SPEED_CHOICES)
# Drills are answered by the table's "normal" bots, the same every time, so a drill's log
# replays to the same position.
DRILL_BOT_LEVEL = BotLevel.NORMAL


# ----------------------------------------------------------------------------------------
# Practice tables


def start_practice(*, user, bot_level: str = BotLevel.NORMAL, bot_speed: Decimal = Decimal("1.0")) -> Table:
    """Create a practice table for ``user`` with three bots of ``bot_level`` playing at
    ``bot_speed`` and deal its first deal (R10.4, R10.5: the lone human is the host).

    Both steps commit together: a refused start leaves no table behind. Refusals raise
    ``TableError`` (for example R10.5 when the player already sits at another table).
    """
    with transaction.atomic():
        table = services.create_table(
            host=user, kind=Table.Kind.PRACTICE, bot_level=_checked_level(bot_level), bot_speed=_checked_speed(bot_speed)
        )
        services.start_match(table=table, user=user)
    table.refresh_from_db()
    return table


def refuse_bot_change(*, table: Table, seats: dict[int, Seat], user) -> str | None:
    """Why ``user`` may not change the bots of ``table``, if so (R10.4): only practice
    tables have the control, only while open, and only their seated human uses it."""
    if table.kind != Table.Kind.PRACTICE:
        return _("R10.4: only practice tables have a bot speed and level control.")
    if not table.is_open:
        return _("R10.4: this practice table is no longer open.")
    if user is None or not user.is_authenticated or not any(seat.user_id == user.pk for seat in seats.values()):
        return _("R10.4: only the player seated at this practice table sets its bots.")
    return None


def _checked_speed(speed) -> Decimal:
    try:
        value = Decimal(str(speed))
        return next(allowed for allowed in BOT_SPEEDS if value.is_finite() and value == allowed)
    except (InvalidOperation, ValueError, StopIteration):
        raise TableError(_("R10.4: choose a bot speed from the list.")) from None


def _checked_level(level) -> str:
    if level not in BotLevel.values:
        raise TableError(_("R10.4: choose a bot level: easy, normal or hard."))
    return level


def _locked_practice_table(table: Table, user) -> tuple[Table, dict[int, Seat]]:
    table = Table.objects.select_for_update().get(pk=table.pk)
    seats = {seat.position: seat for seat in table.seats.all()}
    refusal = refuse_bot_change(table=table, seats=seats, user=user)
    if refusal:
        raise TableError(refusal)
    return table, seats


def set_bot_speed(*, table: Table, user, speed) -> Table:
    """Set how long the practice table's bots wait before they play (R10.4).

    The new speed applies from the bots' next move on: when a bot is due now, its turn is
    scheduled again at the new speed (the timer bodies are idempotent, so the turn that
    was already waiting does nothing once the bot has moved).
    """
    speed = _checked_speed(speed)
    with transaction.atomic():
        table, seats = _locked_practice_table(table, user)
        table.bot_speed = speed
        table.save(update_fields=["bot_speed", "updated_at"])
        _reschedule_bots(table, seats, delay=float(speed))
        announce_table_changed(table.pk)
    return table


def set_bot_level(*, table: Table, user, level: str) -> Table:
    """Set how well the practice table's three bots play: easy, normal or hard (R10.4).

    Each bot seat carries its own level (the timers read the seat), so all three change
    together with the table's; the next bot move uses the new level.
    """
    level = _checked_level(level)
    with transaction.atomic():
        table, _seats = _locked_practice_table(table, user)
        table.bot_level = level
        table.save(update_fields=["bot_level", "updated_at"])
        Seat.objects.filter(table=table, is_bot=True).update(bot_level=level)
        announce_table_changed(table.pk)
    return table


def _reschedule_bots(table: Table, seats: dict[int, Seat], *, delay: float) -> None:
    deal = live_selectors.current_deal(table)
    if deal is None or deal.finished_at is not None:
        return
    state = live_selectors.deal_state(deal)
    if not any(seats.get(position) is None or seats[position].is_bot for position in state.to_act):
        return
    table_id, deal_id, seq = table.pk, deal.pk, deal.seq
    transaction.on_commit(lambda: schedule("table_turn", table_id, deal_id, seq, delay=delay))


# ----------------------------------------------------------------------------------------
# Drills


class ChooseReading(Exception):
    """R3.5: the selected cards have several legal readings here; the player chooses."""

    def __init__(self, options: Sequence[Reading]):
        super().__init__(_("R3.5: these cards can be played several ways; choose one."))
        self.options = list(options)


@dataclass(frozen=True)
class DrillRun:
    """A drill played so far: every action since ``drill.start_state()`` (the human's
    and the bots'), and the state they lead to."""

    drill: Drill
    log: tuple[Action, ...]
    state: DealState

    @property
    def human_actions(self) -> tuple[Action, ...]:
        return tuple(action for action in self.log if action.seat == HUMAN_SEAT and action.actor == HUMAN)

    @property
    def done(self) -> bool:
        return self.drill.done(self.human_actions, self.state)

    @property
    def result(self) -> DrillResult | None:
        """The drill's verdict once it is done, else None."""
        return self.drill.check(self.human_actions, self.state) if self.done else None

    @property
    def progress(self) -> str:
        """For drills judged over several moves: how it stands after the first."""
        if self.done or not self.human_actions or self.drill.decisions == 1:
            return ""
        return self.drill.check(self.human_actions, self.state).message

    @property
    def human_to_act(self) -> bool:
        return not self.done and HUMAN_SEAT in self.state.to_act

    def log_json(self) -> list[dict[str, Any]]:
        return [action_to_json(action) for action in self.log]


def load_drill(drill: Drill, log: Sequence[Any] | None = None) -> DrillRun:
    """Fold a stored log from the drill's start (R11.1). A log that no longer replays
    (the drill changed since it was stored) starts the drill afresh."""
    state = drill.start_state()
    actions: list[Action] = []
    try:
        for action in log_from_json(list(log or ())):
            state = apply(state, action)
            actions.append(action)
    except (RuleError, ValueError, TypeError, KeyError):
        return DrillRun(drill, (), drill.start_state())
    return DrillRun(drill, tuple(actions), state)


def drill_action(state: DealState, *, kind: str, cards: Sequence[int] = (), choice: int | None = None) -> Action:
    """The human's action from the drill page's form.

    A play takes its reading from the situation (R3.5): several legal readings raise
    ``ChooseReading`` unless ``choice`` picks one of them; none leaves the reading out, so
    the engine explains why the cards cannot be played. Malformed input raises
    ``RuleError`` naming the rule.
    """
    cards = tuple(cards)
    if kind == PASS:
        return Action(PASS, HUMAN_SEAT)
    if kind in (TRIBUTE, RETURN):
        if len(cards) != 1:
            rule = "R8.3" if kind == TRIBUTE else "R8.4"
            raise RuleError(rule, _("select exactly one card to give"))
        return Action(kind, HUMAN_SEAT, cards)
    if kind != PLAY:
        raise RuleError("R9.1", _("%(kind)s is not an action") % {"kind": kind[:30]})
    if not cards:
        raise RuleError("R6.1", _("select the cards to play"))
    if not set(cards) <= set(state.hands[HUMAN_SEAT]):
        raise RuleError("R9.1", _("those cards are not in your hand"))
    options = play_as_options(state, cards)
    if choice is not None:
        if not 0 <= choice < len(options):
            raise RuleError("R3.5", _("choose one of the offered readings"))
        return Action(PLAY, HUMAN_SEAT, cards, options[choice])
    if len(options) > 1:
        raise ChooseReading(options)
    return Action(PLAY, HUMAN_SEAT, cards, options[0] if options else None)


def check_human_may_act(run: DrillRun) -> None:
    """Raise ``RuleError`` unless the drill waits for the human's action."""
    if run.done:
        raise RuleError("R9.1", _("this drill is finished: try it again or go to the next one"))
    if HUMAN_SEAT not in run.state.to_act:
        raise RuleError("R6.2", _("it is not your turn"))


def advance_drill(run: DrillRun, action: Action) -> DrillRun:
    """Apply the human's ``action``, then let the bots play the other seats until the
    human acts again or the drill is done.

    An illegal action raises the engine's ``RuleError`` and changes nothing (R9.1); so
    does any action once the drill is done.
    """
    check_human_may_act(run)
    if action.seat != HUMAN_SEAT or action.actor != HUMAN:
        raise RuleError("R10.4", _("in a drill you play seat 1; bots play the others"))
    state = apply(run.state, action)
    return _bots_answer(DrillRun(run.drill, run.log + (action,), state))


def _bots_answer(run: DrillRun) -> DrillRun:
    log, state = list(run.log), run.state
    while not run.drill.done(run.human_actions, state) and state.to_act and HUMAN_SEAT not in state.to_act:
        seat = state.to_act[0]
        # Seeded by the step, so the same moves get the same answers every time.
        action = choose_for_seat(state, seat, level=DRILL_BOT_LEVEL, seed=state.step, actor=BOT)
        state = apply(state, action)
        log.append(action)
    return DrillRun(run.drill, tuple(log), state)
