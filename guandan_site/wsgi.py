"""WSGI entry point, for management tools that expect one. The site itself runs on ASGI
(``guandan_site.asgi``), which it needs for WebSockets."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_site.settings")

application = get_wsgi_application()
