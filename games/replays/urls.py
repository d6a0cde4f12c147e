"""Replay and match-history addresses (namespace ``replays``).

- ``replays:deal`` ``/replays/deals/<deal_id>/?step=N&seat=all|1..4``: a deal step by step;
- ``replays:deal_json`` ``/replays/deals/<deal_id>.json``: a finished deal as JSON;
- ``replays:match`` ``/matches/<match_id>/``: a match's deals, results and level changes.
"""

from django.urls import path

from games.replays import views

app_name = "replays"

urlpatterns = [
    path("replays/deals/<int:deal_id>/", views.deal_replay, name="deal"),
    path("replays/deals/<int:deal_id>.json", views.deal_json, name="deal_json"),
    path("matches/<int:match_id>/", views.match_history, name="match"),
]
