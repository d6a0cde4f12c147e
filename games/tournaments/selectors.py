"""Reads about tournaments: who may see what (R13.6), the board results of the deals the
tables played (the input of ``scoring``), and what the pages show."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Prefetch, Q
from django.utils import timezone

from games.models import Action, Deal, Table
from games.tables.selectors import Viewer

from . import scoring
from .models import Board, Entrant, Pairing, Registration, Round, Tournament

# A player whose page of the tournament was open this recently is present when a round
# starts (R13.5); the page says so every PRESENCE_EVERY seconds.
PRESENCE_EVERY = 20
PRESENT_WITHIN = timedelta(seconds=60)
INVITATIONS_SESSION_KEY = "tournament_invitations"


def invitations(session) -> set[int]:
    """The private tournaments whose invitation link this browser opened."""
    return {int(t) for t in session.get(INVITATIONS_SESSION_KEY, [])} if session is not None else set()


def entrant_of(tournament: Tournament, user) -> Entrant | None:
    if user is None or not user.is_authenticated:
        return None
    registration = Registration.objects.filter(tournament=tournament, user=user).select_related("entrant").first()
    return registration.entrant if registration else None


def may_see_tournament(tournament: Tournament, user, invited: set[int] = frozenset()) -> bool:
    """A public tournament is seen by everyone; a private one (R13.1) by whoever opened
    its invitation link, its entrants, its organiser and staff."""
    if not tournament.is_private or tournament.pk in invited:
        return True
    if user is None or not user.is_authenticated:
        return False
    return (user.is_staff or tournament.organiser_id == user.pk
            or Registration.objects.filter(tournament=tournament, user=user).exists())


def _pairing_of_table(table: Table) -> Pairing | None:
    return Pairing.objects.filter(table=table).select_related("round__tournament").first()


def _unfinished_own_table(round_: Round, user_id: int) -> bool:
    """Whether ``user_id`` is an entrant of ``round_`` whose own table has boards left."""
    pairing = Pairing.objects.filter(
        Q(ns__registrations__user_id=user_id) | Q(ew__registrations__user_id=user_id), round=round_
    ).select_related("table").first()
    return pairing is not None and (pairing.table is None or pairing.table.is_open)


def may_watch_table(table: Table, viewer: Viewer) -> bool:
    """R13.6: while a round is in play no one sees another table's play on a board they
    have not finished: an entrant watches the other tables of the round once their own
    has played its boards. Everyone else watches a public tournament's tables; a private
    one's are for its entrants, organiser and staff."""
    pairing = _pairing_of_table(table)
    if pairing is None:
        return False
    tournament = pairing.round.tournament
    user = viewer.user
    signed_in = user is not None and user.is_authenticated
    if signed_in and user.is_staff:
        return True
    if tournament.is_private and not (signed_in and may_see_tournament(tournament, user)):
        return False
    if not signed_in:
        return True
    if table.seats.filter(Q(user=user) | Q(away_user=user)).exists():
        return True
    return pairing.round.status == Round.Status.FINISHED or not _unfinished_own_table(pairing.round, user.pk)


def may_see_match(match, viewer: Viewer) -> bool:
    """R13.6: a tournament table's deals (replays, exports, history) are public once the
    round's last board ends; before that only the table's own players and staff see
    them. A private tournament's stay with its entrants, organiser and staff."""
    pairing = _pairing_of_table(match.table)
    if pairing is None:
        return False
    user = viewer.user
    signed_in = user is not None and user.is_authenticated
    if signed_in and user.is_staff:
        return True
    tournament = pairing.round.tournament
    if pairing.round.status != Round.Status.FINISHED:
        return signed_in and match.participants.filter(user=user).exists()
    return not tournament.is_private or (signed_in and may_see_tournament(tournament, user))


# ----------------------------------------------------------------------------------------
# Board results


def board_results(tournament: Tournament, *, rounds=None) -> list[scoring.BoardResult]:
    """The result of every board every table of ``rounds`` (default: all) has finished,
    read from the deals it played (R13.4): the signed result of the pair in seats 1 and
    3, and the pairs the autopilot played (R13.5)."""
    pairings = Pairing.objects.filter(round__tournament=tournament, table__isnull=False)
    if rounds is not None:
        pairings = pairings.filter(round__number__in=list(rounds))
    pairings = list(pairings.select_related("round", "ns", "ew"))
    by_table = {p.table_id: p for p in pairings}
    deals = list(Deal.objects.filter(match__table_id__in=list(by_table), finished_at__isnull=False)
                 .values_list("pk", "match__table_id", "number", "result"))
    automatic = defaultdict(set)
    for deal_id, seat in (Action.objects.filter(deal_id__in=[d[0] for d in deals], actor__in=("bot", "autopilot"))
                          .values_list("deal_id", "seat").distinct()):
        automatic[deal_id].add(seat)
    out = []
    for deal_id, table_id, number, result in deals:
        pairing = by_table[table_id]
        advance = int(result["advance"])
        ns_score = advance if int(result["winner_team"]) == 0 else -advance
        marked = set()
        for entrant, seats in ((pairing.ns, (0, 2)), (pairing.ew, (1, 3))):
            if not entrant.is_bot_pair and automatic[deal_id] & set(seats):
                marked.add(entrant.pk)
        out.append(scoring.BoardResult(pairing.round.number, number, pairing.number, pairing.ns_id, pairing.ew_id,
                                       ns_score, frozenset(marked)))
    return out


