"""Template context every page shares."""

from games.tables.selectors import continue_table_of


def current_table(request):
    """``continue_table``: where the signed-in player sits (or may come back to), for the
    "Continue" link in the header. Loaded lazily, so pages that never show it pay nothing."""
    cache = {}

    def load():
        if "table" not in cache:
            user = getattr(request, "user", None)
            cache["table"] = continue_table_of(user) if user is not None and user.is_authenticated else None
        return cache["table"]

    return {"continue_table": load}
