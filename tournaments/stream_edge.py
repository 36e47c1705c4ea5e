"""The stream edge: the ASGI application that serves a visitor's live stream straight from
its feed, outside Django's request handling, and hands every other request to Django.

Why it exists: under ASGI each middleware costs a thread hop per connection, and Django
runs a stream's view in a thread that holds a database connection for the stream's life.
A crowd opening the page at a round's start would spend on them the cores the referees
need, and a few hundred streams would take every connection the database allows
(measured at 1,000 streams: ``docs/live_load.md``). The stream itself
(``tournaments.stream``) is the same either way; this module is only the door.

Its contract: a stream served here is answered as Django's full stack would answer it.
Every middleware of ``settings.MIDDLEWARE`` is accounted for in ``ACCOUNTED``, either
reproduced here or not applying to a stream, and the edge steps aside (every request to
Django) while a middleware is listed that it does not account for. What it reproduces:

- host checks: a host ``ALLOWED_HOSTS`` refuses goes to Django, which answers 400;
- the HTTPS redirect: one due (``SECURE_SSL_REDIRECT`` on a plain request, as the proxy
  header tells) goes to Django, which redirects; HSTS on a secure request;
- the security headers: ``X-Content-Type-Options``, ``Referrer-Policy``,
  ``Cross-Origin-Opener-Policy``, ``X-Frame-Options``, ``Content-Security-Policy`` (and
  its report-only twin) as the settings make them;
- language: the language cookie, then ``Accept-Language``, then the signed-in user's
  saved language (resolved at the stream's door), told in ``Content-Language``;
- the session and the user, read once at the door (``stream._admit``), never written;
- refusals: odd parameters 400, an event, stage or round the viewer may not see 404, past
  the streams of an address 429 and past the feeds of the process 503 (with
  ``Retry-After``), as the view answers them; a disallowed user agent, a ``www``
  redirect due and a NUL in the query go to Django, which refuses or redirects them;
- observation: ``X-Request-ID`` (the proxy's well-formed id, or a new one), the request's
  log line and its count and time in the metrics.

What it does not: ``Vary`` names only ``Accept-Encoding`` (an event stream is never kept
by a cache: ``Cache-Control: no-cache`` and nginx passes it through unbuffered), and a
refusal's body is empty where Django renders its error page (an EventSource reads only
the status), and a refusal's ``Content-Language`` is the browser's (the session is not
read to refuse a stream). ``tests/tournaments/test_stream_edge.py`` sends the same
requests to both.
"""

import asyncio
import logging
import time
import uuid

from csp.constants import HEADER as CSP_HEADER
from csp.constants import HEADER_REPORT_ONLY as CSP_REPORT_ONLY_HEADER
from csp.utils import build_policy
from django.conf import settings
from django.http import QueryDict
from django.http.cookie import parse_cookie
from django.http.request import split_domain_port, validate_host
from django.urls import Resolver404, resolve
from django.utils import translation

from accounts.addresses import address_of
from config import metrics
from config.middleware import REQUEST_ID
from tournaments import stream
from tournaments.read import live

# Each middleware of settings.MIDDLEWARE, and how a stream served here accounts for it.
ACCOUNTED = {
    "config.middleware.observe": "reproduced: X-Request-ID, the log line, the metrics",
    "whitenoise.middleware.WhiteNoiseMiddleware": "not applying: static files only",
    "django.middleware.security.SecurityMiddleware": (
        "reproduced: the HTTPS redirect left to Django, HSTS, nosniff, Referrer-Policy,"
        " Cross-Origin-Opener-Policy"
    ),
    "django.contrib.sessions.middleware.SessionMiddleware": (
        "reproduced at the door: the session read once, never written"
    ),
    "django.middleware.locale.LocaleMiddleware": (
        "reproduced: the language cookie, then Accept-Language; Content-Language"
    ),
    "django.middleware.common.CommonMiddleware": (
        "reproduced: a disallowed user agent or a www redirect due left to Django;"
        " the address already ends with a slash"
    ),
    "accounts.site.SiteAddressMiddleware": "not applying: notes the address emails link to",
    "config.middleware.refuse_nul": "reproduced: a query with a NUL left to Django (400)",
    "django.middleware.csrf.CsrfViewMiddleware": (
        "not applying: a GET is never checked and a stream asks for no token"
    ),
    "django.contrib.auth.middleware.AuthenticationMiddleware": (
        "reproduced at the door: the session's user"
    ),
    "accounts.middleware.UserLanguageMiddleware": (
        "reproduced at the door: the user's saved language wins"
    ),
    "django.contrib.messages.middleware.MessageMiddleware": "not applying: no messages shown",
    "tournaments.middleware.TournamentTimeZoneMiddleware": (
        "not applying: the live parts show no clock time (its LIVE_PARTS)"
    ),
    "django.middleware.clickjacking.XFrameOptionsMiddleware": "reproduced: X-Frame-Options",
    "django_htmx.middleware.HtmxMiddleware": "not applying: a stream is no htmx request",
    "csp.middleware.CSPMiddleware": "reproduced: Content-Security-Policy, as built by csp",
    "axes.middleware.AxesMiddleware": "not applying: a stream signs nobody in",
}

