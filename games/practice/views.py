"""Pages of the practice arena (R10.4): the practice page, the drills, and the bot
controls of a practice table. Thin wrappers over ``games.practice.services``.

The viewer's drill logs and last results live in the session, for guests, anonymous
visitors and registered players alike: ``{"logs": {drill id: [action, ...]},
"results": {drill id: {"passed": bool, "message": str}}}``. A drill page folds its log
from the drill's start on every request, so nothing but the log is trusted.
"""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any, Sequence

from django import forms
from django.contrib import messages
from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from accounts import services as account_services
from games.bots import DRILLS, get_drill, suggest
from games.bots.drills import HUMAN_SEAT, Drill
from games.engine.deal import PASS, PLAY, RETURN, TRIBUTE, team_of
from games.engine.errors import RuleError
from games.engine.reading import Reading
from games.engine.views import view_for
from games.live.render import card_context, card_label, cards_context, shown_rank_char
from games.models import BotLevel, Table
from games.practice import services as practice
from games.practice.drill_texts import drill_text
from games.rules.words import advice_text, reading_label, reason_text
from games.tables import selectors
from games.tables.policies import TableError
from guandan_site import throttle

log = logging.getLogger(__name__)

SESSION_KEY = "practice"
AUTH_BACKEND = "django.contrib.auth.backends.ModelBackend"
DRILL_ACTIONS = (PLAY, PASS, TRIBUTE, RETURN)
PHASE_LABELS = {
    "tribute": gettext_lazy("Tribute"),
    "return": gettext_lazy("Return"),
    "play": gettext_lazy("Play"),
    "over": gettext_lazy("Deal over"),
}


class PracticeStartForm(forms.Form):
    """Bot level and bot speed of a new practice table (R10.4)."""

    bot_level = forms.ChoiceField(
        label=gettext_lazy("Bot level"), choices=BotLevel.choices, initial=BotLevel.NORMAL, widget=forms.RadioSelect
    )
    bot_speed = forms.TypedChoiceField(
        label=gettext_lazy("Bot speed"),
        choices=Table.BOT_SPEED_CHOICES,
        coerce=Decimal,
        initial=Decimal("1.0"),
        help_text=gettext_lazy("How long each bot waits before it plays. You can change both during the game."),
    )


# ----------------------------------------------------------------------------------------
# The session


def _store(session) -> dict[str, dict]:
    data = session.get(SESSION_KEY) or {}
    return {"logs": dict(data.get("logs") or {}), "results": dict(data.get("results") or {})}


def _save(session, store: dict[str, dict]) -> None:
    session[SESSION_KEY] = store


def last_results(session) -> dict[str, dict]:
    """The viewer's last result of each drill finished: ``{drill id: {passed, message}}``."""
    return _store(session)["results"]


def _drill_or_404(drill_id: str) -> Drill:
    try:
        return get_drill(drill_id)
    except ValueError:
        raise Http404(_("No such drill.")) from None


def _run_of(session, drill: Drill) -> practice.DrillRun:
    return practice.load_drill(drill, _store(session)["logs"].get(drill.id))


def _keep(session, run: practice.DrillRun) -> None:
    """Store the drill's log, and its result once the drill is done."""
    store = _store(session)
    store["logs"][run.drill.id] = run.log_json()
    result = run.result
    if result is not None:
        store["results"][run.drill.id] = {"passed": result.passed, "message": result.message}
    _save(session, store)


# ----------------------------------------------------------------------------------------
# The practice page


def _drill_rows(session) -> list[dict[str, Any]]:
    results = last_results(session)
    return [{"drill": _shown_drill(drill), "result": _shown_result(results.get(drill.id))} for drill in DRILLS]


def _shown_result(result) -> dict[str, Any] | None:
    """A drill's result with its message in the reader's language."""
    if result is None:
        return None
    if isinstance(result, dict):
        return {"passed": bool(result.get("passed")), "message": drill_text(result.get("message", ""))}
    return {"passed": result.passed, "message": drill_text(result.message)}


