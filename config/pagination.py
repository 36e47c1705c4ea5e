"""The one pagination every API list uses (its own module: DRF imports it at start-up)."""

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from domain.numbers import whole_number


class Pages(PageNumberPagination):
    """Every list answers one page: ``{count, next, previous, results}``.

    ``?page_size=`` may ask for fewer or more rows, up to ``API_MAX_PAGE_SIZE``.
    """

    page_size_query_param = "page_size"

    @property
    def max_page_size(self) -> int:
        return settings.API_MAX_PAGE_SIZE

    def get_page_number(self, request, paginator):
        asked = request.query_params.get(self.page_query_param)
        if asked is None:
            return 1
        if asked in self.last_page_strings:
            return asked
        number = whole_number(asked)
        if number is None or number < 1:
            raise ValidationError({self.page_query_param: [_("A page is a whole number from 1.")]})
        return number

    def get_page_size(self, request) -> int:
        # DRF quietly falls back to the default on a bad page_size; a client that asked
        # for something else should hear that it was not understood.
        asked = request.query_params.get(self.page_size_query_param)
        if asked is None:
            return self.page_size
        number = whole_number(asked)
        if number is None or number < 1:
            raise ValidationError(
                {self.page_size_query_param: [_("A page size is a whole number from 1.")]}
            )
        return min(number, self.max_page_size)


def page_response(view, request, rows, serialize) -> Response:
    """One page of ``rows`` for an ``APIView`` list, each page serialized by ``serialize``."""
    pages = Pages()
    page = pages.paginate_queryset(rows, request, view=view)
    return pages.get_paginated_response(serialize(page))
