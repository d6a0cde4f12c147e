from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    """Tournaments and duplicate play (复式, R13): entrants, boards, rounds, standings."""

    name = "games.tournaments"
    label = "tournaments"
    verbose_name = _("Tournaments")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from games.tables import selectors as table_selectors
        from games.tournaments import selectors, tasks  # noqa: F401  (tasks: registers the timers' functions)

        # Who may watch a tournament's tables and see their deals (R13.6).
        table_selectors.register_kind_rule("tournament", table=selectors.may_watch_table,
                                           match=selectors.may_see_match)
