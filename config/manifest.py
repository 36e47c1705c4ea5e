"""The web app manifest: a referee adds capicu to a phone's home screen and it opens
full screen, at the list of their tables (one tap from each table's scoring page)."""

from django.http import JsonResponse
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import cache_control
from django.views.decorators.vary import vary_on_headers

THEME = "#0b5d3b"  # the site's green (--accent in capicu.css)
PAPER = "#fdfcf8"


@cache_control(public=True, max_age=3600)
@vary_on_headers("Accept-Language", "Cookie")
def manifest(request):
    """The manifest in the visitor's language, naming the icons by their hashed names."""
    icons = [
        {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {
            "src": static("icons/icon-maskable-512.png"),
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
        {"src": static("icons/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
    ]
    document = {
        "name": gettext("capicu: dominoes score-keeping"),
        "short_name": "capicu",
        "description": gettext("Record each hand at your table and follow the standings."),
        "id": reverse("my-tables"),
        "start_url": reverse("my-tables"),
        "scope": "/",
        "display": "fullscreen",
        "display_override": ["fullscreen", "standalone"],
        "orientation": "portrait",
        "theme_color": THEME,
        "background_color": PAPER,
        "lang": request.LANGUAGE_CODE,
        "icons": icons,
    }
    return JsonResponse(
        document,
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False},
    )