def _shown_drill(drill: Drill) -> dict[str, str]:
    # The drill texts come from the bots package (pure Python); they are looked up in the
    # site's translations here, where the language is known.
    return {
        "id": drill.id,
        "title": drill_text(drill.title),
        "goal": drill_text(drill.goal),
        "rule": drill.rule,
        "hint": drill_text(drill.hint),
        "level": shown_rank_char(drill.level),
    }


def _home(request, form: PracticeStartForm, status: int = 200):
    table = selectors.continue_table_of(request.user) if request.user.is_authenticated else None
    rows = _drill_rows(request.session)
    context = {
        "form": form,
        "current_table": table,
        "rows": rows,
        "passed_count": sum(1 for row in rows if row["result"] and row["result"]["passed"]),
    }
    return render(request, "practice/home.html", context, status=status)


@require_GET
def home(request):
    """The practice page: start a practice game against three bots, or pick a drill."""
    return _home(request, PracticeStartForm())


@require_POST
def start(request):
    """Start a practice game with the chosen bots and go to its table. A visitor who is
    not signed in plays as a new guest (R10.1: guests play practice tables)."""
    form = PracticeStartForm(request.POST)
    if not form.is_valid():
        return _home(request, form, status=400)
    if not throttle.allow(request, "practice", limit=settings.GUANDAN_PRACTICE_STARTS_PER_10_MINUTES, period=600):
        form.add_error(None, _("You started many practice games just now; wait a few minutes and try again."))
        return _home(request, form, status=429)
    user = request.user
    if not user.is_authenticated:
        if not throttle.allow_new_guest(request):
            form.add_error(None, _("Many guests were created from your network just now; wait a few minutes and try again."))
            return _home(request, form, status=429)
        user = account_services.create_guest()
        login(request, user, backend=AUTH_BACKEND)
        messages.info(request, _("You are playing as %(name)s.") % {"name": user.profile.display_name})
    try:
        table = practice.start_practice(
            user=user, bot_level=form.cleaned_data["bot_level"], bot_speed=form.cleaned_data["bot_speed"]
        )
    except TableError as error:
        form.add_error(None, error.message)
        return _home(request, form, status=400)
    return redirect("games:table", table_id=table.pk)


# ----------------------------------------------------------------------------------------
# Drills


def _move_context(move: dict[str, Any], level: int) -> dict[str, Any]:
    """One public play or pass, in the shape the table's log draws (``live/_public.html``)."""
    reading = move.get("reading")
    return {
        "seat": move["seat"],
        "number": move["seat"] + 1,
        "pass": not move["cards"],
        "cards": cards_context(move["cards"], level),
        "reading": reading_label(Reading.from_json(reading)) if reading else "",
        "actor": move.get("actor", "human"),
    }


def _seat_name(position: int) -> str:
    if position == HUMAN_SEAT:
        return _("You")
    if team_of(position) == team_of(HUMAN_SEAT):
        return _("Partner bot")
    return _("Opponent bot")


def _action_name(action, level: int) -> str:
    if action.kind == PASS:
        return _("pass")
    if action.kind in (TRIBUTE, RETURN):
        return card_label(action.cards[0], level)
    return reading_label(action.reading) if action.reading is not None else _(", ").join(card_label(c, level) for c in action.cards)


