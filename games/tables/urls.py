from django.urls import path

from games.tables import views

app_name = "games"

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("lobby/tables/", views.lobby_tables, name="lobby_tables"),
    path("continue/", views.continue_playing, name="continue"),
    path("tables/new/", views.create_table, name="create_table"),
    path("tables/<int:table_id>/", views.table_page, name="table"),
    path("tables/<int:table_id>/live/", views.table_live, name="table_live"),
    path("tables/<int:table_id>/seat/", views.take_seat, name="take_seat"),
    path("tables/<int:table_id>/leave/", views.leave_seat, name="leave_seat"),
    path("tables/<int:table_id>/return/", views.return_to_seat, name="return_to_seat"),
    path("tables/<int:table_id>/fill-bots/", views.fill_with_bots, name="fill_with_bots"),
    path("tables/<int:table_id>/start/", views.start_match, name="start_match"),
    path("tables/<int:table_id>/close/", views.close_table, name="close_table"),
    path("join/", views.join_by_code, name="join_by_code"),
    path("join/<str:code>/", views.join_invite, name="join_invite"),
]
