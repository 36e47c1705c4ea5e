"""The players API's serializers: players and their events, claims and merges, the record
of acts on who you are, self-registration, applications and the paste preview."""

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from players import identity, registration, selectors
from players.models import Application, IdentityAct, MergeRequest, Player, Registration
from scoring.api import fields


class PlayerSerializer(serializers.ModelSerializer):
    name = serializers.CharField(source="display_name")
    linked = serializers.SerializerMethodField(help_text="Linked to a user's account.")

    class Meta:
        model = Player
        fields = ["id", "name", "club", "country", "linked"]

    def get_linked(self, player) -> bool:
        return player.user_id is not None


class PlayerEventSerializer(serializers.Serializer):
    tournament = serializers.CharField(source="tournament.slug")
    tournament_name = serializers.CharField(source="tournament.name")
    status = serializers.CharField(source="tournament.status")
    entrant = serializers.IntegerField(source="entrant.id")
    entrant_name = serializers.CharField(source="entrant.name")
    withdrawn = serializers.BooleanField(source="entrant.withdrawn")
    placing = serializers.IntegerField(
        allow_null=True, help_text="Rank in the last stage with standings; null before."
    )
    tied = serializers.BooleanField()
    of = serializers.IntegerField(help_text="Entrants in that stage's standings.")
    stage = serializers.CharField(source="stage_name")
    games = serializers.IntegerField(help_text="Finished games played.")


class PlayerDetailSerializer(PlayerSerializer):
    games = serializers.SerializerMethodField(help_text="Finished games in every event shown.")
    events = serializers.SerializerMethodField()

    class Meta(PlayerSerializer.Meta):
        fields = [*PlayerSerializer.Meta.fields, "games", "events"]

    def _lines(self, player):
        cache = self.context.setdefault("lines", {})
        if player.pk not in cache:
            cache[player.pk] = selectors.player_events(player, self.context["user"])
        return cache[player.pk]

    def get_games(self, player) -> int:
        return sum(line.games for line in self._lines(player))

    @extend_schema_field(PlayerEventSerializer(many=True))
    def get_events(self, player) -> list:
        return PlayerEventSerializer(self._lines(player), many=True).data


class MergeSerializer(serializers.Serializer):
    other = fields.WholeNumber(
        min_value=1, max_value=2**63 - 1, help_text="The player merged into this one."
    )


class ClaimCodeSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    code = serializers.CharField()


class ClaimSerializer(serializers.Serializer):
    code = fields.Text(max_length=40)


class IdentityActSerializer(serializers.ModelSerializer):
    by = serializers.CharField(source="by.username", allow_null=True)
    kind_name = serializers.CharField(source="get_kind_display")

    class Meta:
        model = IdentityAct
        fields = ["id", "kind", "kind_name", "by", "at", "player_id", "player_name", "other_id",
                  "other_name", "event"]  # fmt: skip


class EntryRequestSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    event = serializers.CharField(help_text="The event's name.")
    event_slug = serializers.CharField()
    answer = serializers.ChoiceField(choices=["pending", "accepted", "declined", "expired"])
    asked_by = serializers.CharField(allow_null=True, help_text="The organizer who asked.")
    asked_at = serializers.DateTimeField()
    answered_at = serializers.DateTimeField(allow_null=True)


class MergeAskSerializer(serializers.Serializer):
    other = fields.WholeNumber(
        min_value=1, max_value=2**63 - 1, help_text="A player who is you too, merged into yours."
    )


class AskedMergeSerializer(serializers.ModelSerializer):
    keep = serializers.IntegerField(source="keep_id")
    keep_name = serializers.CharField(source="keep.display_name")
    other = serializers.IntegerField(source="other_id", allow_null=True)
    asked_by = serializers.CharField(source="asked_by.username")
    may_confirm = serializers.SerializerMethodField(help_text="You may confirm it now.")

    class Meta:
        model = MergeRequest
        fields = ["id", "keep", "keep_name", "other", "other_name", "asked_by", "status",
                  "confirmed_events", "may_confirm", "created_at"]  # fmt: skip

    def get_may_confirm(self, asked) -> bool:
        return identity.may_confirm(self.context["user"], asked)


