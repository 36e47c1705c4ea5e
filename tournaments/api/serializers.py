"""Serializers for tournaments, entrants, stages, rounds and matches."""

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from players.matching import NEW
from players.names import choice_key
from scoring.api import fields
from scoring.api.serializers import bounded
from scoring.bounds import ID_MAX, SMALLINT_MAX
from scoring.rulesets import PRESETS
from tournaments.bounds import ADVANCING_RANGE, SEED_RANGE, TABLE_SIZE_RANGE
from tournaments.models import Entrant, Invitation, Match, Round, Staff, Stage, Tournament
from tournaments.round_clock import state_of


class TournamentSerializer(serializers.ModelSerializer):
    ruleset = fields.Text(source="ruleset_key")

    class Meta:
        model = Tournament
        fields = [
            "slug",
            "name",
            "ruleset",
            "overrides",
            "table_size",
            "status",
            "public",
            "time_zone",
            "tiebreak_order",
            "placement_points",
            "bye_policy",
            "include_live",
            "created_at",
        ]
        read_only_fields = ["created_at"]


class TournamentCreateSerializer(serializers.Serializer):
    name = fields.Text(max_length=200)
    slug = fields.Slug(max_length=80, required=False, default="")
    ruleset = serializers.ChoiceField(choices=sorted(PRESETS))
    overrides = serializers.DictField(required=False, default=dict)
    table_size = bounded(*TABLE_SIZE_RANGE, required=False, allow_null=True, default=None)
    public = fields.Flag(required=False, default=True)
    time_zone = fields.Text(required=False, default="UTC")
    tiebreak_order = serializers.ListField(
        child=fields.Text(), required=False, default=None, allow_null=True
    )
    placement_points = serializers.DictField(required=False, default=dict)
    bye_policy = serializers.ChoiceField(
        choices=Tournament.ByePolicy.choices,
        required=False,
        default=Tournament.ByePolicy.WIN_AVERAGE,
    )
    include_live = fields.Flag(required=False, default=False)


class TournamentUpdateSerializer(serializers.Serializer):
    name = fields.Text(max_length=200, required=False)
    public = fields.Flag(required=False)
    time_zone = fields.Text(required=False)
    tiebreak_order = serializers.ListField(child=fields.Text(), required=False)
    placement_points = serializers.DictField(required=False)
    bye_policy = serializers.ChoiceField(choices=Tournament.ByePolicy.choices, required=False)
    include_live = fields.Flag(required=False)
    status = serializers.ChoiceField(choices=Tournament.Status.choices, required=False)
    ruleset = serializers.ChoiceField(choices=sorted(PRESETS), required=False)
    overrides = serializers.DictField(required=False)
    table_size = bounded(*TABLE_SIZE_RANGE, required=False)


class EntrantSerializer(serializers.ModelSerializer):
    player = fields.WholeNumber(source="player_id")
    partner = fields.WholeNumber(source="partner_id", allow_null=True)

    class Meta:
        model = Entrant
        fields = [
            "id",
            "name",
            "player",
            "partner",
            "seed",
            "checked_in",
            "withdrawn",
            "disqualified_at",
            "disqualified_reason",
        ]


class PlayerChoiceSerializer(serializers.Serializer):
    name = fields.Text(max_length=120, help_text="A name of the list, as written.")
    club = fields.Text(max_length=120, required=False, default="")
    token = fields.Text(
        max_length=400, required=False, allow_null=True, default=None,
        help_text="The token of the candidate chosen, as the 409 or the preview offered it; "
        "null: a new player.",
    )  # fmt: skip
    player = fields.WholeNumber(
        min_value=1, max_value=ID_MAX, required=False, allow_null=True, default=None,
        help_text="Only null (a new player): a known player is chosen by its token.",
    )  # fmt: skip

    def validate_player(self, value):
        if value is not None:
            raise serializers.ValidationError(
                _("Choose a known player by the token offered with them, not by their number.")
            )
        return value

    def to_choice(self, data: dict) -> tuple[str, int | str]:
        return choice_key(data["name"], data["club"]), data["token"] or NEW


