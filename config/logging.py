"""Log lines as JSON (production) or plain text (development), each with its request id.

``LOG_FORMAT`` chooses (``json`` or ``text``; JSON by default when DEBUG is off). Every
record logged while a request is answered carries that request's id, the one its
answer's ``X-Request-ID`` header gives back (``config.middleware.observe``), so a line
a user's report quotes leads to every line of the same request.
"""

import contextvars
import logging
import time

import orjson

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")

# What every LogRecord has: anything else passed in ``extra`` goes into the JSON line.
STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on each record (empty outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", ""):
            # Django logs a refused request (django.request) after the middleware has
            # answered; the request it passes along still carries its id.
            answered = getattr(getattr(record, "request", None), "request_id", "")
            record.request_id = request_id.get() or answered
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, request id and extras."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in STANDARD and key not in line and key != "request":
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


def configuration(*, json: bool, level: str, requests: bool) -> dict:
    """The LOGGING setting: one console handler in the chosen format; the request log
    (``capicu.request``, one line per request) at INFO when ``requests``."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "config.logging.RequestIdFilter"}},
        "formatters": {
            "json": {"()": "config.logging.JsonFormatter"},
            "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "json" if json else "text",
                "filters": ["request_id"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "capicu.request": {"level": "INFO" if requests else "WARNING"},
        },
    }
