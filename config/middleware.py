"""Refuse, before any view, what no text field may hold; observe every request."""

import logging
import re
import time
import uuid

from django.http import HttpResponseBadRequest, JsonResponse
from django.utils.translation import gettext

from accounts.addresses import client_address
from config import logging as log_context
from config import metrics
from config.api import API_PREFIX

NUL = "\x00"


def _has_nul(query) -> bool:
    return any(NUL in key or any(NUL in value for value in values) for key, values in query.lists())


def refuse_nul(get_response):
    """A NUL character in a query string or a form is a 400: PostgreSQL cannot store one.

    API bodies in JSON are checked by the API's parser; API forms by DRF's own fields
    (the view parses its body itself, so it is not read here).
    """

    def middleware(request):
        api = request.path.startswith(API_PREFIX)
        if any(_has_nul(query) for query in (request.GET, *(() if api else (request.POST,)))):
            message = gettext("Text may not contain NUL characters.")
            if api:
                return JsonResponse({"detail": message, "errors": {}}, status=400)
            return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
        return get_response(request)

    return middleware


# An id a proxy in front may pass on (nginx's $request_id): letters, digits and dashes.
REQUEST_ID = re.compile(r"[A-Za-z0-9-]{8,64}")
request_log = logging.getLogger("capicu.request")


def observe(get_response):
    """Gives each request an id (the proxy's, when it sent a well-formed one), returns it
    in ``X-Request-ID``, logs one line per request and counts it for the metrics."""
    metrics.connect()

    def middleware(request):
        sent = request.headers.get("X-Request-ID", "")
        rid = sent if REQUEST_ID.fullmatch(sent) else uuid.uuid4().hex
        request.request_id = rid
        token = log_context.request_id.set(rid)
        started = time.perf_counter()
        try:
            response = get_response(request)
            seconds = time.perf_counter() - started
            match = getattr(request, "resolver_match", None)
            view = (match.view_name or "unnamed") if match else "unmatched"
            metrics.REQUESTS.labels(
                view=view, method=request.method, status=f"{response.status_code // 100}xx"
            ).inc()
            metrics.LATENCY.labels(view=view).observe(seconds)
            metrics.live_poll(response)
            response["X-Request-ID"] = rid
            request_log.info(
                "%s %s %s",
                request.method,
                request.path,
                response.status_code,
                extra={
                    "method": request.method,
                    "path": request.path,
                    "view": view,
                    "status": response.status_code,
                    "ms": round(seconds * 1000, 1),
                    "client": client_address(request),
                },
            )
            return response
        finally:
            log_context.request_id.reset(token)

    return middleware
