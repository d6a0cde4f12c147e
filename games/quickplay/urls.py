from django.urls import path

from games.quickplay import views

app_name = "quickplay"

urlpatterns = [
    path("", views.play, name="play"),
    path("cancel/", views.cancel, name="cancel"),
    path("with/<str:code>/", views.invite, name="invite"),
]