class EntrantCreateSerializer(serializers.Serializer):
    name = fields.Text(max_length=120, required=False, default="")
    partner_name = fields.Text(max_length=120, required=False, default="")
    seed = bounded(*SEED_RANGE, required=False, allow_null=True, default=None)
    text = fields.Text(
        required=False, default="", help_text="A pasted list: one entrant a line, 'A & B' a team."
    )
    players = PlayerChoiceSerializer(
        many=True,
        required=False,
        default=list,
        help_text="For names that could be a known player (a 409 lists them): which one.",
    )

    def choices(self) -> dict[str, int | str]:
        chooser = PlayerChoiceSerializer()
        return dict(chooser.to_choice(item) for item in self.validated_data["players"])

    def validate(self, attrs):
        if not attrs["text"] and not attrs["name"]:
            raise serializers.ValidationError({"name": ["Give a name, or a pasted list."]})
        return attrs


class EntrantActionSerializer(serializers.Serializer):
    override = fields.Flag(
        required=False,
        default=False,
        help_text="Check in outside the stage's check-in window (organizers only).",
    )


class StageSerializer(serializers.ModelSerializer):
    name = fields.Text(max_length=120)
    settings = serializers.DictField(
        required=False,
        default=dict,
        help_text=(
            'The format\'s options, e.g. {"rounds": 5}, {"pools": 4, "advance": 2}, '
            '{"third_place": true} (single elimination) or {"grand_final_reset": false}; '
            '"points_basis": "target_share" (the default: points for and against count as a '
            "share of each table's target, told in the stage's own table size) or \"raw\" "
            '(raw totals, whatever the table\'s size); "bye_scores": what a bye scores, '
            '"round_winners_average" (a game won with the average points for of that '
            "round's winners, on the stage's points basis, to hundredths of a point), "
            '"stage_average" (a game won with the stage\'s average game total) or "nothing" '
            "(without it, the tournament's bye_policy: win_average means the round winners' "
            'average); "bye_match_points": a bye\'s match points, a number from 0 (without '
            "it, a win's)."
        ),
    )

    class Meta:
        model = Stage
        fields = [
            "id",
            "order",
            "name",
            "format",
            "settings",
            "status",
            "check_in_required",
            "check_in_opens",
            "check_in_closes",
        ]
        read_only_fields = [
            "id",
            "order",
            "status",
            "check_in_required",
            "check_in_opens",
            "check_in_closes",
        ]


class StageFinishPreviewSerializer(serializers.Serializer):
    """How the next stage is seeded: the top N overall, or the top k of every pool."""

    top = bounded(*ADVANCING_RANGE, required=False, allow_null=True, default=None)
    per_pool = bounded(*ADVANCING_RANGE, required=False, allow_null=True, default=None)


class StageFinishSerializer(StageFinishPreviewSerializer):
    """How the next stage is seeded, and optionally the list the organizer confirmed."""

    expected = serializers.ListField(
        child=bounded(1, ID_MAX, _("An entrant's id is a whole number from 1.")),
        required=False,
        allow_null=True,
        default=None,
        max_length=10_000,
        help_text="The entrants' ids the organizer was shown (GET this address with the same "
        "top and per_pool), in order. If who goes through is not that list any more, "
        "nothing changes and the answer is 409 with the list as it is now.",
    )
    unplayed_rounds = serializers.ListField(
        child=bounded(1, ID_MAX, _("A round's number is a whole number from 1.")),
        required=False,
        allow_null=True,
        default=None,
        max_length=1_000,
        help_text="The numbers of the stage's rounds not played yet (GET this address: "
        "unplayed_rounds), to confirm finishing without them. A stage with unplayed rounds "
        "finishes only when this names exactly those rounds; otherwise the answer is 409 "
        "naming them, and nothing changes.",
    )


class GoingThroughSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    pool = serializers.CharField(help_text='The pool the entrant played in; "" outside pools.')


class StageFinishPreviewResponseSerializer(serializers.Serializer):
    stage = serializers.IntegerField()
    going_through = GoingThroughSerializer(many=True)
    unplayed_rounds = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The stage's rounds not played yet; finishing needs them confirmed.",
    )


class SwapSerializer(serializers.Serializer):
    entrants = serializers.ListField(
        child=bounded(1, ID_MAX, _("An entrant's id is a whole number from 1.")),
        min_length=2,
        max_length=2,
        help_text="The two entrants' ids.",
        error_messages={
            "min_length": _("Name the two entrants to swap: [id, id]."),
            "max_length": _("Name the two entrants to swap: [id, id]."),
        },
    )