class _Time(serializers.DateTimeField):
    """A moment; without an offset it is read in the tournament's time zone."""

    def to_internal_value(self, value):
        if not isinstance(value, str):
            self.fail("invalid", format="ISO 8601")
        moment = super().to_internal_value(value)
        if not 2000 <= moment.year <= 2999:
            raise serializers.ValidationError("Give a date from the year 2000 to 2999.")
        return moment


class RegistrationSerializer(serializers.ModelSerializer):
    opens_at = _Time(required=False, allow_null=True, default=None)
    closes_at = _Time(required=False, allow_null=True, default=None)
    capacity = fields.WholeNumber(
        required=False, allow_null=True, default=None, min_value=1,
        max_value=settings.MAX_ENTRANTS, help_text="Null: no limit; past it, a waiting list.",
    )  # fmt: skip
    requires_approval = fields.Flag(required=False, default=False)
    check_in_opens_at = _Time(
        required=False, allow_null=True, default=None,
        help_text="Null: players cannot check themselves in.",
    )  # fmt: skip
    check_in_closes_at = _Time(required=False, allow_null=True, default=None)
    open = serializers.SerializerMethodField()
    check_in_open = serializers.SerializerMethodField()
    entered = serializers.SerializerMethodField(help_text="Entrants not withdrawn.")
    waiting = serializers.SerializerMethodField(help_text="Entries on the waiting list.")

    class Meta:
        model = Registration
        fields = [
            "opens_at", "closes_at", "capacity", "requires_approval", "check_in_opens_at",
            "check_in_closes_at", "open", "check_in_open", "entered", "waiting",
        ]  # fmt: skip

    def get_open(self, found) -> bool:
        return registration.registration_open(found.tournament)

    def get_check_in_open(self, found) -> bool:
        return registration.check_in_open(found.tournament)

    def get_entered(self, found) -> int:
        return found.tournament.entrants.filter(withdrawn=False).count()

    def get_waiting(self, found) -> int:
        return found.tournament.applications.filter(status=Application.Status.WAITING).count()


class ApplicationSerializer(serializers.ModelSerializer):
    tournament = serializers.CharField(source="tournament.slug")
    user = serializers.CharField(source="user.username")
    player = serializers.IntegerField(source="player_id")
    player_name = serializers.CharField(source="player.display_name")
    partner_user = serializers.CharField(source="partner_user.username", allow_null=True)
    partner = serializers.IntegerField(source="partner_id", allow_null=True)
    entrant = serializers.IntegerField(source="entrant_id", allow_null=True)

    class Meta:
        model = Application
        fields = [
            "id", "tournament", "user", "player", "player_name", "partner_user", "partner",
            "status", "approved", "entrant", "queued_at", "created_at",
        ]  # fmt: skip


class EnterSerializer(serializers.Serializer):
    name = fields.Text(
        max_length=120, required=False, default="",
        help_text="Your name as entered, if your account has no player yet.",
    )  # fmt: skip
    partner = fields.Text(
        max_length=150, required=False, default="", help_text="Partners: their username."
    )
    new_player = fields.Flag(
        required=False, default=False,
        help_text="True: you are not the known player of that name; make a new one.",
    )  # fmt: skip


class AnswerSerializer(serializers.Serializer):
    name = fields.Text(max_length=120, required=False, default="")
    new_player = fields.Flag(required=False, default=False)


class SelfCheckInSerializer(serializers.Serializer):
    present = fields.Flag(required=False, default=True)


class PreviewSerializer(serializers.Serializer):
    text = fields.Text(help_text="A pasted list: one entrant a line, 'A & B' a team.")


class CandidateSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    club = serializers.CharField()
    token = serializers.CharField(help_text="Give it back to choose this player (for an hour).")


class PreviewNameSerializer(serializers.Serializer):
    name = serializers.CharField()
    club = serializers.CharField()
    player = serializers.IntegerField(allow_null=True, help_text="The same player, if known.")
    asked = serializers.BooleanField(
        help_text="The same player has someone else's account: they are asked to accept the "
        "entry, and until then a new player of the name plays."
    )
    candidates = CandidateSerializer(many=True, help_text="Players it might be: choose.")


class PreviewLineSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    names = PreviewNameSerializer(many=True)


class ProblemSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    text = serializers.CharField()
    message = serializers.CharField()


class PreviewResultSerializer(serializers.Serializer):
    lines = PreviewLineSerializer(many=True)
    problems = ProblemSerializer(many=True)
