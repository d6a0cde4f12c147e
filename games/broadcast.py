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
    """Send the change events now (call after commit)."""
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(LOBBY_GROUP, {"type": "lobby.changed", "table_id": table_id})
    async_to_sync(layer.group_send)(table_group(table_id), {"type": "table.changed", "table_id": table_id})


def announce_table_changed(table_id: int) -> None:
    """Send the change events when the current transaction commits (never before the data
    is durable), or at once outside a transaction."""
    transaction.on_commit(lambda: send_table_changed(table_id))
