"""What a web process does when gunicorn loads planner_site.wsgi, checked in a fresh
process as gunicorn would load it."""

import json
import os
import subprocess
import sys

from tests.conftest import REPO_ROOT

PROBE = """
import gc, json, sys
import planner_site.wsgi
print(json.dumps({
    "switch_interval_s": sys.getswitchinterval(),
    "frozen_objects": gc.get_freeze_count(),
    "urlconf_loaded": "planner_site.urls" in sys.modules,
}))
"""


def test_a_web_process_boots_warm_with_its_startup_objects_frozen() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "planner_site.settings.test"}
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    booted = json.loads(result.stdout.strip().splitlines()[-1])

    assert booted["switch_interval_s"] == 0.0005
    assert booted["urlconf_loaded"]  # the warm-up imported every view
    # The full collection no longer walks what the boot loaded (Django, the engine, views).
    assert booted["frozen_objects"] > 50_000
