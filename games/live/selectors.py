"""Reads of the deal in play: the table's current deal, its state, a player's seat, a
seat's view. Used by the door, the rendering and the pages; they change nothing."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import OuterRef, Subquery

from games.engine.deal import DealState
from games.engine.replay import state_from_json
from games.engine.views import view_for
from games.models import Deal, Match, Seat, Table


def current_deal(table: Table) -> Deal | None:
    """The newest deal of the table's newest match (finished or not), or None."""
    return Deal.objects.filter(match__table=table).select_related("match").order_by("-match__number", "-number").first()


_DEAL_IN_PLAY = (
    f'SELECT d.*, m.status AS match_status, m.winner_team AS match_winner FROM "{Deal._meta.db_table}" d '
    f'INNER JOIN "{Match._meta.db_table}" m ON m.id = d.match_id '
    f"WHERE d.id = %s AND m.table_id = %s AND d.finished_at IS NULL"
)


def deal_in_play(table_id: int, deal_id: int) -> Deal | None:
    """The deal ``deal_id`` if it is the table's deal in progress (a deal in progress is
    always its table's newest), else None; with what the pages show of its match
    (``match_status``, ``match_winner``; the match itself loads when used). The door's
    one read of the deal, run for every action: one plain statement, where the newest
    deal by its match's and its own number cost the ORM a join, an ordering and their
    compilation every time."""
    return next(iter(Deal.objects.raw(_DEAL_IN_PLAY, [deal_id, table_id])), None)


def deal_state(deal: Deal) -> DealState:
    return state_from_json(deal.state)


def seat_of(table: Table, user) -> Seat | None:
    if user is None or not user.is_authenticated:
        return None
    return table.seats.filter(user=user).first()


def view_of(deal: Deal, seat: int | None) -> dict:
    """What ``seat`` may see of the deal now (engine ``view_for``)."""
    return view_for(state_from_json(deal.state), seat)


def newest_steps(table_ids: Iterable[int]) -> dict[int, tuple[int, int]]:
    """{table id: (deal id, seq)} of each table's newest deal, for the tables that have
    one, in one query: what a page of that table must have drawn to be up to date. A
    later deal always has a larger id."""
    newest = Deal.objects.filter(match__table_id=OuterRef("pk")).order_by("-match__number", "-number")
    rows = (
        Table.objects.filter(pk__in=list(table_ids))
        .annotate(deal_id=Subquery(newest.values("pk")[:1]), deal_seq=Subquery(newest.values("seq")[:1]))
        .values_list("pk", "deal_id", "deal_seq")
    )
    return {pk: (deal_id, seq) for pk, deal_id, seq in rows if deal_id is not None}
