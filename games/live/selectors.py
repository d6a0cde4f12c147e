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


# The door's first statement for every action: the table's lock and the deal in play, in
# one round trip. Both rows are locked (``FOR UPDATE OF t, d``, the table's row first), so
# a door that waited for the lock reads the deal as the previous holder left it:
# PostgreSQL re-reads locked rows that changed during the wait (and drops the row when
# the deal finished meanwhile), where a row merely joined would come from before the
# wait. The snapshot (``state``) is left out when the caller already holds the step
# ``known`` (this process's newest scene of the table), so a step costs neither its
# transfer nor its parsing.
_TABLE_FIELDS = list(Table._meta.concrete_fields)
_DEAL_FIELDS = [f for f in Deal._meta.concrete_fields if f.name in (
    "id", "match", "number", "state", "seq", "deadline", "clock_at", "result", "finished_at")]


def _columns(fields, alias: str, offset: int) -> str:
    names = []
    for field in fields:
        column = f'{alias}."{field.column}"'
        if field.name == "state":
            column = f'CASE WHEN {alias}."seq" = %s THEN NULL ELSE {column} END'
        names.append(f'{column} AS "c{offset + len(names)}"')
    return ", ".join(names)


_LOCK_STEP = (
    f"SELECT {_columns(_TABLE_FIELDS, 't', 0)}, {_columns(_DEAL_FIELDS, 'd', len(_TABLE_FIELDS))}, "
    f'm."status", m."winner_team" '
    f'FROM "{Table._meta.db_table}" t '
    f'INNER JOIN "{Match._meta.db_table}" m ON m."table_id" = t."id" '
    f'INNER JOIN "{Deal._meta.db_table}" d ON d."match_id" = m."id" '
    f'WHERE t."id" = %s AND d."id" = %s AND d."finished_at" IS NULL'
)


# Each field's converters from the database's values (what the ORM applies to a row it
# reads), found once per process and connection alias: finding them took most of the
# time of building the door's two instances (117 us a step, 21 us with them kept).
# Kept by the identity of the fields list: ``fields`` is one of this module's lists.
_CONVERTERS: dict[tuple[int, str], tuple[list[str], list[tuple]]] = {}


def _from_row(model, fields, values, connection):
    key = (id(fields), connection.alias)
    found = _CONVERTERS.get(key)
    if found is None:
        columns = [field.get_col(model._meta.db_table) for field in fields]
        found = _CONVERTERS[key] = (
            [f.attname for f in fields],
            [(col, connection.ops.get_db_converters(col) + col.get_db_converters(connection)) for col in columns],
        )
    attnames, converters = found
    converted = []
    for (col, convert_all), value in zip(converters, values):
        for convert in convert_all:
            value = convert(value, col, connection)
        converted.append(value)
    return model.from_db(connection.alias, attnames, converted)


def lock_step(table_id: int, deal_id: int, *, known: int | None = None) -> tuple[Table, Deal] | None:
    """Lock table ``table_id`` and read its deal ``deal_id`` if that deal is in progress
    (else None, and nothing is locked): the door's read, in one statement. The deal's
    ``state`` is None when its ``seq`` is ``known``; the deal's other fields the door does
    not use are deferred (read if touched), and it carries what the pages show of its
    match (``match_status``, ``match_winner``), so the match itself loads only if used."""
    from django.db import connection

    sql = _LOCK_STEP
    if connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF t, d"
    with connection.cursor() as cursor:
        cursor.execute(sql, [-1 if known is None else known, table_id, deal_id])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(_TABLE_FIELDS)
    table = _from_row(Table, _TABLE_FIELDS, row[:split], connection)
    deal = _from_row(Deal, _DEAL_FIELDS, row[split:split + len(_DEAL_FIELDS)], connection)
    deal.match_status, deal.match_winner = row[-2], row[-1]
    return table, deal
