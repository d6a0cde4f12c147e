from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PlayersConfig(AppConfig):
    """How each player plays and ranks: match ratings (R10.10), each player's record of
    deals, season standings and leaderboards (R10.11), and the player pages."""

    name = "games.players"
    label = "players"
    verbose_name = _("Players")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from games.players import export, signals  # noqa: F401  (season points follow the ledger; export sections)
