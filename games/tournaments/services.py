"""The one door that changes a tournament (R13): creating it, entries, and running it.

Writes are keyword-only functions, each one transaction holding the tournament's row
lock; a refusal raises ``TournamentError`` (citing the rule) before anything changes;
pages hear of a change on commit (channel group ``tournament-<id>``).

Running it is ``advance``: it does whatever is due now, one step at a time, each step
idempotent and decided by the rows alone (the status, the rounds, their tables), so it
may run any number of times, from any process, after any restart:

1. registration has closed: lone entrants are paired (R13.1), the pairs numbered, the
   bot pair added for an odd number, the boards drawn and stored (R13.2), round 1
   paired at random (R13.3);
2. a paired round's start time has come: its tables are created, the pairs seated (an
   absent entrant's seats played by the autopilot, R13.5) and the first boards dealt;
3. a playing round's last table has finished its last board: the standings are
   computed from the stored results (R13.4) and kept, then the next round is paired
   Swiss (R13.3), or the tournament finishes.

``advance`` runs from timers (task ``tournament_advance`` at the next due time, task
``board_finished`` when a table ends a board) and from the periodic ``sweep`` (Celery
beat, or the embedded scheduler), which covers whatever a crash lost.
"""

from __future__ import annotations

import logging
import random
import secrets
from datetime import timedelta
from fractions import Fraction

from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import bots as account_bots
from accounts.models import Profile
from games.engine.boards import make_boards
from games.live import broadcast
from games.live.scheduler import schedule
from games.models import Table
from games.tables import services as table_services

from . import pairing, policies, selectors
from .models import Board, Entrant, Pairing, Registration, Round, Tournament
from .policies import TournamentError

log = logging.getLogger(__name__)

__all__ = [
    "TournamentError", "create_tournament", "register", "join_partner", "withdraw", "cancel", "seen",
    "advance", "board_finished", "sweep", "tournament_group",
]

INVITE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
# Timers further ahead than this are left to the sweep (a broker's countdown should not
# outlive its visibility timeout).
LONGEST_TIMER = 600.0


def tournament_group(tournament_id: int) -> str:
    """The channel group of one tournament's pages."""
    return f"tournament-{tournament_id}"


def _announce(tournament_id: int) -> None:
    def send():
        try:
            broadcast.send_to_group(tournament_group(tournament_id), {"type": "tournament.changed", "tournament_id": tournament_id})
        except Exception:  # the pages catch up on their next change or reload
            log.exception("tournament %s: the change event could not be sent", tournament_id)

    transaction.on_commit(send)


def _arm(tournament_id: int, at) -> None:
    """On commit, run ``advance`` at ``at`` (the sweep covers timers further ahead)."""
    delay = max(0.0, (at - timezone.now()).total_seconds())
    if delay <= LONGEST_TIMER:
        transaction.on_commit(lambda: schedule("tournament_advance", tournament_id, delay=delay))


def _code(length: int) -> str:
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(length))


def _locked(tournament: Tournament | int) -> Tournament:
    pk = tournament if isinstance(tournament, int) else tournament.pk
    return Tournament.objects.select_for_update().get(pk=pk)


def _profile(user) -> Profile | None:
    if user is None or not user.is_authenticated:
        return None
    return Profile.objects.filter(user=user).select_related("user").first()


def _refuse(reason: str | None) -> None:
    if reason:
        raise TournamentError(reason)


# ----------------------------------------------------------------------------------------
# Creating and entering


def create_tournament(
    *,
    organiser,
    name: str,
    format: str,  # noqa: A002  (the model's field)
    rounds: int,
    boards_per_round: int,
    think_time: int,
    registration_closes_at,
    starts_at,
    registration_opens_at=None,
    round_break: int = 120,
    is_private: bool = False,
    bot_speed=None,
    bot_level: str = "normal",
) -> Tournament:
    """Create a tournament (R13.1). Staff create public or private ones; a registered
    player a private one for a club, entered by its invitation link."""
    now = timezone.now()
    opens = registration_opens_at or now
    _refuse(policies.refuse_create(user=organiser, profile=_profile(organiser), is_private=is_private))
    _refuse(policies.refuse_schedule(now=now, opens_at=opens, closes_at=registration_closes_at, starts_at=starts_at,
                                     rounds=rounds, boards_per_round=boards_per_round, fmt=format))
    name = (name or "").strip()
    if not name:
        raise TournamentError(_("R13.1: a tournament has a name."))
    extra = {} if bot_speed is None else {"bot_speed": bot_speed}
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name[:80], organiser=organiser, format=format, rounds=rounds, boards_per_round=boards_per_round,
            think_time=think_time, registration_opens_at=opens, registration_closes_at=registration_closes_at,
            starts_at=starts_at, round_break=round_break, is_private=is_private,
            invite_code=_code(10) if is_private else None, seed=secrets.randbits(63), bot_level=bot_level, **extra,
        )
        _arm(tournament.pk, registration_closes_at)
    return tournament


