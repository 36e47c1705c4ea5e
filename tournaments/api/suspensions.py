"""Suspensions through the API: an organizer's record of the suspensions of one entrant's
player(s), and recording or lifting one (tournaments/suspensions.py)."""

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from domain.say import say
from scoring.api import fields
from scoring.bounds import ID_MAX
from tournaments import suspensions
from tournaments.api.views import TournamentMixin
from tournaments.models import Entrant, Suspension
from tournaments.services.common import TournamentError


class SuspensionSerializer(serializers.ModelSerializer):
    player = fields.WholeNumber(source="player_id")
    player_name = fields.Text(source="player.display_name")
    organizer = fields.Text(source="organizer.username")
    series = fields.Text(source="series.slug", default=None, allow_null=True)

    class Meta:
        model = Suspension
        fields = [
            "id",
            "player",
            "player_name",
            "scope",
            "organizer",
            "series",
            "starts_on",
            "ends_on",
            "reason",
            "created_at",
            "lifted_at",
        ]


class SuspendSerializer(serializers.Serializer):
    """Record a suspension (with dates and a reason), or lift one (``lift``)."""

    lift = serializers.IntegerField(min_value=1, max_value=ID_MAX, required=False)
    player = serializers.IntegerField(
        min_value=1,
        max_value=ID_MAX,
        required=False,
        help_text="In a team, which of its two players (default: the first).",
    )
    starts_on = serializers.DateField(required=False)
    ends_on = serializers.DateField(required=False)
    reason = fields.Text(max_length=500, required=False)
    series = serializers.SlugField(
        max_length=80, required=False, help_text="A series you run (default: all your events)."
    )

    def validate(self, attrs):
        if "lift" not in attrs:
            missing = [f for f in ("starts_on", "ends_on", "reason") if f not in attrs]
            if missing:
                raise serializers.ValidationError(
                    {name: [self.error_messages["required"]] for name in missing}
                )
        return attrs


class EntrantSuspensionsView(TournamentMixin, APIView):
    """The suspensions you recorded of this entrant's player(s); record or lift one."""

    def _entrant(self, request, slug: str, pk: int) -> Entrant:
        tournament = self.get_tournament(request, slug, manage=True)
        entrant = (
            Entrant.objects.filter(tournament=tournament, pk=pk)
            .select_related("player", "partner", "tournament")
            .first()
        )
        if entrant is None:
            raise Http404
        return entrant

    def _listed(self, request, entrant: Entrant) -> list:
        found = []
        for player in suspensions.players_of(entrant):
            found += list(suspensions.visible_to(player, request.user))
        return SuspensionSerializer(found, many=True).data

    @extend_schema(responses=SuspensionSerializer(many=True))
    def get(self, request, slug: str, pk: int):
        return Response(self._listed(request, self._entrant(request, slug, pk)))

    @extend_schema(request=SuspendSerializer, responses=SuspensionSerializer)
    def post(self, request, slug: str, pk: int):
        entrant = self._entrant(request, slug, pk)

        def run():
            body = SuspendSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            data = body.validated_data
            members = suspensions.players_of(entrant)
            if "lift" in data:
                found = Suspension.objects.filter(
                    pk=data["lift"], player__in=members, organizer=request.user
                ).first()
                if found is None:
                    raise Http404
                done = suspensions.lift(found, by=request.user, tournament=entrant.tournament)
                return Response(SuspensionSerializer(done).data)
            player = members[0]
            if "player" in data:
                player = next((p for p in members if p.pk == data["player"]), None)
                if player is None:
                    raise TournamentError(say("Choose a player of this entry."), "player")
            series = None
            if "series" in data:
                series = (
                    suspensions.series_choices(request.user).filter(slug=data["series"]).first()
                )
                if series is None:
                    raise TournamentError(say("Choose a series you run."), "series")
            done = suspensions.suspend(
                entrant,
                by=request.user,
                player=player,
                starts_on=data["starts_on"],
                ends_on=data["ends_on"],
                reason=data["reason"],
                series=series,
            )
            return Response(SuspensionSerializer(done).data, status=201)

        return self.act(request, run)