def board_context(
    run: practice.DrillRun,
    *,
    selected: Sequence[int] = (),
    message: str = "",
    message_kind: str = "info",
    play_as: Sequence[Reading] = (),
) -> dict[str, Any]:
    """Everything the drill board shows, from the human seat's own view only (R9.3)."""
    state = run.state
    level = state.level
    view = view_for(state, HUMAN_SEAT)
    last_by_seat = {move["seat"]: move for move in view["trick"]}
    seats = []
    for position in range(4):
        last = last_by_seat.get(position)
        seats.append(
            {
                "number": position + 1,
                "name": _seat_name(position),
                "team": "A" if team_of(position) == 0 else "B",
                "is_you": position == HUMAN_SEAT,
                "count": view["counts"][position],
                "to_act": position in view["to_act"] and not run.done,
                "place": state.finished.index(position) + 1 if position in state.finished else None,
                "last": _move_context(last, level) if last else None,
            }
        )
    top = view["top"]
    gifts = [
        {
            "from": gift["from"] + 1,
            "to": gift["to"] + 1,
            "rank": shown_rank_char(gift["rank"]),
            "card": card_context(gift["card"], level) if gift["card"] is not None else None,
            "returned": gift["returned_done"],
        }
        for gift in view["tribute"]["gifts"]
    ]
    choices = set(view["choices"] or ())
    result = run.result
    index = next(i for i, drill in enumerate(DRILLS) if drill.id == run.drill.id)
    next_drill = DRILLS[index + 1] if index + 1 < len(DRILLS) else None
    return {
        "drill": _shown_drill(run.drill),
        "number": index + 1,
        "total": len(DRILLS),
        "next_drill": _shown_drill(next_drill) if next_drill else None,
        "seq": state.step,
        "phase": state.phase,
        "phase_label": PHASE_LABELS[state.phase],
        "level": shown_rank_char(view["level"]),
        "wilds": cards_context(state.wilds, level),
        "seats": seats,
        "top": _move_context(top, level) if top else None,
        "history": [_move_context(move, level) for move in view["history"]],
        "gifts": gifts,
        "hand": cards_context(view["hand"], level),
        "hand_count": len(view["hand"]),
        "choices": choices,
        "selected": set(selected),
        "to_act": run.human_to_act,
        "leading": state.leading,
        "done": run.done,
        "result": _shown_result(result),
        "progress": run.progress,
        "message": message,
        "message_kind": message_kind,
        "play_as": [{"index": i, "name": reading_label(reading)} for i, reading in enumerate(play_as)],
    }


def _board(request, run: practice.DrillRun, *, status: int = 200, **extra):
    context = board_context(run, **extra)
    template = "practice/_drill_board.html" if request.htmx else "practice/drill.html"
    return render(request, template, context, status=status)


@never_cache  # a drill's hand
@require_GET
def drill_page(request, drill_id):
    """A drill: the situation, the goal, and the human's hand to act with."""
    drill = _drill_or_404(drill_id)
    return _board(request, _run_of(request.session, drill))


def _posted_cards(request) -> list[int]:
    values = request.POST.getlist("card")
    if len(values) > 27:
        raise RuleError("R1.3", _("a hand holds at most 27 cards"))
    try:
        cards = [int(value) for value in values]
    except ValueError:
        raise RuleError("R1.4", _("a card is a physical card id 0-107")) from None
    if any(not 0 <= card < 108 for card in cards):
        raise RuleError("R1.4", _("a card is a physical card id 0-107"))
    if len(set(cards)) != len(cards):
        raise RuleError("R3.2", _("one physical card fills exactly one position"))
    return cards