def register(*, tournament: Tournament, user, invited: bool = False) -> Entrant:
    """Register ``user`` alone: a pair of one, with a partner link to send (R13.1). A
    partner who opens it joins (``join_partner``); otherwise lone entrants are paired
    when registration closes."""
    with transaction.atomic():
        tournament = _locked(tournament)
        registered = Registration.objects.filter(tournament=tournament, user=user).exists()
        _refuse(policies.refuse_register(tournament=tournament, profile=_profile(user), now=timezone.now(),
                                         registered=registered, invited=invited or _is_insider(tournament, user),
                                         bot_account=account_bots.is_bot_user(user)))
        entrant = Entrant.objects.create(tournament=tournament, partner_code=_code(12))
        Registration.objects.create(tournament=tournament, entrant=entrant, user=user, seen_at=timezone.now())
        _announce(tournament.pk)
    return entrant


def _is_insider(tournament: Tournament, user) -> bool:
    return user is not None and user.is_authenticated and (user.is_staff or tournament.organiser_id == user.pk)


def join_partner(*, tournament: Tournament, user, code: str) -> Entrant:
    """Join the lone entrant whose partner link this is: the pair is complete (R13.1)."""
    with transaction.atomic():
        tournament = _locked(tournament)
        entrant = Entrant.objects.filter(tournament=tournament, partner_code=(code or "").strip().upper()).first()
        players = entrant.registrations.count() if entrant is not None else 0
        registered = Registration.objects.filter(tournament=tournament, user=user).exists()
        _refuse(policies.refuse_join(tournament=tournament, profile=_profile(user), now=timezone.now(),
                                     registered=registered, entrant=entrant, players=players,
                                     bot_account=account_bots.is_bot_user(user)))
        Registration.objects.create(tournament=tournament, entrant=entrant, user=user, seen_at=timezone.now())
        entrant.partner_code = None
        entrant.save(update_fields=["partner_code"])
        _announce(tournament.pk)
    return entrant


def withdraw(*, tournament: Tournament, user) -> None:
    """Leave before registration closes (R13.1): a partner left behind is a lone entrant
    again, with a new partner link."""
    with transaction.atomic():
        tournament = _locked(tournament)
        registration = Registration.objects.filter(tournament=tournament, user=user).select_related("entrant").first()
        _refuse(policies.refuse_withdraw(tournament=tournament, now=timezone.now(), registered=registration is not None))
        entrant = registration.entrant
        registration.delete()
        if not entrant.registrations.exists():
            entrant.delete()
        else:
            entrant.partner_code = _code(12)
            entrant.save(update_fields=["partner_code"])
        _announce(tournament.pk)


def cancel(*, tournament: Tournament, user, note: str = "") -> None:
    """Cancel a tournament that has not started (the organiser or staff)."""
    with transaction.atomic():
        tournament = _locked(tournament)
        _refuse(policies.refuse_cancel(tournament=tournament, user=user))
        tournament.status = Tournament.Status.CANCELLED
        tournament.note = (note or _("Cancelled by the organiser."))[:200]
        tournament.finished_at = timezone.now()
        tournament.save(update_fields=["status", "note", "finished_at"])
        _announce(tournament.pk)


def seen(*, tournament_id: int, user_id: int) -> None:
    """The player has the tournament's page open: present when a round starts (R13.5)."""
    Registration.objects.filter(tournament_id=tournament_id, user_id=user_id).update(seen_at=timezone.now())


# ----------------------------------------------------------------------------------------
# Running it


