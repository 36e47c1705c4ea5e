"""capicu settings, driven by environment variables with safe development defaults.

DATABASE_URL  default: SQLite file ``db.sqlite3`` in the project folder
REDIS_URL     unset: Celery runs tasks in-process; set: the real broker and cache
REDIS_CONNECT_TIMEOUT, REDIS_SOCKET_TIMEOUT  seconds before Redis counts as away (0.25, 0.5)
SECRET_KEY    required when DEBUG is off
DEBUG         default on for development; "0"/"false" for production
ALLOWED_HOSTS comma-separated; default localhost names in development
TIME_ZONE     default UTC
LIVE_STREAM   default off; on: the tournament page takes its live parts as a stream
LIVE_STREAMS_PER_ADDRESS, LIVE_FEEDS_PER_PROCESS  caps on a stream server process (50, 200)
BEHIND_PROXY  default off; on only where a reverse proxy in front sets X-Forwarded-Proto
              (and strips the client's): only then does Django believe it says HTTPS
The README's configuration table lists every variable; docs/security.md the limits and the lock-out.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.logging import configuration as log_configuration

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return int(value)


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "capicu-development-only-key-never-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "axes",
    # Below every product app: the job runner they register their background work with.
    "jobs",
    "accounts",
    "scoring",
    "tournaments",
    "players",
    "circuit",
    "operations",
]

MIDDLEWARE = [
    # First: the request id, the request log line and the metrics see every answer.
    "config.middleware.observe",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "accounts.site.SiteAddressMiddleware",
    "config.middleware.refuse_nul",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "tournaments.middleware.TournamentTimeZoneMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as axes asks: it turns a lock-out flagged during authentication into a page.
    "axes.middleware.AxesMiddleware",
]

if not DEBUG:
    # Production serves its collected static files itself; development uses runserver's.
    MIDDLEWARE.insert(2, "whitenoise.middleware.WhiteNoiseMiddleware")

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tournaments.context_processors.staff_invitations",
            ],
            "builtins": [
                "scoring.templatetags.capicu",
                "tournaments.templatetags.standings_tags",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several writers (the dev server, an eager task) share one file: wait for the lock
    # instead of failing, and take the write lock at BEGIN so a transaction that reads
    # before it writes cannot deadlock against another.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    )

if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Server-side parameters let psycopg prepare the statements a hand repeats.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "server_side_binding", env_bool("DB_SERVER_SIDE_BINDING", True)
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# AxesStandaloneBackend refuses a locked-out login before the password is even checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
# Uploaded files (dispute photos): on disk under MEDIA_ROOT by default. They are served
# only through capicu's own views, to those who may see the dispute, never as public media.
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or BASE_DIR / "media")
MEDIA_URL = "media/"
# The STORAGES alias dispute photos are kept in ("default": files under MEDIA_ROOT); add
# another alias to STORAGES (S3 and the like) and name it here to keep them elsewhere.
DISPUTE_PHOTO_STORAGE = os.environ.get("DISPUTE_PHOTO_STORAGE", "default")
DISPUTE_PHOTO_MAX_BYTES = int(os.environ.get("DISPUTE_PHOTO_MAX_BYTES", str(5 * 1024 * 1024)))

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

REDIS_URL = os.environ.get("REDIS_URL", "")

# Players' emails (entries, the waiting list, their tables) go through Django's backends;
# the console prints them until a real backend is set. SITE_URL makes their links whole
# (accounts/site.py).
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "capicu <noreply@localhost>")
# Empty: links start with the address of the request being answered (development).
SITE_URL = os.environ.get("SITE_URL", "").strip()

# Redis is the broker and the cache. While it is away no request may wait on it for
# more than a fraction of a second: every connection gives up quickly, a failed publish
# is retried once, and the cache reads an error as a miss (config/cache.py). A hand is
# saved all the same, and the beat sweep queues the standings once Redis is back.
REDIS_CONNECT_TIMEOUT = float(os.environ.get("REDIS_CONNECT_TIMEOUT", "0.25"))
REDIS_SOCKET_TIMEOUT = float(os.environ.get("REDIS_SOCKET_TIMEOUT", "0.5"))

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "config.cache.ForgivingRedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {
                "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
                "socket_timeout": REDIS_SOCKET_TIMEOUT,
                "retry_on_timeout": False,
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# The tournament page's live parts pushed as Server-Sent Events (tournaments/stream.py):
# turn on where an ASGI server answers /t/<slug>/events/ (see the README). Off, or
# answered by a WSGI server, the page polls every 5 s.
LIVE_STREAM = env_bool("LIVE_STREAM", False)
LIVE_STREAM_TICK = float(os.environ.get("LIVE_STREAM_TICK", "2"))
LIVE_STREAM_HEARTBEAT = float(os.environ.get("LIVE_STREAM_HEARTBEAT", "15"))
LIVE_STREAM_SECONDS = float(os.environ.get("LIVE_STREAM_SECONDS", "300"))
# Past these a stream is refused (429, 503 with Retry-After) and the page polls instead:
# the streams one client address may hold open in a process, and the feeds (distinct
# queries followed) a process keeps, each of which asks for changes once a tick.
LIVE_STREAMS_PER_ADDRESS = env_int("LIVE_STREAMS_PER_ADDRESS", 50)
LIVE_FEEDS_PER_PROCESS = env_int("LIVE_FEEDS_PER_PROCESS", 200)

# Beat queues a heartbeat every HEARTBEAT_SECONDS; /health/ calls the worker or beat
# stopped when its last heartbeat is older than HEARTBEAT_STALE_SECONDS.
HEARTBEAT_SECONDS = env_int("HEARTBEAT_SECONDS", 15)
HEARTBEAT_STALE_SECONDS = env_int("HEARTBEAT_STALE_SECONDS", 60)

# Celery: the real broker when REDIS_URL is set, otherwise every task runs eagerly.
CELERY_BROKER_URL = REDIS_URL or "memory://"
# Nothing reads the standings tasks' results, so none is stored and publishing never
# touches a result backend; only the health check asks for one (capicu.health).
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND_ALWAYS_RETRY = False
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = REDIS_CONNECT_TIMEOUT
CELERY_REDIS_SOCKET_TIMEOUT = REDIS_SOCKET_TIMEOUT
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_CONNECT_TIMEOUT
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 300,
    "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
    "socket_timeout": REDIS_SOCKET_TIMEOUT,
    "retry_on_timeout": False,
}
CELERY_TASK_PUBLISH_RETRY = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0.05,
    "interval_step": 0.1,
    "interval_max": 0.1,
}
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE = {
    # The job runner's sweep (jobs/runner.py): standings, schedules, brackets, series,
    # ratings, ladders and emails that a broker outage or a lost worker left behind.
    "sweep-jobs": {"task": "jobs.sweep", "schedule": 30.0},
    "circuit-schedule": {"task": "circuit.tasks.scheduled_work", "schedule": 60.0},
    "purge-idempotency-keys": {
        "task": "accounts.tasks.purge_idempotency_keys",
        "schedule": 3600.0,
    },
    # /health/ reads the worker's and beat's heartbeats (config/health.py).
    "heartbeat": {"task": "capicu.heartbeat", "schedule": float(HEARTBEAT_SECONDS)},
}

# Backups (operations/backups.py): `manage.py backup` writes one file of the database and
# the uploaded files to BACKUP_DIR and keeps the newest BACKUP_KEEP; beat runs it every
# BACKUP_EVERY seconds while an event is running (0: beat never does).
BACKUP_DIR = Path(os.environ.get("BACKUP_DIR") or BASE_DIR / "backups")
BACKUP_KEEP = env_int("BACKUP_KEEP", 48)
BACKUP_EVERY = env_int("BACKUP_EVERY", 3600)
if BACKUP_EVERY > 0:
    CELERY_BEAT_SCHEDULE["backup"] = {
        "task": "operations.tasks.scheduled_backup",
        "schedule": float(BACKUP_EVERY),
    }

# Rated games a player needs before the leaderboards list them (a page may ask for more).
RATINGS_MIN_GAMES = int(os.environ.get("RATINGS_MIN_GAMES", "5"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: its WWW-Authenticate header makes an anonymous write a 401, not a 403.
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PAGINATION_CLASS": "config.pagination.Pages",
    "PAGE_SIZE": env_int("API_PAGE_SIZE", 50),
    "DEFAULT_SCHEMA_CLASS": "config.schema.AutoSchema",
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    # The API speaks JSON only: form encodings would make every field a string and
    # every list ambiguous, and no client of the API sends them.
    "DEFAULT_PARSER_CLASSES": ["config.parsers.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DEFAULT_THROTTLE_RATES": {"anon": os.environ.get("ANON_THROTTLE_RATE", "120/min")},
    # How many reverse proxies in front append to X-Forwarded-For. 0: the header is
    # ignored and the throttle keys on the connecting address, which nobody can forge.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0),
}
# The largest ``?page_size=`` an API client may ask for.
API_MAX_PAGE_SIZE = env_int("API_MAX_PAGE_SIZE", 500)

# Entrants one tournament may hold: bounds every per-stage computation and page.
MAX_ENTRANTS = env_int("MAX_ENTRANTS", 4096)

# Wrong claim codes one account may give in an hour before its claims are refused for
# the rest of that hour (players/identity.py).
CLAIM_CODE_TRIES = env_int("CLAIM_CODE_TRIES", 10)

# Emails one person may receive in an hour, and cause (an event's emails count for the
# user who created it); past them a notice is not written (players/notices.py). Staff and
# partner invitations one user may send in an hour, answered 429 past it.
NOTICES_PER_RECIPIENT_PER_HOUR = env_int("NOTICES_PER_RECIPIENT_PER_HOUR", 12)
NOTICES_PER_SENDER_PER_HOUR = env_int("NOTICES_PER_SENDER_PER_HOUR", 600)
INVITATIONS_PER_SENDER_PER_HOUR = env_int("INVITATIONS_PER_SENDER_PER_HOUR", 20)
# Referee accounts an event may create: the tables of its largest round (or the tables
# its entrants fill, before any round) plus these spares (tournaments/services/staff.py).
EVENT_ACCOUNTS_SPARE = env_int("EVENT_ACCOUNTS_SPARE", 4)
# Entry requests (an organizer entered a player linked to an account, players/entries.py):
# how many one organizer may send in an hour (past it the entry plays as a new player,
# unasked), and the days a request may be answered.
ENTRY_REQUESTS_PER_HOUR = env_int("ENTRY_REQUESTS_PER_HOUR", 20)
ENTRY_REQUEST_DAYS = env_int("ENTRY_REQUEST_DAYS", 30)

# Login lock-out (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one account
# from one address, that account is refused from that address until AXES_COOLOFF_TIME
# hours pass or an operator runs ``manage.py axes_reset``. The address alone is not a key:
# the referees at a venue share one address behind its router, and one mistyping player
# must not lock the whole hall out.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = float(os.environ.get("AXES_COOLOFF_TIME", "") or 1)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "accounts.lockout.locked_out"
AXES_CLIENT_IP_CALLABLE = "accounts.addresses.client_address"
AXES_ENABLED = env_bool("AXES_ENABLED", True)

# Content-Security-Policy: only this site's own scripts, styles and images; no inline
# code. The API docs page relaxes it for itself alone (config/urls.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

SPECTACULAR_SETTINGS = {
    "TITLE": "capicu API",
    "DESCRIPTION": "Tournaments and score-keeping for competitive dominoes.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "scoring.models.Game.Status",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "StageStatusEnum": "tournaments.models.Stage.Status",
        "RoundStatusEnum": "tournaments.models.Round.Status",
        "ByePolicyEnum": "tournaments.models.Tournament.ByePolicy",
    },
}

# Logs (config/logging.py): JSON lines in production, plain text in development
# (LOG_FORMAT=json|text), each with its request's id; LOG_REQUESTS writes one line per
# request (on by default in production, where runserver's own lines are not).
LOGGING = log_configuration(
    json=os.environ.get("LOG_FORMAT", "text" if DEBUG else "json").strip().lower() == "json",
    level=os.environ.get("LOG_LEVEL", "WARNING"),
    requests=env_bool("LOG_REQUESTS", not DEBUG),
)

# /metrics (config/metrics.py) answers a scrape with ``Authorization: Bearer
# METRICS_TOKEN`` or from one of METRICS_ALLOWED_ADDRESSES; with neither set it is not found.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
METRICS_ALLOWED_ADDRESSES = env_list("METRICS_ALLOWED_ADDRESSES", [])

if not DEBUG:
    # Production profile: passes ``manage.py check --deploy`` with no warnings.
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    if env_bool("BEHIND_PROXY", False):
        # Anyone can send X-Forwarded-Proto: it is believed only where a proxy sets it.
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"