request_log = logging.getLogger("capicu.request")
logger = logging.getLogger(__name__)


def unaccounted() -> list[str]:
    """The middleware of ``settings.MIDDLEWARE`` this edge neither reproduces nor knows
    not to apply: while there is one, every stream goes through Django."""
    return [name for name in settings.MIDDLEWARE if name not in ACCOUNTED]


def bare(django_application):
    """The ASGI application: a plain stream request straight to its feed, every other
    request to Django (see the module's contract)."""
    warned = []

    async def application(scope, receive, send):
        # Only a stream's address is looked at further: other requests pass straight on.
        if scope["type"] == "http" and scope["path"].endswith("/events/"):
            missing = unaccounted()
            if missing:
                if not warned:
                    warned.append(True)
                    logger.warning("streams go through Django: %s not accounted for", missing)
            else:
                headers = _headers(scope)
                slug = _slug(scope, headers)
                if slug is not None:
                    return await _serve(scope, receive, send, slug, headers)
        return await django_application(scope, receive, send)

    return application


def _slug(scope, headers: dict[str, str]) -> str | None:
    """The tournament of a stream this edge may serve, or None for Django: anything that
    is not a plain GET of the stream's address, or that Django's middleware would refuse
    or redirect."""
    if scope["method"] != "GET":
        return None
    try:
        match = resolve(scope["path"])
    except Resolver404:
        return None
    if match.func is not stream.live_events:
        return None
    host, _ = split_domain_port(headers.get("host", ""))
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    if not host or not validate_host(host, allowed):
        return None  # Django answers 400
    if settings.SECURE_SSL_REDIRECT and not _secure(scope, headers):
        return None  # Django redirects
    if settings.PREPEND_WWW and not host.startswith("www."):
        return None  # Django redirects
    agent = headers.get("user-agent")
    if agent is not None and any(rule.search(agent) for rule in settings.DISALLOWED_USER_AGENTS):
        return None  # Django answers 403
    if b"\x00" in scope.get("query_string", b"") or b"%00" in scope.get("query_string", b""):
        return None  # Django answers 400
    return match.kwargs["slug"]


def _headers(scope) -> dict[str, str]:
    """The request's headers by name; one sent twice joined with commas, as Django does."""
    found: dict[str, str] = {}
    for name, value in scope["headers"]:
        name, value = name.decode("latin-1").lower(), value.decode("latin-1")
        found[name] = f"{found[name]},{value}" if name in found else value
    return found


def _secure(scope, headers: dict[str, str]) -> bool:
    if scope.get("scheme") == "https":
        return True
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if not proxy:
        return False
    name = proxy[0].removeprefix("HTTP_").replace("_", "-").lower()
    return headers.get(name, "").split(",")[0].strip() == proxy[1]


class _Visitor:
    """What the language is read from: the visitor's cookies and request headers."""

    def __init__(self, cookies: dict, headers: dict[str, str]):
        self.COOKIES = cookies
        self.META = {"HTTP_ACCEPT_LANGUAGE": headers.get("accept-language", "")}