def advance(*, tournament_id: int) -> int:
    """Do every step that is due now (see the module's docstring); returns how many."""
    steps = 0
    for _attempt in range(64):
        try:
            done = _step(tournament_id)
        except IntegrityError:
            # Another process took the same step first (SQLite has no row locks): the
            # next pass sees its rows.
            log.info("tournament %s: a step was taken elsewhere first", tournament_id)
            continue
        if not done:
            break
        steps += 1
    return steps


def _step(tournament_id: int) -> bool:
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.is_over:
            return False
        now = timezone.now()
        if tournament.status == Tournament.Status.REGISTERING:
            if now < tournament.registration_closes_at:
                return False
            _close_registration(tournament, now)
            return True
        round_ = tournament.round_set.exclude(status=Round.Status.FINISHED).order_by("number").first()
        if round_ is None:
            return False
        if round_.status == Round.Status.PAIRED:
            if now < round_.starts_at:
                return False
            _start_round(tournament, round_, now)
            return True
        if _round_is_over(round_):
            _finish_round(tournament, round_, now)
            return True
        return False


def _close_registration(tournament: Tournament, now) -> None:
    """R13.1, R13.2, R13.3: pair the lone entrants, number the pairs, add the bot pair for
    an odd number, draw and store the boards, pair round 1."""
    entrants = list(Entrant.objects.filter(tournament=tournament, is_bot_pair=False)
                    .annotate(players=Count("registrations")).order_by("created_at", "id"))
    lone = [e for e in entrants if e.players == 1]
    random.Random(f"lone:{tournament.seed}").shuffle(lone)
    for first, second in zip(lone[0::2], lone[1::2]):
        Registration.objects.filter(entrant=second).update(entrant=first)
        second.delete()
    if len(lone) % 2:
        lone[-1].left_out = True
        lone[-1].partner_code = None
        lone[-1].save(update_fields=["left_out", "partner_code"])
    pairs = list(Entrant.objects.filter(tournament=tournament, is_bot_pair=False, left_out=False)
                 .annotate(players=Count("registrations")).filter(players=2).order_by("created_at", "id"))
    Entrant.objects.filter(tournament=tournament).update(partner_code=None)
    needed = policies.MIN_PAIRS[tournament.format]
    if len(pairs) < needed:
        tournament.status = Tournament.Status.CANCELLED
        tournament.note = _("R13.1: fewer than %(needed)s pairs registered; the tournament did not take place.") % {
            "needed": needed}
        tournament.finished_at = now
        tournament.save(update_fields=["status", "note", "finished_at"])
        _announce(tournament.pk)
        return
    for number, entrant in enumerate(pairs, start=1):
        entrant.number = number
        entrant.save(update_fields=["number"])
    bot = None
    if len(pairs) % 2:
        bot = Entrant.objects.create(tournament=tournament, is_bot_pair=True, number=len(pairs) + 1)
    Board.objects.bulk_create([
        Board(tournament=tournament, round_number=(b.number - 1) // tournament.boards_per_round + 1,
              number=(b.number - 1) % tournament.boards_per_round + 1, seed=b.seed,
              hands=[list(hand) for hand in b.hands], level=b.level, leader=b.leader)
        for b in make_boards(tournament.seed, tournament.boards_total)
    ])
    tables = pairing.first_round([e.pk for e in pairs], seed=tournament.seed, bot=bot.pk if bot else None)
    _pair_round(tournament, 1, tables, starts_at=max(now, tournament.starts_at))
    tournament.status = Tournament.Status.CLOSED
    tournament.save(update_fields=["status"])
    _announce(tournament.pk)


def _pair_round(tournament: Tournament, number: int, tables: list[tuple[int, int]], *, starts_at) -> Round:
    round_ = Round.objects.create(tournament=tournament, number=number, starts_at=starts_at)
    Pairing.objects.bulk_create([Pairing(round=round_, number=i, ns_id=ns, ew_id=ew)
                                 for i, (ns, ew) in enumerate(tables, start=1)])
    _arm(tournament.pk, starts_at)
    return round_


