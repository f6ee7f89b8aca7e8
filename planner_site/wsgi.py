"""WSGI entry point (gunicorn planner_site.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner_site.settings")

application = get_wsgi_application()
