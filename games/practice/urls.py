"""The practice arena's addresses (R10.4), included under ``practice/``."""

from django.urls import path

from games.practice import views

app_name = "practice"

urlpatterns = [
    path("", views.home, name="home"),
    path("start/", views.start, name="start"),
    path("drills/<slug:drill_id>/", views.drill_page, name="drill"),
    path("drills/<slug:drill_id>/act/", views.drill_act, name="drill_act"),
    path("drills/<slug:drill_id>/reset/", views.drill_reset, name="drill_reset"),
    path("tables/<int:table_id>/speed/", views.table_speed, name="table_speed"),
    path("tables/<int:table_id>/level/", views.table_level, name="table_level"),
]
