"""WebSocket routes. The lobby's live list and the live table."""

from django.urls import path

from . import consumers, table_consumer

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi(), name="ws_lobby"),
    path("ws/tables/<int:table_id>/", table_consumer.TableConsumer.as_asgi(), name="ws_table"),
]
