"""Shared API plumbing: the error shape every endpoint answers with, and the API root."""

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.decorators import api_view, permission_classes, schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import exception_handler as drf_exception_handler


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


def exception_handler(exc, context):
    """Answer every error as ``{"detail": ..., "errors": {field: [messages]}}``."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
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
