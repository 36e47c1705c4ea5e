"""The event day through the API: a stage's check-in, and seats that did not play."""

from datetime import datetime

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from domain.say import say
from scoring.api import fields
from scoring.api.serializers import bounded
from scoring.bounds import ID_MAX
from tournaments import services
from tournaments.api.confirm import confirm_field, require_confirmed
from tournaments.api.serializers import MatchSerializer, StageSerializer
from tournaments.api.views import TournamentMixin
from tournaments.clock import zone
from tournaments.models import Match, MatchSeat, Stage
from tournaments.services.forfeits import did_not_play_effect


class CheckInSerializer(serializers.Serializer):
    required = fields.Flag(help_text="Only checked-in entrants are seated.")
    opens = fields.Text(
        required=False,
        allow_null=True,
        default=None,
        max_length=40,
        help_text="ISO 8601; without an offset, on the tournament's clock (its time_zone).",
    )
    closes = fields.Text(required=False, allow_null=True, default=None, max_length=40)


def read_moment(text: str | None, tournament, field: str) -> datetime | None:
    """An ISO 8601 time from a body; one without an offset is on the event's clock."""
    if text is None or not text.strip():
        return None
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError as error:
        raise services.TournamentError(
            say("Give a date and a time, as 2026-05-01T09:30."), field
        ) from error
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone(tournament))
    return moment


class StageCheckInView(TournamentMixin, APIView):
    @extend_schema(request=CheckInSerializer, responses=StageSerializer)
    def post(self, request, slug: str, order: int):
        """Require check-in for a stage (or not), with its window."""
        tournament = self.get_tournament(request, slug, manage=True)
        stage = Stage.objects.filter(tournament=tournament, order=order).first()
        if stage is None:
            raise Http404

        def change():
            body = CheckInSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            data = body.validated_data
            done = services.set_check_in(
                stage,
                by=request.user,
                required=data["required"],
                opens=read_moment(data["opens"], tournament, "opens"),
                closes=read_moment(data["closes"], tournament, "closes"),
            )
            return Response(StageSerializer(done).data)

        return self.act(request, change)


class DidNotPlaySerializer(serializers.Serializer):
    entrant = bounded(1, ID_MAX, help_text="The id of the entrant seated here.")
    reason = serializers.ChoiceField(choices=MatchSeat.DidNotPlay.choices)
    note = fields.Text(required=False, default="", allow_blank=True, max_length=300)
    confirm = confirm_field()


class MatchDidNotPlayView(TournamentMixin, APIView):
    @extend_schema(request=DidNotPlaySerializer, responses=MatchSerializer)
    def post(self, request, pk: int):
        """Record that an entrant seated at this table did not play: the game ends as their
        forfeit (organizers)."""
        match = Match.objects.select_related("round__stage__tournament").filter(pk=pk).first()
        if match is None:
            raise Http404
        self.get_tournament(request, match.round.stage.tournament.slug, manage=True)

        def record():
            body = DidNotPlaySerializer(data=request.data)
            body.is_valid(raise_exception=True)
            data = body.validated_data
            seat = MatchSeat.objects.filter(match=match, entrant_id=data["entrant"]).first()
            if seat is None:
                raise services.TournamentError(
                    say("That entrant is not seated at this table."), "entrant"
                )
            require_confirmed(data["confirm"], did_not_play_effect(seat))
            services.record_did_not_play(
                seat, by=request.user, reason=data["reason"], note=data["note"]
            )
            fresh = Match.objects.select_related("round", "game", "referee").get(pk=match.pk)
            return Response(MatchSerializer(fresh).data)

        return self.act(request, record)
