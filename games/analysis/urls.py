"""Analysis addresses (namespace ``analysis``).

- ``analysis:request`` ``POST /replays/deals/<deal_id>/analysis/``: ask for a finished
  deal's analysis (its players and staff).
"""

from django.urls import path

from games.analysis import views

app_name = "analysis"

urlpatterns = [
    path("replays/deals/<int:deal_id>/analysis/", views.request_analysis, name="request"),
]
