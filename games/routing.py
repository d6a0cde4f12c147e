"""WebSocket routes. The live table's consumer joins these next to the lobby's."""

from django.urls import path

from . import consumers

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi(), name="ws_lobby"),
]
