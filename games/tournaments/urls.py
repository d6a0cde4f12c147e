from django.urls import path

from games.tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("new/", views.create, name="create"),
    path("invitation/<str:code>/", views.invitation, name="invitation"),
    path("tables/<int:table_id>/", views.of_table, name="of_table"),
    path("<int:tournament_id>/", views.detail, name="detail"),
    path("<int:tournament_id>/live/", views.live, name="live"),
    path("<int:tournament_id>/register/", views.register, name="register"),
    path("<int:tournament_id>/withdraw/", views.withdraw, name="withdraw"),
    path("<int:tournament_id>/cancel/", views.cancel, name="cancel"),
    path("<int:tournament_id>/partner/<str:code>/", views.partner, name="partner"),
    path("<int:tournament_id>/rounds/<int:round_number>/boards/<int:number>/", views.board, name="board"),
    path("<int:tournament_id>/pairs/<int:number>/", views.entrant, name="entrant"),
]
