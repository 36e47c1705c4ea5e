"""ASGI entry point for capicu: the live streams of signed-out visitors go straight to
their feed (``tournaments.stream.bare``), everything else to Django."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_application = get_asgi_application()

from tournaments.stream import bare  # noqa: E402  (needs the apps loaded above)

application = bare(django_application)
