"""What the tournament pages show, for one viewer: built from the selectors, shared by
the views and the tournament's socket (which sends ``#trn-live`` again at each change).

Nothing here shows a board before its round has ended (R13.6): while a round is in
play the page shows each table's progress (how many boards it has finished), never a
result; standings, comparisons and replays come with the round's end.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from games.engine.cards import sort_key
from games.engine.reading import shown_rank
from games.tables.selectors import Viewer

from . import scoring, selectors
from .models import Entrant, Pairing, Round, Tournament


def pair_name(entrant: Entrant | None) -> str:
    if entrant is None:
        return ""
    if entrant.is_bot_pair:
        return _("Bot pair")
    names = [r.name for r in entrant.registrations.all()]
    return _(" & ").join(names) if names else _("Pair %(number)s") % {"number": entrant.number}


def percent(value) -> str:
    """A score as the pages show it: a percentage to two places (R13.4)."""
    fraction = Fraction(value[0], value[1]) if isinstance(value, (list, tuple)) else Fraction(value)
    return f"{float(fraction):.2f}"


def signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value)


@dataclass
class You:
    """The viewer's own part of the page."""

    entrant: Entrant | None
    partner_url: str
    can_register: bool
    register_refusal: str
    can_withdraw: bool
    table_url: str
    table_round: int
    table_number: int
    absent: bool


def _you(tournament: Tournament, user, invited: bool, request_url) -> You:
    from . import policies

    now = timezone.now()
    entrant = selectors.entrant_of(tournament, user)
    profile = getattr(user, "profile", None) if user is not None and user.is_authenticated else None
    refusal = ""
    if user is not None and user.is_authenticated and entrant is None and tournament.status == Tournament.Status.REGISTERING:
        refusal = policies.refuse_register(tournament=tournament, profile=profile, now=now, registered=False,
                                           invited=invited or user.is_staff or tournament.organiser_id == user.pk) or ""
    partner_url = ""
    if entrant is not None and entrant.partner_code and request_url is not None:
        partner_url = request_url(reverse("tournaments:partner", args=[tournament.pk, entrant.partner_code]))
    table_url, table_round, table_number, absent = "", 0, 0, False
    if entrant is not None and tournament.current_round and tournament.status == Tournament.Status.RUNNING \
            and tournament.round_set.filter(number=tournament.current_round, status=Round.Status.PLAYING).exists():
        pairing = (Pairing.objects.filter(round__tournament=tournament, round__number=tournament.current_round)
                   .filter(ns=entrant).first()
                   or Pairing.objects.filter(round__tournament=tournament, round__number=tournament.current_round,
                                             ew=entrant).first())
        if pairing is not None and pairing.table_id:
            table_url = reverse("games:table", args=[pairing.table_id])
            table_round, table_number = tournament.current_round, pairing.number
            absent = user.pk in (pairing.absent or [])
    return You(
        entrant=entrant, partner_url=partner_url,
        can_register=user is not None and user.is_authenticated and entrant is None
        and tournament.status == Tournament.Status.REGISTERING and not refusal,
        register_refusal=refusal,
        can_withdraw=entrant is not None and policies.refuse_withdraw(
            tournament=tournament, now=now, registered=True) is None,
        table_url=table_url, table_round=table_round, table_number=table_number, absent=absent,
    )


