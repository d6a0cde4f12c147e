"""The server processes' garbage collector: what they load at start-up is set aside.

CPython's full collection (its oldest generation) walks every container object alive:
in a web process, well over a hundred thousand of them are Django's, the site's and the
libraries' modules, classes, functions, URL patterns, compiled templates and message
catalogues, all loaded at start-up and kept until the process ends. Each full collection
stops the whole process while it walks them: 77-87 ms on this machine, in the middle of
a step, which every page of the table then waits for (scripts/bench_live.md, "7 Dec,
fourth pass").
``gc.freeze()`` moves the objects alive at that moment into a permanent generation that
collections skip; everything created later is collected as before.
"""

from __future__ import annotations

import contextvars
import gc
import logging
from pathlib import Path

log = logging.getLogger(__name__)


def freeze_startup_objects() -> int:
    """Load what the first requests would otherwise load (the URLs, the message
    catalogues of every language, the live table's templates), then freeze every object
    alive. Returns how many objects are frozen. Call once the process has set Django up.

    The loading runs in a context of its own (``contextvars``): Django's URL resolvers
    each keep a flag in an ``asgiref.local.Local`` while they populate, one context
    variable per resolver (33 here). Set in the process's main context, every connection's
    task would inherit them, and asgiref copies and restores every variable of a task's
    context at each crossing between the event loop and a thread (``sync_to_async``,
    ``async_to_sync``): four times a step, 7.5% of a web process's CPU at 100 tables
    (scripts/bench_live.md, "8 Dec").
    """
    contextvars.copy_context().run(_load_startup_objects)
    gc.collect()
    gc.freeze()
    count = gc.get_freeze_count()
    log.debug("%d objects loaded at start-up set aside from garbage collection", count)
    return count


def _load_startup_objects() -> None:
    from django.conf import settings
    from django.template.loader import get_template
    from django.urls import get_resolver
    from django.utils import translation

    get_resolver().url_patterns  # noqa: B018 (imports every URLconf)
    get_resolver().reverse_dict  # noqa: B018 (builds the reverse lookups)
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Pass")
    for path in sorted((Path(settings.BASE_DIR) / "templates" / "live").glob("*.html")):
        get_template(f"live/{path.name}")
