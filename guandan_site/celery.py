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

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_site.settings")

app = Celery("guandan_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Finds ``tasks.py`` in every installed app, the live table's games/tasks.py included.
app.autodiscover_tasks()
