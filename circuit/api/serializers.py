"""The circuit API's bodies and answers: series, ratings and ladder sessions."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from circuit.models import LadderSession, Series
from circuit.series_seen import standings_for
from scoring.api import fields
from scoring.api.serializers import bounded
from scoring.bounds import ID_MAX
from scoring.rulesets import PRESETS
from tournaments.api.confirm import confirm_field
from tournaments.models import Stage

SERIES_FIELDS = [
    "slug", "name", "public", "ruleset_key", "overrides", "table_size", "stage_format",
    "stage_settings", "tiebreak_order", "placement_points", "time_zone", "series_points",
    "best_of", "every_days", "next_event_at", "created_at",
]  # fmt: skip


class SeriesSerializer(serializers.ModelSerializer):
    class Meta:
        model = Series
        fields = SERIES_FIELDS
        read_only_fields = SERIES_FIELDS


class SeriesCreateSerializer(serializers.Serializer):
    name = fields.Text(max_length=200)
    ruleset = serializers.ChoiceField(choices=sorted(PRESETS))
    table_size = bounded(2, 6, required=False)
    overrides = serializers.DictField(required=False)
    stage_format = serializers.ChoiceField(choices=Stage.Format.values, default="swiss")
    stage_settings = serializers.DictField(required=False)
    tiebreak_order = serializers.ListField(child=fields.Text(max_length=40), required=False)
    placement_points = serializers.DictField(required=False)
    time_zone = fields.Text(max_length=64, required=False, default="UTC")
    series_points = serializers.DictField(
        required=False, help_text='Points per event placing: {"1": 25, "2": 18}.'
    )
    best_of = bounded(1, 1000, required=False, allow_null=True)
    every_days = bounded(1, 365, required=False, allow_null=True)
    first_event_at = serializers.DateTimeField(required=False, allow_null=True)
    public = fields.Flag(required=False, default=True)


class SeriesResultSerializer(serializers.Serializer):
    event = serializers.IntegerField()
    place = serializers.IntegerField()
    points = serializers.FloatField()
    counted = serializers.BooleanField()


class SeriesLineSerializer(serializers.Serializer):
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    rank = serializers.IntegerField()
    tied = serializers.BooleanField()
    points = serializers.FloatField()
    wins = serializers.IntegerField()
    best = serializers.IntegerField()
    played = serializers.IntegerField()
    results = SeriesResultSerializer(many=True)


class SeriesEventSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    slug = serializers.CharField()
    name = serializers.CharField()
    played = serializers.BooleanField()


class SeriesStandingsSerializer(serializers.Serializer):
    computed_at = serializers.DateTimeField(allow_null=True)
    events = SeriesEventSerializer(many=True)
    lines = SeriesLineSerializer(many=True)
    left_out = serializers.IntegerField(
        help_text="Private events these standings leave out (the series' organizers see all)."
    )


class SeriesDetailSerializer(SeriesSerializer):
    standings = serializers.SerializerMethodField()

    class Meta(SeriesSerializer.Meta):
        fields = [*SERIES_FIELDS, "standings"]

    @extend_schema_field(SeriesStandingsSerializer)
    def get_standings(self, series) -> dict:
        user = self.context["request"].user
        return SeriesStandingsSerializer(standings_for(series, user)).data


class RatingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    ordinal = serializers.FloatField(help_text="mu - 3 sigma: the conservative rating.")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()


class HistoryPointSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    ordinal = serializers.FloatField()
    games = serializers.IntegerField()


class PlayerPoolSerializer(serializers.Serializer):
    pool = serializers.CharField()
    ordinal = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()
    history = HistoryPointSerializer(many=True)


class LadderSerializer(serializers.ModelSerializer):
    class Meta:
        model = LadderSession
        fields = [
            "slug", "name", "ruleset_key", "overrides", "table_size", "public", "status",
            "every_minutes", "last_formed_at", "created_at",
        ]  # fmt: skip
        read_only_fields = fields


class LadderCreateSerializer(serializers.Serializer):
    name = fields.Text(max_length=200)
    ruleset = serializers.ChoiceField(choices=sorted(PRESETS))
    table_size = bounded(2, 6, required=False)
    overrides = serializers.DictField(required=False)
    every_minutes = bounded(0, 240, required=False, default=0)
    public = fields.Flag(required=False, default=True)


class LadderPlayerBody(serializers.Serializer):
    player_id = bounded(1, ID_MAX, required=False)
    name = fields.Text(max_length=120, required=False, default="")
    reason = fields.Text(max_length=500, required=False, default="", help_text="Why (forfeit).")
    confirm = confirm_field()  # forfeit and close: each ends a game or removes people
