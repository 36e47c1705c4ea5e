"""Shared API plumbing: the error shape every endpoint answers with, and the API root.

Every refusal, wherever it is raised, reaches the caller as ``{"detail": ..., "errors":
{field: [messages]}}``: DRF's own errors, the domain's ``UserError`` (400), ``Conflict``
(409) and ``TooMany`` (429), and the failures Django raises before or around a view (a
body too large, an unknown address, a server error), which the ``handler400``/``403``/
``404``/``500`` views at the end answer in JSON on API paths while pages keep their HTML.
"""

import logging

from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.db import DataError, IntegrityError
from django.http import Http404, HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.translation import gettext, gettext_lazy
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.decorators import api_view, permission_classes, schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from domain.errors import Conflict, DomainError, TooMany
from domain.i18n import told

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"


def _messages(value) -> list[str]:
    if isinstance(value, list | tuple):
        out: list[str] = []
        for item in value:
            out.extend(_messages(item))
        return out
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            out.extend(f"{key}: {message}" for message in _messages(item))
        return out
    return [str(value)]


def refusal(error: DomainError, view=None) -> Response:
    """A domain error as the API answers it; the view may rename the field or add to it.

    A view names a field its own way with ``refusal_field(error)`` and adds what the
    caller needs to carry on (the game's current state) with ``refusal_details(error)``.
    """
    body = error.body(told)
    rename = getattr(view, "refusal_field", None)
    if rename is not None:
        field = rename(error)
        if field != error.field and error.field in body["errors"]:
            body["errors"] = {field: body["errors"][error.field]}
    details = getattr(view, "refusal_details", None)
    if details is not None:
        body.update(details(error))
    if isinstance(error, TooMany):
        return Response(
            body,
            status=status.HTTP_429_TOO_MANY_REQUESTS,
            headers={"Retry-After": str(error.retry_after)},
        )
    code = status.HTTP_409_CONFLICT if isinstance(error, Conflict) else status.HTTP_400_BAD_REQUEST
    return Response(body, status=code)


TOO_LARGE = gettext_lazy("The request is too large.")
BAD_REQUEST = gettext_lazy("The request could not be read.")
OUT_OF_RANGE = gettext_lazy("A value is out of range or not allowed here.")
NOT_STORED = gettext_lazy("This clashes with what is already stored; nothing was changed.")


def _refused(message, code: int) -> Response:
    return Response(
        {"detail": str(message), "errors": {"non_field_errors": [str(message)]}}, status=code
    )


def exception_handler(exc, context):
    """Answer every error as ``{"detail": ..., "errors": {field: [messages]}}``."""
    if isinstance(exc, DomainError):
        set_rollback()
        return refusal(exc, context.get("view"))
    if isinstance(exc, DataError | IntegrityError):
        # The last guard, logged because a field should have said it first: a value the
        # database refuses (out of its column's range) is bad input, and a row against a
        # constraint (another request's, written first) is a conflict.
        logger.warning("The database refused a request's values", exc_info=exc)
        set_rollback()
        if isinstance(exc, IntegrityError):
            return _refused(NOT_STORED, status.HTTP_409_CONFLICT)
        return _refused(OUT_OF_RANGE, status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, RequestDataTooBig):
        exc = exceptions.APIException(TOO_LARGE)
        exc.status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    elif isinstance(exc, SuspiciousOperation):
        exc = exceptions.ParseError(BAD_REQUEST)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    payload = response.data
    if isinstance(exc, exceptions.ValidationError):
        if isinstance(payload, dict):
            errors = {field: _messages(messages) for field, messages in payload.items()}
        else:
            errors = {"non_field_errors": _messages(payload)}
        first = next(iter(errors.values()), ["Invalid input."])
        detail = first[0] if first else "Invalid input."
        response.data = {"detail": detail, "errors": errors}
        response.status_code = status.HTTP_400_BAD_REQUEST
    elif isinstance(payload, dict) and "detail" in payload:
        extra = {key: value for key, value in payload.items() if key != "detail"}
        response.data = {"detail": str(payload["detail"]), "errors": {}, **extra}
    else:
        response.data = {"detail": str(payload), "errors": {}}
    return response


def _json_error(detail, code: int) -> JsonResponse:
    return JsonResponse({"detail": str(detail), "errors": {}}, status=code)


def bad_request(request, exception, template_name="400.html"):
    """Django's 400 (a suspicious or too large request): JSON on the API, a page elsewhere."""
    if request.path.startswith(API_PREFIX):
        if isinstance(exception, RequestDataTooBig):
            return _json_error(TOO_LARGE, status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        return _json_error(BAD_REQUEST, status.HTTP_400_BAD_REQUEST)
    return defaults.bad_request(request, exception, template_name)


def permission_denied(request, exception, template_name="403.html"):
    if request.path.startswith(API_PREFIX):
        return _json_error(exceptions.PermissionDenied.default_detail, status.HTTP_403_FORBIDDEN)
    return defaults.permission_denied(request, exception, template_name)


def page_not_found(request, exception, template_name="404.html"):
    if request.path.startswith(API_PREFIX):
        return _json_error(exceptions.NotFound.default_detail, status.HTTP_404_NOT_FOUND)
    return defaults.page_not_found(request, exception, template_name)


@csrf_exempt  # it changes nothing: a write without a token is told "not found" too
def api_not_found(request):
    """Any path under the API that names no operation: a JSON 404, also with DEBUG on
    (whose own 404 is a page) and for a write without a CSRF token. A path that names an
    operation once a slash is added moves to it, as ``APPEND_SLASH`` would; any other
    path is not found at once (an address that matches no route never moves)."""
    path = request.path_info
    if not path.endswith("/"):
        try:
            match = resolve(path + "/")
        except Resolver404:
            match = None
        if match is not None and match.url_name != "api-not-found":
            return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
    return page_not_found(request, None)


def server_error(request, template_name="500.html"):
    """An unexpected failure: the API still answers in its documented shape."""
    if request.path.startswith(API_PREFIX):
        return _json_error(gettext("Something went wrong on our side; try again."), 500)
    return defaults.server_error(request, template_name)


@api_view(["GET"])
@permission_classes([AllowAny])
@schema(None)
def api_root(request, format=None):
    """List the API's top-level resources."""
    return Response(
        {
            "games": reverse("game-list", request=request, format=format),
            "rulesets": reverse("ruleset-list", request=request, format=format),
            "schema": reverse("schema", request=request, format=format),
            "docs": reverse("api-docs", request=request, format=format),
        }
    )
