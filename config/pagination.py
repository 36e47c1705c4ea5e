"""The one pagination every API list uses (its own module: DRF imports it at start-up)."""

from django.conf import settings
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response


class Pages(PageNumberPagination):
    """Every list answers one page: ``{count, next, previous, results}``.

    ``?page_size=`` may ask for fewer or more rows, up to ``API_MAX_PAGE_SIZE``.
    """

    page_size_query_param = "page_size"

    @property
    def max_page_size(self) -> int:
        return settings.API_MAX_PAGE_SIZE


def page_response(view, request, rows, serialize) -> Response:
    """One page of ``rows`` for an ``APIView`` list, each page serialized by ``serialize``."""
    pages = Pages()
    page = pages.paginate_queryset(rows, request, view=view)
    return pages.get_paginated_response(serialize(page))
