"""Replay pages: watch any deal again step by step, its JSON export, and match history.

Every step is rendered from the stored hands and action log by the same engine that ran
the table (R11.1, ``games.replays.log``), never from a stored picture of the table.

Who may see what (hidden information):

- A finished deal is public: anyone, signed in or not, may replay it with all four hands
  open (``seat=all``) or as one seat saw it (``seat=1`` .. ``seat=4``).
- A deal not finished has no public replay. Only the players of its match may open it,
  and each sees only their own seat's view at every step (``view_for(state, seat)``:
  R9.3 counts, R9.4 the partner's hand after finishing); never another hand, never
  ``seat=all``. Everyone else is refused (403). Its JSON export is refused to everyone.

Every card drawn carries ``data-card="<id>"`` (the ``card`` template tag), so tests scan
each response for cards its viewer may not see.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.db.models import Q
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from accounts.selectors import display_name_of
from games.analysis import present as analysis_present
from games.analysis import services as analysis_services
from games.engine.cards import FACE_OF, sort_key
from games.engine.deal import (
    AUTOPILOT,
    PASS,
    PHASE_OVER,
    PHASE_PLAY,
    PLAY,
    RETURN,
    TIMEOUT,
    TRIBUTE,
    DealState,
    partner_of,
    team_of,
)
from games.engine.deal import (
    Action as EngineAction,
)
from games.engine.reading import shown_rank
from games.engine.views import view_for
from games.live.render import card_context, cards_context
from games.models import Deal, DealAnalysis, Match, Participant, Seat
from games.replays.log import (
    ReplayError,
    engine_actions,
    export_deal,
    replay_states,
    tribute_step,
    trick_starts,
)
from games.rules.words import name_text, reading_label, settlement_text
from games.tables import selectors as table_selectors
from games.tables.selectors import invitations

ALL = "all"
SPEEDS = ("0.5", "1", "2", "3")  # seconds a step while playing
DEFAULT_SPEED = "1"


def _ordinal(place: int) -> str:
    return {1: _("1st"), 2: _("2nd"), 3: _("3rd"), 4: _("4th")}[place]


def _team_letter(seat: int) -> str:
    return "A" if team_of(seat) == 0 else "B"


# --------------------------------------------------------------------------------------
# Who is looking


def seat_in_deal(deal: Deal, user) -> int | None:
    """The seat (0-3) ``user`` plays in the deal's match, or None.

    The match's ``Participant`` rows record who sat where when it started; while the match
    is in progress a current ``Seat`` of its table (taken, or left to a bot with the right
    to come back, R10.7) counts too.
    """
    if user is None or not user.is_authenticated:
        return None
    participant = Participant.objects.filter(match_id=deal.match_id, user=user).first()
    if participant is not None:
        return participant.position
    if deal.match.status == Match.Status.PLAYING:
        seat = Seat.objects.filter(table_id=deal.match.table_id).filter(Q(user=user) | Q(away_user=user)).first()
        if seat is not None:
            return seat.position
    return None


class Refused(Exception):
    """The viewer may not see what was asked; ``str()`` says why, citing the rule."""


def _hidden_information_message() -> str:
    return _(
        "This deal is not finished. Hidden information: a hand in play is seen only "
        "by its own seat (R9.3, R9.4), so the replay opens to everyone once the deal is "
        "finished; until then each of its players may look back on their own seat only."
    )


def viewing_mode(deal: Deal, own_seat: int | None, requested: str | None) -> str | int:
    """What the viewer sees: ``"all"`` (every hand open) or one seat's view (0-3).

    Raises ``Refused`` when the viewer may not see the deal that way, ``ValueError`` when
    ``requested`` is not ``all`` or a seat number 1-4.
    """
    if requested in (None, ""):
        wanted: str | int | None = None
    elif requested == ALL:
        wanted = ALL
    elif requested in ("1", "2", "3", "4"):
        wanted = int(requested) - 1
    else:
        raise ValueError(_("seat must be “all” or a seat number 1-4"))
    if deal.is_finished:
        return ALL if wanted is None else wanted
    if own_seat is None:
        raise Refused(_hidden_information_message())
    if wanted not in (None, own_seat):
        raise Refused(
            _("This deal is not finished: you may look back on your own seat (seat %(number)s) only.")
            % {"number": own_seat + 1}
            + " "
            + _hidden_information_message()
        )
    return own_seat


# --------------------------------------------------------------------------------------
# Describing what happened at a step


@dataclass
class Event:
    """One thing that happened at a step, in words, with the cards it shows (if any)."""

    text: str
    cards: list[dict[str, Any]]
    kind: str = "info"  # play | pass | tribute | return | finish | trick | over | info
    actor: str = ""  # timeout | autopilot when the player did not choose (R9.2)
    faces: list[dict[str, Any]] = field(default_factory=list)  # kinds of card, not cards held


class Replay:
    """One viewer's replay of one deal: the folded states, the log, and the names.

    ``mode`` is ``"all"`` (only ever for a finished deal) or the seat whose view is shown.
    """

    def __init__(self, deal: Deal, states: Sequence[DealState], actions: Sequence[EngineAction],
                 mode: str | int, names: dict[int, str], marks_of: int | None = None):
        if mode == ALL and not deal.is_finished:
            # Hidden information: every hand open is only for a finished deal.
            raise ValueError("R9.3: all hands open only once the deal is finished")
        self.deal = deal
        self.states = states
        self.actions = actions
        self.mode = mode
        self.names = names
        self.marks_of = marks_of  # the one seat whose analysis marks are shown, or None for all
        self.last = len(states) - 1
        self.tricks = trick_starts(states)
        self.tribute_at = tribute_step(states, actions)

    @property
    def seat(self) -> int | None:
        """The seat whose view is shown, None when all hands are open."""
        return None if self.mode == ALL else self.mode  # type: ignore[return-value]

    # ----------------------------------------------------------------------------------
    # Visibility

    def _sees_return(self, state: DealState, gift_index: int) -> bool:
        """A returned card is seen by its two seats only until the deal is over (R8.4 and
        ``view_for``); with all hands open everything is seen."""
        if self.mode == ALL:
            return True
        return view_for(state, self.seat)["tribute"]["gifts"][gift_index]["returned"] is not None

    # ----------------------------------------------------------------------------------
    # Events

    def events(self, step: int) -> list[Event]:
        """What happened at ``step``, in the order it happened."""
        if step == 0:
            return self._start_events()
        before, after = self.states[step - 1], self.states[step]
        action = self.actions[step - 1]
        level = after.level
        seat = action.seat + 1
        out: list[Event] = []
        actor = action.actor if action.actor in (TIMEOUT, AUTOPILOT) else ""
        if action.kind == PLAY:
            move = after.history[-1]
            out.append(Event(_("Seat %(seat)s plays %(reading)s") % {"seat": seat, "reading": reading_label(move.reading)},
                             cards_context(move.cards, level), "play", actor))
        elif action.kind == PASS:
            out.append(Event(_("Seat %(seat)s passes") % {"seat": seat}, [], "pass", actor))
        elif action.kind == TRIBUTE:
            gift = after.gift_from(action.seat)
            out.append(Event(_("Seat %(seat)s gives the tribute to seat %(to)s (R8.1)") % {"seat": seat, "to": gift.recipient + 1},
                             [card_context(action.cards[0], level)], "tribute", actor))
        elif action.kind == RETURN:
            index = next(i for i, g in enumerate(after.tribute.gifts) if g.recipient == action.seat)
            gift = after.tribute.gifts[index]
            shown = [card_context(action.cards[0], level)] if self._sees_return(after, index) else []
            text = (_("Seat %(seat)s returns a card to seat %(to)s (R8.4)") if shown
                    else _("Seat %(seat)s returns a card to seat %(to)s (R8.4); only those two seats see it"))
            out.append(Event(text % {"seat": seat, "to": gift.donor + 1}, shown, "return", actor))
        out.extend(self._automatic_gifts(before, after))
        out.extend(self._autopilot_changes(before, after))
        if before.phase != PHASE_PLAY and after.phase == PHASE_PLAY:
            out.append(Event(_("Every tribute and return is done: seat %(seat)s leads (R8.6)") % {"seat": after.turn + 1}, [], "trick"))
        for finished in after.finished[len(before.finished):]:
            out.append(Event(_("Seat %(seat)s is out of cards: %(place)s place (R6.5)")
                             % {"seat": finished + 1, "place": _ordinal(after.finished.index(finished) + 1)}, [], "finish"))
        if action.kind == PASS and after.trick_no > before.trick_no and after.turn is not None:
            out.append(self._trick_end(before, after))
        if after.phase == PHASE_OVER and before.phase != PHASE_OVER:
            places = ", ".join(
                _("%(place)s seat %(seat)s") % {"place": _ordinal(i + 1), "seat": s + 1}
                for i, s in enumerate(after.result.places)
            )
            out.append(Event(_("The deal is over (R6.6). Places: %(places)s.") % {"places": places}, [], "over"))
            out.append(Event(settlement_text(after.result.settlement.explanation), [], "over"))
        return out

    def _start_events(self) -> list[Event]:
        state = self.states[0]
        level = state.level
        out = [Event(_("Dealt: 27 cards to each seat (R1.3). Level %(level)s: the two wild cards are the hearts of %(level)s (R3.1).")
                     % {"level": shown_rank(level)}, [], faces=_faces(state.wilds, level))]
        tribute = state.tribute
        if tribute.kind == "none":
            out.append(Event(_("The first deal of the match: seat %(seat)s leads, drawn from the deal's seed (R8.6).")
                             % {"seat": state.lead_seat + 1}, [], "trick"))
            return out
        if tribute.resisted:
            out.append(Event(_("Tribute resisted: the donors hold both big jokers (R8.5). Seat %(seat)s, first in the previous deal, leads.")
                             % {"seat": state.lead_seat + 1}, [], "tribute"))
            return out
        rule = "R8.1" if tribute.kind == "single" else "R8.2"
        for gift in tribute.gifts:
            out.append(Event(_("Seat %(from)s owes seat %(to)s its highest card other than a wild, a %(rank)s (%(rule)s).")
                             % {"from": gift.donor + 1, "to": gift.recipient + 1, "rank": shown_rank(gift.rank), "rule": rule},
                             [], "tribute"))
        # The deal's first state already holds the gifts and returns that left no choice:
        # compare it with the same state before any card changed hands.
        owed = replace(tribute, gifts=tuple(replace(g, card=None, returned=None) for g in tribute.gifts))
        out.extend(self._automatic_gifts(replace(state, tribute=owed), state))
        if state.phase == PHASE_PLAY:
            out.append(Event(_("Every tribute and return is done: seat %(seat)s leads (R8.6)") % {"seat": state.turn + 1}, [], "trick"))
        return out

    def _automatic_gifts(self, before: DealState, after: DealState) -> list[Event]:
        """Gifts and returns the engine made because the seat had one choice (R8.3, R8.4)."""
        out = []
        level = after.level
        for index, (old, new) in enumerate(zip(before.tribute.gifts, after.tribute.gifts)):
            if old.card is None and new.card is not None and not self._made_by_action(before, after, new.donor, TRIBUTE):
                out.append(Event(_("Seat %(seat)s gives the tribute to seat %(to)s: its only choice (R8.3)")
                                 % {"seat": new.donor + 1, "to": new.recipient + 1}, [card_context(new.card, level)], "tribute"))
            if old.returned is None and new.returned is not None and not self._made_by_action(before, after, new.recipient, RETURN):
                shown = [card_context(new.returned, level)] if self._sees_return(after, index) else []
                out.append(Event(_("Seat %(seat)s returns a card to seat %(to)s: its only choice (R8.4)")
                                 % {"seat": new.recipient + 1, "to": new.donor + 1}, shown, "return"))
        return out

    def _made_by_action(self, before: DealState, after: DealState, seat: int, kind: str) -> bool:
        step = after.step
        if step == 0 or step != before.step + 1:
            return False
        action = self.actions[step - 1]
        return action.kind == kind and action.seat == seat

    def _autopilot_changes(self, before: DealState, after: DealState) -> list[Event]:
        out = []
        for seat in range(4):
            if after.autopilot[seat] and not before.autopilot[seat]:
                out.append(Event(_("Seat %(seat)s is on autopilot after two timeouts in a row (R9.2)") % {"seat": seat + 1}, [], "info", AUTOPILOT))
            elif before.autopilot[seat] and not after.autopilot[seat]:
                out.append(Event(_("Seat %(seat)s takes back control (R9.2)") % {"seat": seat + 1}, [], "info"))
        return out

    def _trick_end(self, before: DealState, after: DealState) -> Event:
        winner = before.top.seat
        leader = after.turn
        values = {"trick": before.trick_no + 1, "winner": winner + 1, "seat": leader + 1}
        if leader == winner:
            text = _("Everyone else passed: seat %(winner)s wins trick %(trick)s and leads (R6.3)")
        elif leader == partner_of(winner):
            text = _("Seat %(winner)s wins trick %(trick)s but is out of cards: its partner, seat %(seat)s, leads (wind, R6.4)")
        else:
            text = _("Seat %(winner)s wins trick %(trick)s; seat %(seat)s leads")
        return Event(text % values, [], "trick")

    # ----------------------------------------------------------------------------------
    # URLs

    def url(self, step: int, mode: str | int | None = None, marks_of: int | None | str = "") -> str:
        mode = self.mode if mode is None else mode
        seat = ALL if mode == ALL else str(int(mode) + 1)
        query: dict[str, Any] = {"step": step, "seat": seat}
        marks_of = self.marks_of if marks_of == "" else marks_of
        if marks_of is not None:
            query["marks"] = int(marks_of) + 1
        return reverse("replays:deal", args=[self.deal.pk]) + "?" + urlencode(query)

    # ----------------------------------------------------------------------------------
    # The board at one step

    def _move(self, move: dict[str, Any], level: int) -> dict[str, Any]:
        return {
            "seat": move["seat"],
            "number": move["seat"] + 1,
            "pass": move["pass"],
            "cards": cards_context(move["cards"], level),
            "reading": "" if move["pass"] else name_text(move["name"]),
            "actor": move["actor"],
        }

    def _levels(self, view: dict[str, Any]) -> list[str]:
        """R9.5: both teams' levels from the viewer's side; teams A and B with all hands open."""
        levels = view["levels"]
        if self.seat is None:
            return [_("Team A %(level)s") % {"level": _shown(levels["A"])}, _("Team B %(level)s") % {"level": _shown(levels["B"])}]
        return [_("Us %(level)s") % {"level": _shown(levels["us"])}, _("Them %(level)s") % {"level": _shown(levels["them"])}]

    def board(self, step: int) -> dict[str, Any]:
        state = self.states[step]
        level = state.level
        seat = self.seat
        view = view_for(state, seat)
        shown_hands: dict[int, Sequence[int]] = {}
        if seat is None:
            # All hands open: only ever for a finished deal, where nothing is hidden.
            shown_hands = {p: state.hands[p] for p in range(4)}
        else:
            shown_hands[seat] = view["hand"]
            if view["partner_hand"] is not None:
                shown_hands[partner_of(seat)] = view["partner_hand"]
            if view.get("hands") is not None:
                shown_hands = dict(enumerate(view["hands"]))
        last_by_seat = {m["seat"]: m for m in view["trick"]}
        places = list(state.result.places) if state.result is not None else list(state.finished)
        me = 0 if seat is None else seat
        seats = []
        for position in range(4):
            cards = shown_hands.get(position)
            if cards is not None:
                count: int | None = len(cards)
                cards = sorted(cards, key=lambda c: sort_key(c, level))
            else:
                count = view["counts"][position]
            last = last_by_seat.get(position)
            seats.append({
                "position": position,
                "number": position + 1,
                "name": self.names.get(position, _("Seat %(number)s") % {"number": position + 1}),
                "team": _team_letter(position),
                "where": ("bottom", "right", "top", "left")[(position - me) % 4],
                "is_viewer": seat == position,
                "cards": None if cards is None else cards_context(cards, level),
                "count": count,
                "to_act": position in view["to_act"],
                "autopilot": bool(view["autopilot"][position]),
                "place": _ordinal(places.index(position) + 1) if position in places else "",
                "finished_place": position in state.finished,
                "last": self._move(last, level) if last else None,
            })
        gifts = []
        for gift in view["tribute"]["gifts"]:
            returned = None
            if seat is None and gift["returned_done"]:
                returned = next(g.returned for g in state.tribute.gifts if g.donor == gift["from"])
            elif gift["returned"] is not None:
                returned = gift["returned"]
            gifts.append({
                "from": gift["from"] + 1,
                "to": gift["to"] + 1,
                "rank": _shown(gift["rank"]),
                "card": card_context(gift["card"], level) if gift["card"] is not None else None,
                "returned_done": gift["returned_done"],
                "returned": card_context(returned, level) if returned is not None else None,
            })
        result = None
        if state.result is not None:
            settlement = view["result"]
            result = {
                "places": [{"place": _ordinal(i + 1), "number": s + 1, "name": self.names.get(s, "")}
                           for i, s in enumerate(state.result.places)],
                "winner": settlement["winner_team"],
                "winner_is_us": settlement["winner_is_us"],
                "explanation": settlement_text(settlement["explanation"]),
                "levels_after": self._levels({"levels": settlement["levels"]}),
                "match_over": settlement["match_over"],
            }
        current_trick = None
        for number, start, leader in self.tricks:
            if start <= step:
                current_trick = number
        trick_links = [
            {"number": number, "step": start, "leader": leader + 1, "url": self.url(start), "current": number == current_trick}
            for number, start, leader in self.tricks
        ]
        events = self.events(step)
        return {
            "step": step,
            "last": self.last,
            "seat": seat,
            "me": me + 1,
            "mode": self.mode,
            "phase": state.phase,
            "phase_label": {"tribute": _("Tribute"), "return": _("Return"), "play": _("Play"), "over": _("Deal over")}[state.phase],
            "trick_number": state.trick_no + 1 if state.phase == PHASE_PLAY else current_trick,
            "levels": self._levels(view),
            "level": shown_rank(level),
            "wilds": _faces(state.wilds, level),
            "seats": seats,
            "trick": [self._move(m, level) for m in view["trick"]],
            "leader": state.turn + 1 if state.leading else None,
            "tribute": {"kind": view["tribute"]["kind"], "resisted": view["tribute"]["resisted"], "gifts": gifts},
            "result": result,
            "events": events,
            "summary": " ".join(e.text for e in events),
            "nav": {
                "first": self.url(0) if step > 0 else "",
                "prev": self.url(step - 1) if step > 0 else "",
                "next": self.url(step + 1) if step < self.last else "",
                "last": self.url(self.last) if step < self.last else "",
            },
            "tribute_url": None if self.tribute_at is None else self.url(self.tribute_at),
            "tribute_current": self.tribute_at == step,
            "trick_links": trick_links,
            "url": self.url(step),
        }

    def log(self) -> list[dict[str, Any]]:
        """Every step in words, for the action log beside the board."""
        out = []
        for step in range(self.last + 1):
            action = self.actions[step - 1] if step else None
            out.append({
                "step": step,
                "seat": None if action is None else action.seat + 1,
                "events": self.events(step),
                "url": self.url(step),
            })
        return out


def _faces(cards: Sequence[int], level: int) -> list[dict[str, Any]]:
    """Card faces that name a kind of card (the deal's wild cards, R3.1) rather than a card
    someone holds: drawn with ``face=True``, without a physical id, and the id is left out
    of the context too."""
    return [{**card_context(card, level), "id": None, "face": FACE_OF[card]} for card in cards]


def _shown(rank_text: str) -> str:
    """A level as the UI writes it: T as 10 (R1.4)."""
    return "10" if rank_text == "T" else rank_text


# --------------------------------------------------------------------------------------
# Loading


def participant_names(match: Match) -> dict[int, str]:
    names = {}
    for participant in match.participants.select_related("user__profile"):
        if participant.user is not None:
            names[participant.position] = display_name_of(participant.user)
        elif participant.is_bot:
            names[participant.position] = _("Bot %(number)s") % {"number": participant.position + 1}
        else:
            names[participant.position] = _("Deleted player")  # the account was deleted (accounts.deletion)
    return names


def _visible_match(request, match: Match) -> Match:
    viewer = table_selectors.viewer_for(request.user, invited_table_ids=invitations(request.session).keys())
    if not table_selectors.may_see_match(match, viewer):
        raise Http404(_("No such match."))  # the same answer as for a match that does not exist
    return match


def _deal(request, deal_id: int) -> Deal:
    deal = get_object_or_404(Deal.objects.select_related("match__table"), pk=deal_id)
    _visible_match(request, deal.match)
    return deal


def _refused(request, deal: Deal | None, message: str, status: int = 403) -> HttpResponse:
    return render(request, "replays/refused.html", {"deal": deal, "message": message}, status=status)


def _wants_fragment(request) -> bool:
    """An htmx step (not a history restore, which needs the whole page)."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.history_restore_request


# --------------------------------------------------------------------------------------
# Views


@require_GET
def deal_replay(request, deal_id: int):
    """``/replays/deals/<id>/?step=N&seat=all|1..4``: the deal at step N (0 = as dealt).

    An htmx step request gets the board fragment alone (``#replay-board``); the address
    bar follows it (``hx-push-url``), so the address always names the deal and the step.
    """
    deal = _deal(request, deal_id)
    own_seat = seat_in_deal(deal, request.user)
    try:
        mode = viewing_mode(deal, own_seat, request.GET.get("seat"))
    except Refused as refusal:
        return _refused(request, deal, str(refusal))
    except ValueError as error:
        return _refused(request, deal, str(error), status=400)
    rows = list(deal.actions.order_by("seq"))
    try:
        states = replay_states(deal, rows)
    except ReplayError as error:
        return _refused(request, deal, _("This deal cannot be replayed: %(reason)s") % {"reason": error}, status=500)
    marks_of, error = _marks_of(request.GET.get("marks"))
    if error:
        return _refused(request, deal, error, status=400)
    replay = Replay(deal, states, engine_actions(deal, rows), mode, participant_names(deal.match), marks_of)
    raw_step = request.GET.get("step", "0")
    try:
        step = int(raw_step)
    except ValueError:
        return _refused(request, deal, _("The step must be a whole number from 0 to %(last)s.") % {"last": replay.last}, status=400)
    if not 0 <= step <= replay.last:
        return _refused(
            request, deal,
            _("This deal has steps 0 to %(last)s; there is no step %(step)s.") % {"last": replay.last, "step": step},
            status=404,
        )
    board = replay.board(step)
    board["share_url"] = request.build_absolute_uri(board["url"])
    # The analysis (复盘) of a finished deal only: its verdicts name every seat's cards.
    analysis = DealAnalysis.objects.filter(deal=deal).first() if deal.is_finished else None
    verdicts = analysis_present.verdicts_for(analysis, states[0].level, marks_of)
    if verdicts is not None:
        board["analysis"] = _analysis_board(replay, verdicts, step)
    if _wants_fragment(request):
        response = render(request, "replays/_board.html", {"board": board, "deal": deal})
    else:
        modes = []
        if deal.is_finished:
            modes = [{"label": _("All hands"), "url": replay.url(step, ALL), "current": mode == ALL}]
            modes += [{"label": _("Seat %(number)s") % {"number": p + 1}, "url": replay.url(step, p), "current": mode == p}
                      for p in range(4)]
        response = render(request, "replays/deal.html", {
            "deal": deal,
            "match": deal.match,
            "table": deal.match.table,
            "board": board,
            "log": _marked(replay.log(), verdicts),
            "modes": modes,
            "own_seat": None if own_seat is None else own_seat + 1,
            "names": [{"number": p + 1, "name": replay.names.get(p, ""), "team": _team_letter(p)} for p in range(4)],
            "speeds": [(value, _("%(seconds)s s a step") % {"seconds": value}) for value in SPEEDS],
            "default_speed": DEFAULT_SPEED,
            "analysis": _analysis_page(request, deal, analysis, verdicts, replay, step),
        })
    patch_vary_headers(response, ("HX-Request",))
    if not deal.is_finished:
        # One player's own cards of a deal in play: never kept by a shared cache.
        patch_cache_control(response, private=True, no_store=True)
    return response


def _marked(log: list[dict[str, Any]], verdicts) -> list[dict[str, Any]]:
    """The log with each judged step's analysis mark (of the seats shown)."""
    marks = verdicts.log_marks() if verdicts is not None else {}
    for entry in log:
        entry["mark"] = marks.get(entry["step"])
    return log


def _marks_of(raw: str | None) -> tuple[int | None, str]:
    """The one-seat filter of the analysis marks (``marks=1..4``): (seat 0-3 or None, error)."""
    if raw in (None, ""):
        return None, ""
    if raw in ("1", "2", "3", "4"):
        return int(raw) - 1, ""
    return None, _("marks must be a seat number 1-4 (or left out for every seat)")


def _analysis_board(replay: Replay, verdicts: analysis_present.Verdicts, step: int) -> dict[str, Any]:
    """What the board shows of the analysis at ``step``: the verdict on the decision that
    made it, the plot with the step marked, and next/previous mistake."""
    following, previous = verdicts.next_mistake(step), verdicts.previous_mistake(step)
    return {
        "verdict": verdicts.verdict(step),
        "plot": verdicts.plot(step, replay.url),
        "next_mistake": None if following is None else replay.url(following),
        "next_mistake_step": following,
        "previous_mistake": None if previous is None else replay.url(previous),
        "marks_of": None if verdicts.who is None else verdicts.who + 1,
    }


def _analysis_page(request, deal: Deal, analysis, verdicts, replay: Replay, step: int) -> dict[str, Any] | None:
    """The analysis panel of the page: its status (with the live progress bar while it
    runs), the button to ask for it, each seat's accuracy and the one-seat filter."""
    if not deal.is_finished:
        return None
    status = analysis_present.status_of(analysis)
    page: dict[str, Any] = {
        "status": status,
        "may_request": analysis_services.may_request(deal, request.user)
        and (analysis is None or status["status"] == "failed" or status.get("outdated", False)),
        "request_url": reverse("analysis:request", args=[deal.pk]),
        "ws_url": f"/ws/analysis/deals/{deal.pk}/",
        "live": analysis is not None and analysis.is_pending,
    }
    if verdicts is not None:
        page["seats"] = verdicts.seats(replay.names)
        page["filters"] = [{"label": _("Every seat"), "url": replay.url(step, marks_of=None), "current": verdicts.who is None}]
        page["filters"] += [
            {"label": _("Seat %(number)s") % {"number": p + 1}, "url": replay.url(step, marks_of=p), "current": verdicts.who == p}
            for p in range(4)
        ]
    return page


@require_GET
def deal_json(request, deal_id: int):
    """``/replays/deals/<id>.json``: the finished deal as JSON (``replay_log.export_deal``).

    Refused (403) while the deal is not finished, to everyone: an export holds every hand.
    """
    deal = _deal(request, deal_id)
    if not deal.is_finished:
        return JsonResponse({"error": _hidden_information_message()}, status=403)
    try:
        data = export_deal(deal)
    except ReplayError as error:
        return JsonResponse({"error": str(error)}, status=500)
    response = HttpResponse(json.dumps(data, indent=2, ensure_ascii=False), content_type="application/json")
    response["Content-Disposition"] = f'inline; filename="guandan-deal-{deal.pk}.json"'
    return response


@require_GET
def match_history(request, match_id: int):
    """``/matches/<id>/``: the match's deals with their results and level changes (R7,
    R9.6), each linked to its replay once finished."""
    match = _visible_match(request, get_object_or_404(Match.objects.select_related("table"), pk=match_id))
    own_seat = None
    if request.user.is_authenticated:
        own = Participant.objects.filter(match=match, user=request.user).first()
        own_seat = None if own is None else own.position
    names = participant_names(match)
    deals = list(match.deals.order_by("number"))
    analysed = analysis_present.analysed_deal_ids([deal.pk for deal in deals])
    accuracy = analysis_present.match_accuracy(match) if analysed else None
    rows = []
    for deal in deals:
        before = [int(x) for x in deal.team_levels_before]
        row: dict[str, Any] = {
            "deal": deal,
            "level": shown_rank(deal.active_level),
            "before": [shown_rank(x) for x in before],
            "finished": deal.is_finished,
            "replay_url": reverse("replays:deal", args=[deal.pk]),
            "json_url": reverse("replays:deal_json", args=[deal.pk]),
            "can_open": deal.is_finished or own_seat is not None,
            "analysed": deal.pk in analysed,
        }
        result = deal.result if deal.is_finished else None
        if result:
            after = [int(x) for x in result["levels"]]
            winner = int(result["winner_team"])
            row.update({
                "places": [{"place": _ordinal(i + 1), "number": s + 1, "name": names.get(s, "")}
                           for i, s in enumerate(result["places"])],
                "winner": "AB"[winner],
                "after": [shown_rank(x) for x in after],
                "changed": [before[t] != after[t] for t in (0, 1)],
                "advance": int(result.get("advance", after[winner] - before[winner])),
                "explanation": settlement_text(result.get("explanation", "")),
                "match_over": bool(result.get("match_over")),
            })
        rows.append(row)
    return render(request, "replays/match.html", {
        "match": match,
        "table": match.table,
        "rows": rows,
        "names": [{"number": p + 1, "name": names.get(p, ""), "team": _team_letter(p),
                   "accuracy": None if accuracy is None else accuracy[p]} for p in range(4)],
        "accuracy": accuracy,
        "analysed_count": len(analysed),
        "own_seat": None if own_seat is None else own_seat + 1,
        "levels": [shown_rank(match.level_a), shown_rank(match.level_b)],
        "winner": None if match.winner_team is None else "AB"[match.winner_team],
    })
