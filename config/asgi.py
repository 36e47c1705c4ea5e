"""ASGI entry point for capicu: the visitors' live streams go straight to their feed
(``tournaments.stream_edge.bare``: the session, if any, resolved once at the door, no
database connection held by a stream), everything else to Django."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_application = get_asgi_application()

from tournaments.stream_edge import bare  # noqa: E402  (needs the apps loaded above)

application = bare(django_application)
