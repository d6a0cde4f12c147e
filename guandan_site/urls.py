from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy as _

from accounts import views as account_views

admin.site.site_header = _("Guandan administration")
admin.site.site_title = _("Guandan admin")

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("", include("games.players.urls")),
    path("i18n/setlang/", account_views.set_language, name="set_language"),
    path("rules/", include("games.rules.urls")),
    path("practice/", include("games.practice.urls")),
    path("play/", include("games.quickplay.urls")),
    path("tournaments/", include("games.tournaments.urls")),
    path("", include("games.replays.urls")),
    path("", include("games.analysis.urls")),
    path("", include("games.tables.urls")),
]
