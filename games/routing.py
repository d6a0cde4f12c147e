"""WebSocket routes. The lobby's live list, the live table, a replay's analysis progress,
a quick-play player's place in the queue, a tournament's page;
the bot endpoint.

``bot_websocket_urlpatterns`` are served without the browser checks (origin and session,
``guandan_site/asgi.py``): a bot is a program that authenticates with its token
(``games.botapi.consumer``), not a browser carrying the site's cookies.
"""

from django.urls import path

from games.analysis import consumer as analysis_consumer
from games.botapi import consumer as bot_consumer
from games.live import consumer
from games.quickplay import consumer as quickplay_consumer
from games.tables import consumers
from games.tournaments import consumer as tournament_consumer

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi(), name="ws_lobby"),
    path("ws/tables/<int:table_id>/", consumer.TableConsumer.as_asgi(), name="ws_table"),
    path("ws/analysis/deals/<int:deal_id>/", analysis_consumer.AnalysisConsumer.as_asgi(), name="ws_analysis"),
    path("ws/quickplay/", quickplay_consumer.QuickPlayConsumer.as_asgi(), name="ws_quickplay"),
    path("ws/tournaments/<int:tournament_id>/", tournament_consumer.TournamentConsumer.as_asgi(), name="ws_tournament"),
]

bot_websocket_urlpatterns = [
    path("ws/bot/", bot_consumer.BotConsumer.as_asgi(), name="ws_bot"),
]
