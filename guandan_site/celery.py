"""The Celery application of the site.

Configured from Django settings (every ``CELERY_*`` setting), so the broker is Redis when
``REDIS_URL`` is set and an in-memory transport otherwise. In the embedded default no worker
runs: the live table schedules the same task functions on the server's own event loop
(``settings.GUANDAN_SCHEDULER == "inprocess"``). Start a worker in production with::

    celery -A guandan_site worker --loglevel=info
    celery -A guandan_site beat --loglevel=info
"""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_site.settings")

app = Celery("guandan_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
# The live table's tasks (games/live/tasks.py); GamesConfig.ready imports them too.
app.autodiscover_tasks(["games.live", "games.analysis", "games.tournaments", "accounts"])


# Celery closes a prefork worker's database connections after every task, and with them
# the process's connection pool (settings: the site pools its PostgreSQL connections), so
# every bot move would connect afresh. With a reuse count it closes them only every
# 2 x DB_REUSE_MAX tasks; between tasks each connection goes back to the pool instead,
# exactly as at the end of a web request (``_return_connections``).
app.conf.CELERY_DB_REUSE_MAX = 5000


@task_prerun.connect
@task_postrun.connect
def _return_connections(**_kwargs) -> None:
    from django.db import close_old_connections

    close_old_connections()


@worker_process_init.connect
def _set_up_worker_process(**_kwargs) -> None:
    """A new worker process (or the solo pool's thread) starts clean.

    Its open database connections go back to the pool first: Celery's own handler, which
    runs next, closes their file descriptors behind the connections' backs (right for
    connections inherited through a fork, wrong for pooled ones, which would be handed out
    again with a dead or reused descriptor). Then announcements are sent from one
    long-lived event loop, reusing the channel-layer connections
    (``games.live.broadcast.use_sender_loop``), and what the process has loaded is set
    aside from garbage collection.
    """
    from django.db import connections

    from games.live.broadcast import use_sender_loop

    connections.close_all()
    use_sender_loop()
    # A worker runs bot moves and timers through the door: full garbage collections
    # skip what it loaded at start-up (guandan_site/memory.py).
    from guandan_site.memory import freeze_startup_objects

    freeze_startup_objects()
