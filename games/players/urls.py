from django.urls import path

from games.players import views

urlpatterns = [
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("players/<str:username>/", views.player_page, name="player_profile"),
]