def playing_entrants(tournament: Tournament) -> list[Entrant]:
    """The pairs that play (numbered at the close), the bot pair last."""
    return list(Entrant.objects.filter(tournament=tournament, number__isnull=False)
                .prefetch_related(_registrations()).order_by("is_bot_pair", "number"))


def _registrations():
    return Prefetch("registrations", queryset=Registration.objects.select_related("user__profile").order_by("created_at", "id"))


def compute_standings(tournament: Tournament, *, through_round: int) -> list[scoring.Standing]:
    """The standings after round ``through_round`` (R13.4), from the stored results."""
    entrants = playing_entrants(tournament)
    return scoring.standings(
        board_results(tournament, rounds=range(1, through_round + 1)),
        [e.pk for e in entrants], fmt=tournament.format,
        unranked=[e.pk for e in entrants if e.is_bot_pair],
    )


# ----------------------------------------------------------------------------------------
# Pages


@dataclass
class TableRow:
    """One table of a round as the tournament page lists it."""

    pairing: Pairing
    boards_done: int
    finished: bool
    can_watch: bool
    mine: bool = False


def latest_standings(tournament: Tournament) -> tuple[int, list[dict]]:
    """(round number, rows) of the newest finished round's standings, or (0, [])."""
    newest = tournament.round_set.filter(status=Round.Status.FINISHED).order_by("-number").first()
    if newest is None:
        return 0, []
    return newest.number, list(newest.standings or [])


def rounds_of(tournament: Tournament) -> list[Round]:
    return list(tournament.round_set.prefetch_related(
        Prefetch("pairings", queryset=Pairing.objects.select_related("table").prefetch_related(
            Prefetch("ns__registrations", queryset=Registration.objects.select_related("user__profile")),
            Prefetch("ew__registrations", queryset=Registration.objects.select_related("user__profile")),
        ))
    ).order_by("number"))


def boards_done(table_ids) -> dict[int, int]:
    """{table id: boards finished} (progress only: never a result, R13.6)."""
    counts = defaultdict(int)
    for table_id in Deal.objects.filter(match__table_id__in=list(table_ids), finished_at__isnull=False) \
            .values_list("match__table_id", flat=True):
        counts[table_id] += 1
    return counts


def table_rows(round_: Round, viewer: Viewer) -> list[TableRow]:
    pairings = list(round_.pairings.all())
    done = boards_done(p.table_id for p in pairings if p.table_id)
    own_unfinished = False
    user = viewer.user
    if user is not None and user.is_authenticated and not user.is_staff and round_.status == Round.Status.PLAYING:
        own_unfinished = _unfinished_own_table(round_, user.pk)
    rows = []
    for p in pairings:
        mine = user is not None and user.is_authenticated and any(
            r.user_id == user.pk for r in list(p.ns.registrations.all()) + list(p.ew.registrations.all()))
        finished = p.table is not None and not p.table.is_open
        rows.append(TableRow(p, done.get(p.table_id, 0), finished, p.table_id is not None and (mine or not own_unfinished),
                             mine))
    return rows


def board_page(tournament: Tournament, round_number: int, number: int):
    """A finished round's board (R13.6): the board, each table's result compared, and the
    deal each table played (for its replay)."""
    board = Board.objects.filter(tournament=tournament, round_number=round_number, number=number).first()
    if board is None:
        return None
    results = board_results(tournament, rounds=[round_number])
    compared = scoring.compare([r for r in results if r.board == number], tournament.format).get((round_number, number), [])
    pairings = {p.number: p for p in Pairing.objects.filter(round__tournament=tournament, round__number=round_number)
                .select_related("table")}
    deals = {table_id: deal_id for deal_id, table_id in Deal.objects.filter(
        match__table_id__in=[p.table_id for p in pairings.values() if p.table_id], number=number,
        finished_at__isnull=False).values_list("pk", "match__table_id")}
    return board, compared, pairings, deals


def entrants_by_id(tournament: Tournament) -> dict[int, Entrant]:
    return {e.pk: e for e in Entrant.objects.filter(tournament=tournament).prefetch_related(_registrations())}


def tournaments_for(user, invited: set[int]):
    """The tournaments a viewer may see, newest first: public ones, and the private ones
    they organise, entered or were invited to."""
    visible = Q(is_private=False) | Q(pk__in=list(invited))
    if user is not None and user.is_authenticated:
        visible |= Q(organiser=user) | Q(registrations__user=user)
        if user.is_staff:
            visible = Q()
    return Tournament.objects.filter(visible).distinct().select_related("organiser__profile").order_by("-starts_at", "-id")


def now():
    return timezone.now()
