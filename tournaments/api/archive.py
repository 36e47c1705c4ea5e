"""The event's archive through the API: the document ``manage.py export_event`` writes."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.views import APIView

from config.schema import ErrorSerializer
from tournaments.api.views import TournamentMixin
from tournaments.archive import dumps, export_event


class ArchiveView(TournamentMixin, APIView):
    """The whole event as one archive document (docs/archive.md), for its organizers."""

    @extend_schema(
        responses={
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.OBJECT, description="The archive document (docs/archive.md)."
            ),
            403: ErrorSerializer,
            404: ErrorSerializer,
        }
    )
    def get(self, request, slug: str):
        tournament = self.get_tournament(request, slug, manage=True)
        response = HttpResponse(
            dumps(export_event(tournament)), content_type="application/json; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{tournament.slug}.archive.json"'
        response["Cache-Control"] = "private, no-store"
        return response
