"""Settings shared by every environment.

The environment is read here and nowhere else (see docker/.env.example for the list).
Defaults are safe for a single machine with nothing installed: a SQLite file and
kombu's filesystem broker under ``var/``, so ``bin/run`` still starts a real worker.
"""

from pathlib import Path

import environ
from csp.constants import NONE, SELF

BASE_DIR = Path(__file__).resolve().parent.parent.parent
env = environ.Env()

# Runtime state of the embedded default (SQLite file, filesystem broker, static files).
VAR_DIR = Path(env("PLANNER_VAR_DIR", default=str(BASE_DIR / "var")))

SECRET_KEY = env("SECRET_KEY", default="django-insecure-local-only-never-in-production")
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_results",
    "import_export",
    "django_htmx",
    "catalog",
    "simulator",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A lost database or cache answers 503 with Retry-After (JSON for the API), not a 500.
    "planner_site.middleware.ServiceUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
]

# Content-Security-Policy (django-csp): scripts, styles and data only from this site. The
# pages keep no inline code: chart data travels in json_script blocks (inert JSON, not
# executed), htmx's own indicator <style> is switched off in base.html (site.css has it),
# and Swagger UI runs from the sidecar's files through the split view.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        # Swagger UI's and the admin's icons are data: URIs inside their stylesheets.
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

ROOT_URLCONF = "planner_site.urls"
WSGI_APPLICATION = "planner_site.wsgi.application"
ASGI_APPLICATION = "planner_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------------
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'planner.sqlite3'}"),
}
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not :memory:, so that worker processes started by the tests see the same
    # test database as the test process. SQLite does not create missing folders.
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-planner.sqlite3")}
    # Web and worker processes write concurrently: IMMEDIATE transactions wait for the
    # write lock (up to the timeout) instead of failing with "database is locked" when a
    # read transaction upgrades, and WAL lets readers proceed beside the writer.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env.int(
        "DATABASE_CONNECT_TIMEOUT_S", default=3
    )
    if "postgresql" in DATABASES["default"]["ENGINE"]:
        # No JIT: every query here is short. On tables not yet analysed, PostgreSQL's row
        # estimates for a build's lines joined to the nine part tables pass jit_above_cost,
        # and compiling took 580 ms for a 1 ms query (docs/benchmarks.md, "Third round").
        DATABASES["default"]["OPTIONS"]["options"] = "-c jit=off"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Throttle counters live here: Redis in production so every process shares them.
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
if CACHES["default"]["BACKEND"].endswith("RedisCache"):
    # A Redis that does not answer fails the request in a second (a 503, see
    # planner_site/middleware.py) instead of holding a web thread for the OS's TCP timeout.
    CACHES["default"].setdefault("OPTIONS", {}).update(
        {"socket_connect_timeout": 1, "socket_timeout": 1}
    )

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env("STATIC_ROOT", default=str(VAR_DIR / "static")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# --- REST API -----------------------------------------------------------------------
REST_FRAMEWORK = {
    # Nothing is public unless a view says so (AllowAny / read-only on that view).
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {
        "simulate_anon": env("SIMULATE_ANON_RATE", default="30/min"),
    },
    "DEFAULT_PARSER_CLASSES": ["planner_site.api_parsers.LimitedJSONParser"],
    # Clients are told apart by REMOTE_ADDR unless this many proxies are trusted to append
    # to X-Forwarded-For: a client cannot dodge throttling by rotating that header.
    "NUM_PROXIES": env.int("TRUSTED_PROXY_COUNT", default=0),
    "EXCEPTION_HANDLER": "planner_site.api_errors.api_exception_handler",
}
# The price-list import needs catalog.import_priceobservation (see catalog/models/prices.py).
IMPORT_EXPORT_IMPORT_PERMISSION_CODE = "import"
# The largest request body Django reads (bytes); API bodies are small JSON documents.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=256 * 1024)
SPECTACULAR_SETTINGS = {
    "TITLE": "LLM build planner API",
    "DESCRIPTION": "Parts catalog, simulations and build rankings for LLM fine-tuning.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI's files come from the drf-spectacular-sidecar package: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "planner_site.openapi.add_error_responses",
    ],
    "COMPONENT_SPLIT_REQUEST": True,
}

# --- Celery -------------------------------------------------------------------------
# Read by planner_site/celery.py through the CELERY_ namespace.
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="filesystem://")
CELERY_RESULT_BACKEND = "django-db"
CELERY_RESULT_EXTENDED = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT_S", default=300)
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT_S", default=360)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_TASK_TRACK_STARTED = True

BROKER_DIR = VAR_DIR / "broker"
if CELERY_BROKER_URL.startswith("filesystem://"):
    # One folder for both directions: producer and worker share it on this machine.
    # `control_folder` carries broadcast messages (inspect/ping) between processes.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "control_folder": str(BROKER_DIR / "control"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "store_processed": False,
    }
