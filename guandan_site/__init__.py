"""The Guandan site project package.

Importing the Celery app here makes ``@shared_task`` functions bind to it whenever Django
starts, in web processes and workers alike.
"""

from .celery import app as celery_app

__all__ = ("celery_app",)
