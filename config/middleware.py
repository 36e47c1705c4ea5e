"""Refuse, before any view, what no text field may hold."""

from django.http import HttpResponseBadRequest, JsonResponse
from django.utils.translation import gettext

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