@never_cache  # a drill's hand
@require_POST
def drill_act(request, drill_id):
    """One step of a drill, posted by the board's form (htmx swaps the board):

    ``play`` (``play-as-N`` picks a reading when several are legal, R3.5), ``pass``,
    ``tribute`` and ``return`` act and let the bots answer; ``hint`` selects the
    suggested cards with the reason; ``clear`` clears the selection. A refused action shows
    the rule it breaks and changes nothing (R9.1).
    """
    drill = _drill_or_404(drill_id)
    run = _run_of(request.session, drill)
    action = request.POST.get("action", "")
    selected: list[int] = []
    try:
        selected = _posted_cards(request)
        if action == "clear":
            return _board(request, run)
        if action == "hint":
            return _hint(request, run)
        choice = None
        kind = action
        if action.startswith("play-as-"):
            kind = PLAY
            try:
                choice = int(action.removeprefix("play-as-"))
            except ValueError:
                raise RuleError("R3.5", _("choose one of the offered readings")) from None
        if kind not in DRILL_ACTIONS:
            raise RuleError("R9.1", _("%(action)s is not an action") % {"action": action[:30] or "?"})
        practice.check_human_may_act(run)
        human = practice.drill_action(run.state, kind=kind, cards=selected, choice=choice)
        run = practice.advance_drill(run, human)
    except practice.ChooseReading as choose:
        return _board(request, run, selected=selected, message=reason_text(str(choose)), message_kind="hint",
                      play_as=choose.options)
    except RuleError as error:
        return _board(request, run, selected=selected, message=reason_text(str(error)), message_kind="error")
    _keep(request.session, run)
    return _board(request, run)


def _hint(request, run: practice.DrillRun):
    """The drill's own hint, and the move the expert bot suggests with its reason."""
    parts = [drill_text(run.drill.hint)] if run.drill.hint else []
    selected: tuple[int, ...] = ()
    if run.human_to_act:
        try:
            suggestion = suggest(view_for(run.state, HUMAN_SEAT))
        except Exception:  # a hint must never break the drill
            log.exception("suggestion failed in drill %s", run.drill.id)
        else:
            selected = suggestion.cards
            parts.append(
                _("The bots would play: %(move)s (%(reason)s).")
                % {"move": _action_name(suggestion.action, run.state.level), "reason": advice_text(suggestion.reason)}
            )
    return _board(request, run, selected=selected, message=" ".join(parts), message_kind="hint")


@never_cache  # a drill's hand
@require_POST
def drill_reset(request, drill_id):
    """Start the drill again from its situation (the last result is kept until the next
    one replaces it)."""
    drill = _drill_or_404(drill_id)
    store = _store(request.session)
    store["logs"].pop(drill.id, None)
    _save(request.session, store)
    run = practice.load_drill(drill)
    if request.htmx:
        return _board(request, run)
    return redirect("practice:drill", drill_id=drill.id)


# ----------------------------------------------------------------------------------------
# The practice table's bot controls


def _table_step(request, table_id, change):
    """Run ``change`` for the signed-in player; htmx gets the controls back, a plain
    form post goes back to the table page with the outcome as a message."""
    table = get_object_or_404(Table, pk=table_id)
    message, kind = "", "info"
    try:
        table = change(table)
    except TableError as error:
        message, kind = error.message, "error"
    else:
        message = _("Bot speed: %(speed)s · bot level: %(level)s.") % {
            "speed": table.get_bot_speed_display(),
            "level": table.get_bot_level_display(),
        }
    if request.htmx:
        table.refresh_from_db()
        seats = {seat.position: seat for seat in table.seats.all()}
        context = {
            "table": table,
            "can_set_bots": practice.refuse_bot_change(table=table, seats=seats, user=request.user) is None,
            "practice_message": message,
            "practice_message_kind": kind,
        }
        controls = render_to_string("practice/_bot_controls.html", context, request=request)
        facts = render_to_string("practice/_bot_facts.html", {"table": table, "oob": True}, request=request)
        return HttpResponse(controls + facts)
    (messages.error if kind == "error" else messages.success)(request, message)
    return redirect(reverse("games:table", args=[table.pk]))


@login_required
@require_POST
def table_speed(request, table_id):
    """Set the practice table's bot speed (R10.4)."""
    speed = request.POST.get("speed", "")
    return _table_step(request, table_id, lambda table: practice.set_bot_speed(table=table, user=request.user, speed=speed))


@login_required
@require_POST
def table_level(request, table_id):
    """Set the practice table's bot level (R10.4)."""
    level = request.POST.get("level", "")
    return _table_step(request, table_id, lambda table: practice.set_bot_level(table=table, user=request.user, level=level))
