"""Tell live pages that a table changed, once the change is committed.

Only an event travels ("table 17 changed"); each consumer renders its own viewer's HTML
(docs/architecture.md). Group names: ``lobby`` for every lobby page, ``table-<id>`` for the
pages of one table.
"""

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

LOBBY_GROUP = "lobby"


def table_group(table_id: int) -> str:
    """The channel group of one table's pages."""
    return f"table-{table_id}"


def send_table_changed(table_id: int) -> None:
    """Send the change events now (call after commit).

    While a deal is on, the table's event also carries its public fragments, rendered
    once here for every page (in the site's default language) from the spectator's view,
    so they can hold no hidden card; each consumer adds only its viewer's own part.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(LOBBY_GROUP, {"type": "lobby.changed", "table_id": table_id})
    event = {"type": "table.changed", "table_id": table_id}
    event.update(_public_fragments(table_id))
    async_to_sync(layer.group_send)(table_group(table_id), event)


def _public_fragments(table_id: int) -> dict:
    from django.conf import settings
    from django.utils import translation

    from .models import Table
    from .play import current_deal
    from .table_render import render_public

    table = Table.objects.filter(pk=table_id).first()
    deal = current_deal(table) if table is not None else None
    if deal is None:
        return {}
    with translation.override(settings.LANGUAGE_CODE):
        return {"public": render_public(table, deal), "language": settings.LANGUAGE_CODE, "seq": deal.seq,
                "deal": deal.pk}


def announce_table_changed(table_id: int) -> None:
    """Send the change events when the current transaction commits (never before the data
    is durable), or at once outside a transaction."""
    transaction.on_commit(lambda: send_table_changed(table_id))