def _start_round(tournament: Tournament, round_: Round, now) -> None:
    """R13.2, R13.5: every table of the round plays the round's boards in order; each
    pair is seated, an entrant absent now is played by the autopilot for the round."""
    boards = [b.as_table_board() for b in Board.objects.filter(tournament=tournament, round_number=round_.number)
              .order_by("number")]
    present_since = now - selectors.PRESENT_WITHIN
    pairings = list(round_.pairings.select_related("ns", "ew").order_by("number"))
    players = {}
    for registration in Registration.objects.filter(entrant__in=[p.ns for p in pairings] + [p.ew for p in pairings]) \
            .select_related("user").order_by("created_at", "id"):
        players.setdefault(registration.entrant_id, []).append(registration)
    for p in pairings:
        if p.table_id is not None:
            continue
        ns, ew = players.get(p.ns_id, [None, None]), players.get(p.ew_id, [None, None])
        seats = [_user(ns[0]), _user(ew[0]), _user(ns[1]), _user(ew[1])]
        absent = {r.user_id for r in ns + ew if r is not None and (r.seen_at is None or r.seen_at < present_since)}
        p.table = table_services.create_tournament_table(
            players=seats, absent=absent, boards=boards, think_time=tournament.think_time,
            bot_speed=tournament.bot_speed, bot_level=tournament.bot_level,
        )
        p.absent = sorted(absent)
        p.save(update_fields=["table", "absent"])
    round_.status = Round.Status.PLAYING
    round_.started_at = now
    round_.save(update_fields=["status", "started_at"])
    tournament.status = Tournament.Status.RUNNING
    tournament.current_round = round_.number
    tournament.started_at = tournament.started_at or now
    tournament.save(update_fields=["status", "current_round", "started_at"])
    _announce(tournament.pk)


def _user(registration):
    return registration.user if registration is not None else None


def _round_is_over(round_: Round) -> bool:
    """A round ends when its last table has finished its last board."""
    return not round_.pairings.filter(Q(table__isnull=True) | Q(table__status__in=(
        Table.Status.WAITING, Table.Status.PLAYING))).exists()


def standing_json(standing) -> dict:
    def exact(value: Fraction) -> list[int]:
        return [value.numerator, value.denominator]

    return {"entrant": standing.entrant, "rank": standing.rank, "shared": standing.shared,
            "score": exact(standing.score), "match_points": standing.match_points, "top": standing.top,
            "opponents": exact(standing.opponents_score), "head_to_head": standing.head_to_head,
            "boards": standing.boards}


def _finish_round(tournament: Tournament, round_: Round, now) -> None:
    """R13.4, R13.3, R13.6: keep the standings after the round, then pair the next one
    (public from now on) or finish the tournament."""
    standings = selectors.compute_standings(tournament, through_round=round_.number)
    round_.standings = [standing_json(s) for s in standings]
    round_.status = Round.Status.FINISHED
    round_.finished_at = now
    round_.save(update_fields=["standings", "status", "finished_at"])
    if round_.number < tournament.rounds:
        met, ns_count = set(), {}
        for ns, ew in Pairing.objects.filter(round__tournament=tournament).values_list("ns_id", "ew_id"):
            met.add(frozenset((ns, ew)))
            ns_count[ns] = ns_count.get(ns, 0) + 1
        bot = Entrant.objects.filter(tournament=tournament, is_bot_pair=True).values_list("pk", flat=True).first()
        tables = pairing.swiss([s.entrant for s in standings], met=met, bot=bot, ns_count=ns_count)
        _pair_round(tournament, round_.number + 1, tables, starts_at=now + timedelta(seconds=tournament.round_break))
    else:
        tournament.status = Tournament.Status.FINISHED
        tournament.finished_at = now
        tournament.save(update_fields=["status", "finished_at"])
    _announce(tournament.pk)


def board_finished(*, table_id: int) -> int:
    """A tournament table finished a board (the door's ``board_finished`` timer): its
    tournament's pages show the progress, and after its last board the round may end."""
    tournament_id = Pairing.objects.filter(table_id=table_id).values_list("round__tournament_id", flat=True).first()
    if tournament_id is None:
        return 0
    with transaction.atomic():
        _announce(tournament_id)
    return advance(tournament_id=tournament_id)


def sweep() -> int:
    """Advance every tournament with something due (Celery beat every few seconds, or
    the embedded scheduler): whatever a lost timer or a restart left undone."""
    now = timezone.now()
    due = Tournament.objects.filter(
        Q(status=Tournament.Status.REGISTERING, registration_closes_at__lte=now)
        | Q(status__in=(Tournament.Status.CLOSED, Tournament.Status.RUNNING))
    ).values_list("pk", flat=True)
    return sum(advance(tournament_id=pk) for pk in due)