else:
    # A task running past the visibility timeout is redelivered: keep it at twice the
    # hard time limit (house-style.md, "Known pitfalls"). Messages of a worker that died
    # are restored once it has passed; the tests shorten both to run in seconds.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env.int(
            "CELERY_VISIBILITY_TIMEOUT_S", default=2 * CELERY_TASK_TIME_LIMIT
        ),
        "unacked_restore_interval": env.int("CELERY_UNACKED_RESTORE_INTERVAL_S", default=10),
        # kombu scans only every Nth interval by default (10): scan every interval.
        "unacked_restore_throttle": 1,
        "socket_connect_timeout": 3,
        "socket_timeout": 5,
    }

# The periodic sweep (simulator.runs_sweep) re-sends rankings that stopped making progress
# and fails those tried RUN_MAX_ATTEMPTS times. A worker computing a chunk stamps its run
# every RUN_HEARTBEAT_S, however long the chunk takes; a run with no stored chunk, heartbeat
# or re-send for RUN_SWEEP_STALE_AFTER_S (four heartbeats) lost its worker. Checked every
# RUN_SWEEP_INTERVAL_S: a ranking whose worker was killed is sent again within about 30 s.
RUN_HEARTBEAT_S = env.float("RUN_HEARTBEAT_S", default=5.0)
RUN_SWEEP_INTERVAL_S = env.int("RUN_SWEEP_INTERVAL_S", default=10)
RUN_SWEEP_STALE_AFTER_S = env.int("RUN_SWEEP_STALE_AFTER_S", default=20)
RUN_MAX_ATTEMPTS = env.int("RUN_MAX_ATTEMPTS", default=5)
CELERY_BEAT_SCHEDULE = {
    "runs-sweep": {
        "task": "simulator.runs_sweep",
        "schedule": RUN_SWEEP_INTERVAL_S,
        # Sweeps piled up while no worker ran are dropped, not run back to back.
        "options": {"expires": RUN_SWEEP_INTERVAL_S},
    },
}
# An interval schedule needs no persisted state: no schedule file to place or lock.
CELERY_BEAT_SCHEDULER = "celery.beat:Scheduler"

# The CPU time a single simulation may take in a web request (simulator/services/cost.py
# estimates it first and refuses more with a 400; the engine stops it at the limit should the
# estimate fall short): anonymous clients, signed-in users. A ranking is queued for the
# workers when its estimated CPU time is within RANKING_MAX_CPU_S.
SIMULATE_ANON_CPU_S = env.float("SIMULATE_ANON_CPU_S", default=1.0)
SIMULATE_USER_CPU_S = env.float("SIMULATE_USER_CPU_S", default=10.0)
RANKING_MAX_CPU_S = env.float("RANKING_MAX_CPU_S", default=600.0)
# A price observed longer ago than this is flagged stale on the pages and in the API, and a
# ranking may be asked to leave such prices out (`exclude_stale`).
PRICE_STALE_AFTER_DAYS = env.int("PRICE_STALE_AFTER_DAYS", default=180)
# Ranking runs that may wait (queued or running) before new ones are refused with 429.
RANKING_QUEUE_MAX = env.int("RANKING_QUEUE_MAX", default=20)
# Candidate builds per ranking task (simulator/services/rankings.py): training runs on the
# engine's vectorised batch path (500 builds in tens of milliseconds), serving searches
# placements build by build. Enough work per task to dwarf the broker round trip.
RANKING_CHUNK_SIZE_TRAIN = env.int("RANKING_CHUNK_SIZE_TRAIN", default=500)
RANKING_CHUNK_SIZE_INFER = env.int("RANKING_CHUNK_SIZE_INFER", default=150)
# POST /api/simulate requests one web process works on at once; the rest wait up to
# SIMULATE_SLOT_WAIT_S, then get 503 with Retry-After (simulator/concurrency.py).
SIMULATE_CONCURRENCY = env.int("SIMULATE_CONCURRENCY", default=1)
SIMULATE_SLOT_WAIT_S = env.float("SIMULATE_SLOT_WAIT_S", default=10.0)

# Seconds /healthz waits for the broker and for a worker to answer a ping.
HEALTHZ_BROKER_TIMEOUT_S = env.float("HEALTHZ_BROKER_TIMEOUT_S", default=2.0)
HEALTHZ_WORKER_TIMEOUT_S = env.float("HEALTHZ_WORKER_TIMEOUT_S", default=2.0)
# How long a worker's answer to ping counts as "alive" in a web process, and what a 503 tells
# a load balancer to wait.
HEALTHZ_WORKER_CACHE_S = env.float("HEALTHZ_WORKER_CACHE_S", default=10.0)
HEALTHZ_RETRY_AFTER_S = env.int("HEALTHZ_RETRY_AFTER_S", default=5)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
}