def security_headers(secure: bool, status: int, path: str) -> list[tuple[str, str]]:
    """The headers the security, clickjacking and CSP middleware add to an answer."""
    found = []
    if settings.SECURE_HSTS_SECONDS and secure:
        sts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            sts += "; includeSubDomains"
        if settings.SECURE_HSTS_PRELOAD:
            sts += "; preload"
        found.append(("Strict-Transport-Security", sts))
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        found.append(("X-Content-Type-Options", "nosniff"))
    policy = settings.SECURE_REFERRER_POLICY
    if policy:
        parts = [v.strip() for v in policy.split(",")] if isinstance(policy, str) else policy
        found.append(("Referrer-Policy", ",".join(parts)))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        found.append(("Cross-Origin-Opener-Policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY))
    found.append(("X-Frame-Options", getattr(settings, "X_FRAME_OPTIONS", "DENY").upper()))
    if settings.DEBUG and status in (404, 500):
        return found  # csp leaves Django's debug pages alone
    for header, report_only, setting in (
        (CSP_HEADER, False, "CONTENT_SECURITY_POLICY"),
        (CSP_REPORT_ONLY_HEADER, True, "CONTENT_SECURITY_POLICY_REPORT_ONLY"),
    ):
        policy = build_policy(report_only=report_only)
        excluded = (getattr(settings, setting, None) or {}).get("EXCLUDE_URL_PREFIXES") or ()
        if policy and not path.startswith(tuple(excluded)):
            found.append((header, policy))
    return found


async def _serve(scope, receive, send, slug: str, headers: dict) -> None:
    started = time.perf_counter()
    cookies = parse_cookie(headers.get("cookie", ""))
    language = translation.get_language_from_request(_Visitor(cookies, headers))
    get = QueryDict(scope.get("query_string", b"").decode("latin-1"))
    client = scope.get("client") or ("", 0)
    address = address_of(client[0], headers.get("x-forwarded-for"))
    session_key = cookies.get(settings.SESSION_COOKIE_NAME, "")
    opened = await stream.open_stream(slug, get, language, address, session_key)
    sent = headers.get("x-request-id", "")
    rid = sent if REQUEST_ID.fullmatch(sent) else uuid.uuid4().hex
    status = opened if isinstance(opened, int) else 200
    answer = [
        (name.lower().encode(), value.encode())
        for name, value in security_headers(_secure(scope, headers), status, scope["path"])
    ]
    answer.append((b"x-request-id", rid.encode()))
    if not isinstance(opened, stream.Opened):
        answer.append((b"content-type", b"text/plain; charset=utf-8"))
        answer.append((b"content-language", language.encode()))
        answer += [
            (name.lower().encode(), value.encode())
            for name, value in stream.refusal_headers(opened).items()
        ]
        _observe(scope, opened, started, address, rid)
        await send({"type": "http.response.start", "status": opened, "headers": answer})
        await send({"type": "http.response.body", "body": b""})
        return
    gzip = live.accepts_gzip(headers.get("accept-encoding", ""))
    answer += [(name.lower().encode(), value.encode()) for name, value in stream.HEADERS.items()]
    answer.append((b"vary", b"Accept-Encoding"))
    answer.append((b"content-language", opened.feed.language.encode()))
    if gzip:
        answer.append((b"content-encoding", b"gzip"))
    body = stream.event_stream(opened, gzip)
    _observe(scope, 200, started, address, rid)

    async def pour():
        await send({"type": "http.response.start", "status": 200, "headers": answer})
        async for chunk in body:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    async def until_gone():
        while (await receive())["type"] != "http.disconnect":
            pass

    pouring, listening = asyncio.ensure_future(pour()), asyncio.ensure_future(until_gone())
    try:
        await asyncio.wait((pouring, listening), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (pouring, listening):
            task.cancel()
        await asyncio.gather(pouring, listening, return_exceptions=True)
        await body.aclose()  # the feed loses this listener, however the stream ended


def _observe(scope, status: int, started: float, address: str, rid: str) -> None:
    """The request's line in the log and its count and time in the metrics, as the
    ``observe`` middleware gives every request Django answers."""
    seconds = time.perf_counter() - started
    view = "tournament-events"
    metrics.REQUESTS.labels(view=view, method="GET", status=f"{status // 100}xx").inc()
    metrics.LATENCY.labels(view=view).observe(seconds)
    request_log.info(
        "%s %s %s",
        "GET",
        scope["path"],
        status,
        extra={
            "method": "GET",
            "path": scope["path"],
            "view": view,
            "status": status,
            "ms": round(seconds * 1000, 1),
            "client": address,
            "request_id": rid,
        },
    )
