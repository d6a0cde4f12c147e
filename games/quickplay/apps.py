from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuickPlayConfig(AppConfig):
    """Quick play (快速开始, R10.9): each tier's queue of players waiting for a match
    table, and the matcher that seats them."""

    name = "games.quickplay"
    label = "quickplay"
    verbose_name = _("Quick play")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from games.quickplay import tasks  # noqa: F401  (registers the matcher's task)
