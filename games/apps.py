from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    """Tables and play: the lobby, seating, matches, deals and the action log."""

    name = "games"
    verbose_name = _("Games")

    def ready(self):
        from games import signals  # noqa: F401  (connects the receivers)
        from games.botapi import consumer as bot_consumer  # noqa: F401  (a rotated token closes its bot's sockets)
        from games.analysis import tasks as analysis_tasks  # noqa: F401  (registers the analysis task)
        from games.live import tasks  # noqa: F401  (registers the timers' task functions)
        from games.tables import consumers  # noqa: F401  (logging out ends the session's sockets)
