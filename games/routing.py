"""WebSocket routes. The lobby's live list and the live table."""

from django.urls import path

from games.live import consumer
from games.tables import consumers

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi(), name="ws_lobby"),
    path("ws/tables/<int:table_id>/", consumer.TableConsumer.as_asgi(), name="ws_table"),
]
