"""The site's public address, which every link in an email starts with.

``SITE_URL`` (from the environment) is the address people reach the site at, behind
whatever proxy serves it. Left empty, as in development, a link starts with the address
of the request being answered (its host, checked against ``ALLOWED_HOSTS``), or of the
last one this process answered when the email goes out from a task.
"""

from contextvars import ContextVar

from django.conf import settings

FALLBACK = "http://127.0.0.1:8000"

_current: ContextVar[str] = ContextVar("site_address", default="")
_last_seen = [""]


def public_url(path: str = "/") -> str:
    """``path`` as a whole address on the site, as an email links to it."""
    base = settings.SITE_URL or _current.get() or _last_seen[0] or FALLBACK
    return base.rstrip("/") + path


class SiteAddressMiddleware:
    """Notes the request's own address, for links made while it is answered (only used
    when ``SITE_URL`` is not set)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if settings.SITE_URL:
            return self.get_response(request)
        try:
            address = request.build_absolute_uri("/").rstrip("/")
        except Exception:  # a host ALLOWED_HOSTS refuses: Django answers it with 400 anyway
            return self.get_response(request)
        _last_seen[0] = address
        token = _current.set(address)
        try:
            return self.get_response(request)
        finally:
            _current.reset(token)