def live_context(tournament: Tournament, user, *, invited: bool = False, request_url=None) -> dict:
    """Everything ``tournaments/_live.html`` draws, for ``user``."""
    tournament.refresh_from_db()
    viewer = Viewer(user=user)
    entrants = selectors.entrants_by_id(tournament)
    rounds = selectors.rounds_of(tournament)
    standings_round, rows = selectors.latest_standings(tournament)
    standings = []
    for row in rows:
        entrant = entrants.get(row["entrant"])
        if entrant is None:
            continue
        standings.append({
            "rank": row["rank"], "shared": row["shared"], "entrant": entrant, "name": pair_name(entrant),
            "score": percent(row["score"]) if tournament.format == Tournament.Format.DUPLICATE
            else signed(row["score"][0] // row["score"][1]),
            "match_points": row["match_points"], "top": row["top"],
            "opponents": percent(row["opponents"]) if tournament.format == Tournament.Format.DUPLICATE
            else str(row["opponents"][0] // row["opponents"][1]),
            "boards": row["boards"],
        })
    current = next((r for r in rounds if r.status != Round.Status.FINISHED), None)
    tables = selectors.table_rows(current, viewer) if current is not None and current.status == Round.Status.PLAYING else []
    pairings = list(current.pairings.all()) if current is not None and current.status == Round.Status.PAIRED else []
    finished_rounds = [r for r in rounds if r.status == Round.Status.FINISHED]
    playing = [e for e in entrants.values() if e.number is not None and not e.is_bot_pair]
    waiting = [e for e in entrants.values() if e.number is None and not e.left_out]
    left_out = [e for e in entrants.values() if e.left_out]
    return {
        "tournament": tournament,
        "user": user,
        "you": _you(tournament, user, invited, request_url),
        "standings": standings,
        "standings_round": standings_round,
        "current": current,
        "tables": tables,
        "pairings": pairings,
        "finished_rounds": finished_rounds,
        "board_numbers": list(range(1, tournament.boards_per_round + 1)),
        "pairs": sorted(playing, key=lambda e: e.number),
        "registered": sorted(waiting, key=lambda e: e.created_at),
        "left_out": left_out,
        "has_bot_pair": any(e.is_bot_pair for e in entrants.values()),
        "is_duplicate": tournament.format == Tournament.Format.DUPLICATE,
    }


def board_context(tournament: Tournament, round_number: int, number: int):
    """The board page (R13.6): the board, who held which cards, each table's result with
    its match points, and every table's replay of it."""
    from games.live.render import cards_context

    found = selectors.board_page(tournament, round_number, number)
    if found is None:
        return None
    board, compared, pairings, deals = found
    entrants = selectors.entrants_by_id(tournament)
    rows = []
    by_table: dict[int, dict] = {}
    for c in compared:
        row = by_table.setdefault(c.table, {"table": c.table})
        row[c.direction] = {"name": pair_name(entrants.get(c.entrant)), "entrant": entrants.get(c.entrant),
                            "score": signed(c.score), "match_points": c.match_points, "top": c.top,
                            "marked": c.marked}
    for table_number in sorted(by_table):
        row = by_table[table_number]
        pairing = pairings.get(table_number)
        row["deal_id"] = deals.get(pairing.table_id) if pairing is not None else None
        rows.append(row)
    hands = [{"number": seat + 1, "team": "A" if seat % 2 == 0 else "B",
              "cards": cards_context(sorted(board.hands[seat], key=lambda c: sort_key(c, board.level), reverse=True),
                                     board.level)} for seat in range(4)]
    return {"board": board, "rows": rows, "hands": hands, "level": shown_rank(board.level),
            "leader": board.leader + 1, "is_duplicate": tournament.format == Tournament.Format.DUPLICATE}


def entrant_context(tournament: Tournament, entrant: Entrant) -> dict:
    """An entrant's page: each finished round's opponent and boards, with results and
    match points (R13.4), and the round in play (its opponent only, R13.6)."""
    entrants = selectors.entrants_by_id(tournament)
    finished = [r.number for r in tournament.round_set.filter(status=Round.Status.FINISHED)]
    compared = scoring.compare(selectors.board_results(tournament, rounds=finished), tournament.format)
    rounds = []
    for round_ in tournament.round_set.order_by("number"):
        pairing = (Pairing.objects.filter(round=round_, ns=entrant).first()
                   or Pairing.objects.filter(round=round_, ew=entrant).first())
        if pairing is None:
            continue
        opponent = entrants.get(pairing.ew_id if pairing.ns_id == entrant.pk else pairing.ns_id)
        boards = []
        if round_.status == Round.Status.FINISHED:
            for (r, b), rows in compared.items():
                if r != round_.number:
                    continue
                for c in rows:
                    if c.entrant == entrant.pk:
                        boards.append({"number": b, "score": signed(c.score), "match_points": c.match_points,
                                       "top": c.top, "marked": c.marked})
        rounds.append({"round": round_, "pairing": pairing, "opponent": opponent,
                       "opponent_name": pair_name(opponent),
                       "seats": _("seats 1 & 3") if pairing.ns_id == entrant.pk else _("seats 2 & 4"),
                       "boards": sorted(boards, key=lambda b: b["number"]),
                       "total_points": sum(b["match_points"] for b in boards),
                       "total_top": sum(b["top"] for b in boards),
                       "total_score": signed(sum(int(b["score"]) for b in boards))})
    _round, rows = selectors.latest_standings(tournament)
    standing = next((row for row in rows if row["entrant"] == entrant.pk), None)
    return {"tournament": tournament, "entrant": entrant, "name": pair_name(entrant), "rounds": rounds,
            "standing": standing, "score": percent(standing["score"]) if standing else "",
            "is_duplicate": tournament.format == Tournament.Format.DUPLICATE}
