"""The round clock through the API: a stage's time limit and a round's clock (organizers)."""

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from scoring.services import HANDS_AFTER_TIME_RANGE
from tournaments import round_clock
from tournaments.api.views import TournamentMixin
from tournaments.models import Stage


class ClockSerializer(serializers.Serializer):
    """Where a round's clock stands: count down from ``deadline`` (running), or show
    ``seconds_left`` (paused, or waiting for an organizer to start it)."""

    state = serializers.ChoiceField(choices=["off", "waiting", "running", "paused", "called"])
    minutes = serializers.IntegerField(allow_null=True)
    hands_after_time = serializers.IntegerField()
    deadline = serializers.DateTimeField(allow_null=True)
    seconds_left = serializers.IntegerField(allow_null=True)


class StageClockSerializer(serializers.Serializer):
    minutes = serializers.IntegerField(
        min_value=round_clock.MINUTES_RANGE[0],
        max_value=round_clock.MINUTES_RANGE[1],
        allow_null=True,
        help_text="Minutes per round (null: rounds are untimed).",
    )
    hands_after_time = serializers.IntegerField(
        min_value=HANDS_AFTER_TIME_RANGE[0],
        max_value=HANDS_AFTER_TIME_RANGE[1],
        default=0,
        help_text="0: when time is called the hand in play is finished; N: N more hands.",
    )
    starts = serializers.ChoiceField(
        choices=list(round_clock.STARTS),
        default="publish",
        help_text="publish: the clock starts when a round is published; organizer: by hand.",
    )


class StageClockAnswerSerializer(serializers.Serializer):
    minutes = serializers.IntegerField(allow_null=True)
    hands_after_time = serializers.IntegerField()
    starts = serializers.CharField()


class RoundClockActionSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=list(round_clock.ACTIONS))
    minutes = serializers.IntegerField(
        min_value=round_clock.MINUTES_RANGE[0],
        max_value=round_clock.MINUTES_RANGE[1],
        required=False,
        help_text="With extend: the minutes to add.",
    )

    def validate(self, attrs):
        if attrs["action"] == "extend" and "minutes" not in attrs:
            raise serializers.ValidationError({"minutes": [self.error_messages["required"]]})
        return attrs


def stage_clock_body(stage: Stage) -> dict:
    settings = round_clock.settings_of(stage)
    return {
        "minutes": settings.minutes,
        "hands_after_time": settings.hands_after_time,
        "starts": settings.starts,
    }


class StageClockView(TournamentMixin, APIView):
    """A stage's round time limit: minutes per round, the hands after the call, and when
    the clock starts."""

    def _stage(self, request, slug: str, order: int) -> Stage:
        tournament = self.get_tournament(request, slug, manage=True)
        stage = Stage.objects.filter(tournament=tournament, order=order).first()
        if stage is None:
            raise Http404
        return stage

    @extend_schema(responses=StageClockAnswerSerializer)
    def get(self, request, slug: str, order: int):
        return Response(stage_clock_body(self._stage(request, slug, order)))

    @extend_schema(request=StageClockSerializer, responses=StageClockAnswerSerializer)
    def post(self, request, slug: str, order: int):
        stage = self._stage(request, slug, order)

        def run():
            body = StageClockSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            done = round_clock.set_stage_clock(stage, by=request.user, **body.validated_data)
            return Response(stage_clock_body(done))

        return self.act(request, run)


class RoundClockView(TournamentMixin, APIView):
    """Start, pause, resume or extend a published round's clock."""

    @extend_schema(
        request=RoundClockActionSerializer,
        responses=ClockSerializer,
        parameters=[OpenApiParameter("stage", OpenApiTypes.INT)],
    )
    def post(self, request, slug: str, number: int):
        _, round_ = self.managed_round(request, slug, number)

        def run():
            body = RoundClockActionSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            data = body.validated_data
            act = round_clock.ACTIONS[data["action"]]
            extra = {"minutes": data["minutes"]} if data["action"] == "extend" else {}
            done = act(round_, by=request.user, **extra)
            return Response(round_clock.state_of(done).as_dict())

        return self.act(request, run)