class TableRefereeSerializer(serializers.Serializer):
    """One table of the round (by number, or by its match id) and its referee."""

    table = bounded(1, SMALLINT_MAX, required=False)
    match = bounded(1, ID_MAX, required=False)
    referee = serializers.CharField(
        max_length=150,
        allow_null=True,
        allow_blank=True,
        help_text="The referee's username; null or empty leaves the table without one.",
    )

    def validate(self, attrs):
        if ("table" in attrs) == ("match" in attrs):
            raise serializers.ValidationError(
                _("Name each table by its number (table) or its match id (match), not both.")
            )
        return attrs


class RoundRefereesSerializer(serializers.Serializer):
    """Referees for a whole round: table by table, or one referee for every table."""

    assignments = TableRefereeSerializer(many=True, required=False, max_length=SMALLINT_MAX)
    referee = serializers.CharField(
        max_length=150,
        allow_null=True,
        allow_blank=True,
        required=False,
        help_text="One referee for every table of the round (null or empty: none).",
    )

    def validate(self, attrs):
        if ("assignments" in attrs) == ("referee" in attrs):
            raise serializers.ValidationError(
                _("Give either assignments (table by table) or one referee for every table.")
            )
        return attrs


class MatchSerializer(serializers.ModelSerializer):
    entrants = serializers.SerializerMethodField()
    referee = fields.Text(source="referee.username", default=None, allow_null=True)
    game = fields.WholeNumber(source="game_id", allow_null=True)
    status = serializers.SerializerMethodField()
    totals = serializers.SerializerMethodField()
    round = fields.WholeNumber(source="round.number")
    # A bye takes no table number (RULES.md, "Fields that don't divide").
    table_number = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = [
            "id",
            "round",
            "table_number",
            "slot",
            "bye",
            "entrants",
            "referee",
            "game",
            "status",
            "totals",
            "needs_attention",
            "attention_reason",
        ]

    def get_table_number(self, match) -> int | None:
        return None if match.bye else match.table_number

    def get_entrants(self, match: Match) -> list[dict]:
        return [
            {
                "id": seat.entrant_id,
                "name": seat.entrant.name,
                "position": seat.position,
                # Why the entrant did not play this table (empty: they played).
                "did_not_play": seat.did_not_play,
            }
            for seat in sorted(match.seats.all(), key=lambda s: s.position)
        ]

    def get_status(self, match: Match) -> str:
        if match.bye:
            return "bye"
        return match.game.status if match.game is not None else "walkover"

    def get_totals(self, match: Match) -> dict:
        return match.game.totals if match.game is not None else {}


class RoundSerializer(serializers.ModelSerializer):
    stage = fields.WholeNumber(source="stage.order")
    matches = MatchSerializer(many=True, read_only=True)
    clock = serializers.SerializerMethodField()

    class Meta:
        model = Round
        fields = ["stage", "number", "status", "flags", "published_at", "clock", "matches"]

    @extend_schema_field(
        {
            "type": "object",
            "description": "The round clock: state (off, waiting, running, paused, called), "
            "minutes, hands_after_time, deadline, seconds_left.",
        }
    )
    def get_clock(self, round_) -> dict:
        return state_of(round_).as_dict()


class RoundSummarySerializer(serializers.ModelSerializer):
    stage = fields.WholeNumber(source="stage.order")
    tables = fields.WholeNumber(source="matches.count")

    class Meta:
        model = Round
        fields = ["stage", "number", "status", "flags", "published_at", "tables"]


class StaffSerializer(serializers.ModelSerializer):
    username = fields.Text(source="user.username")

    class Meta:
        model = Staff
        fields = ["id", "username", "role", "created_at"]


class InvitationSerializer(serializers.ModelSerializer):
    username = fields.Text(source="user.username")
    tournament = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    tournament_name = fields.Text(source="tournament.name")
    invited_by = fields.Text(source="invited_by.username", default=None, allow_null=True)

    class Meta:
        model = Invitation
        fields = [
            "id",
            "tournament",
            "tournament_name",
            "username",
            "role",
            "invited_by",
            "created_at",
        ]


class InvitationCreateSerializer(serializers.Serializer):
    username = fields.Text(max_length=150)
    role = serializers.ChoiceField(choices=Staff.Role.choices)


class StaffListSerializer(serializers.Serializer):
    staff = StaffSerializer(many=True)
    invitations = InvitationSerializer(many=True)


class TokenSerializer(serializers.Serializer):
    token = fields.Text()
