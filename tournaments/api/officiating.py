"""The event's officiating through the API: disqualify an entrant, the open disputes and
the audit list (organizers)."""

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from config.pagination import Pages, page_response
from scoring.api import fields
from scoring.api.officiating import DisputeSerializer, OfficialActSerializer
from tournaments import sanctions
from tournaments.api import serializers as s
from tournaments.api.confirm import confirm_field, require_confirmed
from tournaments.api.views import TournamentMixin
from tournaments.models import Entrant
from tournaments.services.forfeits import disqualify_effect


class DisqualifySerializer(serializers.Serializer):
    reason = fields.Text(max_length=500)
    confirm = confirm_field()


class DisqualifyView(TournamentMixin, APIView):
    """Disqualify an entrant with a reason: its unfinished games are forfeited and it is
    not paired again."""

    @extend_schema(request=DisqualifySerializer, responses=s.EntrantSerializer)
    def post(self, request, slug: str, pk: int):
        tournament = self.get_tournament(request, slug, manage=True)
        entrant = Entrant.objects.filter(tournament=tournament, pk=pk).first()
        if entrant is None:
            raise Http404

        def run():
            body = DisqualifySerializer(data=request.data)
            body.is_valid(raise_exception=True)
            require_confirmed(body.validated_data["confirm"], disqualify_effect(entrant))
            done = sanctions.disqualify(
                entrant, reason=body.validated_data["reason"], by=request.user
            )
            return Response(s.EntrantSerializer(done).data)

        return self.act(request, run)


class AuditView(TournamentMixin, APIView):
    """Every officiating act of the event, newest first (organizers)."""

    pagination_class = Pages

    @extend_schema(responses=OfficialActSerializer(many=True))
    def get(self, request, slug: str):
        tournament = self.get_tournament(request, slug, manage=True)
        return page_response(
            self,
            request,
            sanctions.audit_acts(tournament),
            lambda page: OfficialActSerializer(page, many=True).data,
        )


class OpenDisputesView(TournamentMixin, APIView):
    """The event's disputes waiting for an organizer, oldest first."""

    pagination_class = Pages

    @extend_schema(responses=DisputeSerializer(many=True))
    def get(self, request, slug: str):
        tournament = self.get_tournament(request, slug, manage=True)
        return page_response(
            self,
            request,
            sanctions.open_disputes(tournament),
            lambda page: DisputeSerializer(page, many=True).data,
        )
