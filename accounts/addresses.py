"""The address a request comes from, counting only the proxies the operator configured."""

from django.http import HttpRequest
from rest_framework.settings import api_settings


def client_address(request: HttpRequest) -> str:
    """The client's address, as DRF's throttles key it (see ``address_of``)."""
    return address_of(request.META.get("REMOTE_ADDR", ""), request.META.get("HTTP_X_FORWARDED_FOR"))


def address_of(remote: str, forwarded: str | None) -> str:
    """The client's address from the connecting one and ``X-Forwarded-For``: one rule for a
    request Django parsed and for a stream the ASGI application serves itself.

    With ``NUM_PROXIES`` = 0 the connecting address; with *n* proxies in front, the
    *n*-th address from the right of ``X-Forwarded-For``: the ones further left were
    written by the client and prove nothing.
    """
    proxies = api_settings.NUM_PROXIES or 0
    if proxies <= 0 or not forwarded:
        return remote
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    if not hops:
        return remote
    return hops[-min(proxies, len(hops))]
