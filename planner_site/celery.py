"""The Celery application. Configuration lives in settings under the CELERY_ prefix."""

import os
from pathlib import Path
from typing import Any

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner_site.settings")

app = Celery("planner_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_FILESYSTEM_FOLDER_OPTIONS = ("data_folder_in", "data_folder_out", "control_folder")


@app.on_after_configure.connect
def ensure_broker_folders(sender: Celery, **kwargs: Any) -> None:
    """kombu's filesystem transport needs its folders before a producer or worker connects."""
    options = sender.conf.broker_transport_options or {}
    for key in _FILESYSTEM_FOLDER_OPTIONS:
        if key in options:
            Path(options[key]).mkdir(parents=True, exist_ok=True)
