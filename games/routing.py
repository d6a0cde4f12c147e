"""WebSocket routes. The lobby's live list, the live table, a replay's analysis progress."""

from django.urls import path

from games.analysis import consumer as analysis_consumer
from games.live import consumer
from games.tables import consumers

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi(), name="ws_lobby"),
    path("ws/tables/<int:table_id>/", consumer.TableConsumer.as_asgi(), name="ws_table"),
    path("ws/analysis/deals/<int:deal_id>/", analysis_consumer.AnalysisConsumer.as_asgi(), name="ws_analysis"),
]
