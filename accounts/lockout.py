"""The page a locked-out login gets (django-axes calls ``locked_out``)."""

from axes.helpers import get_cool_off, get_failure_limit
from django.shortcuts import render


def locked_out(request, original_response=None, credentials=None):
    """Say why the login is refused and when it may be tried again, with 429."""
    cool_off = get_cool_off(request)
    minutes = max(1, round(cool_off.total_seconds() / 60)) if cool_off else None
    return render(
        request,
        "registration/locked_out.html",
        {"failure_limit": get_failure_limit(request, credentials), "minutes": minutes},
        status=429,
    )
