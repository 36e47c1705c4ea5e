"""The officials' API for one game: disputes, forfeits, deductions, who leads, re-deals
and the game's audit list (RULES.md, Officiating). Clock violations go through the
events endpoint (``{"kind": "clock_violation"}``)."""

from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import run_once
from config.pagination import Pages, page_response
from config.parsers import JSONParser
from domain.say import say
from scoring import officiating
from scoring.api import fields
from scoring.api import serializers as s
from scoring.api.views import HAND_FIELDS, IDEMPOTENCY, GameMixin, game_state
from scoring.models import Dispute, OfficialAct
from scoring.rulesets import ScoringError

REASON = fields.Text(max_length=500)


class DisputePhotoSerializer(serializers.Serializer):
    url = serializers.SerializerMethodField()
    content_type = fields.Text()
    size = fields.WholeNumber()

    def get_url(self, photo) -> str:
        """Where the photo is served, to the game's officials only."""
        return photo.get_absolute_url()


class DisputeSerializer(serializers.ModelSerializer):
    hand = fields.WholeNumber(source="hand_number", allow_null=True)
    opened_by = fields.Text(source="opened_by.username", default=None, allow_null=True)
    resolved_by = fields.Text(source="resolved_by.username", default=None, allow_null=True)
    photos = DisputePhotoSerializer(many=True, read_only=True)

    class Meta:
        model = Dispute
        fields = [
            "id",
            "game",
            "hand",
            "note",
            "status",
            "opened_by",
            "opened_at",
            "resolution",
            "resolved_by",
            "resolved_at",
            "photos",
        ]


class DisputeInputSerializer(serializers.Serializer):
    note = fields.Text(max_length=officiating.NOTE_LENGTH)
    hand = s.bounded(*s.HAND_NUMBERS, required=False, allow_null=True, default=None)
    photos = serializers.ListField(
        child=serializers.FileField(),
        required=False,
        default=list,
        max_length=officiating.MOST_PHOTOS,
        help_text="Images (JPEG, PNG, GIF, WebP, HEIC), sent as multipart/form-data.",
    )


class DisputeCorrectionSerializer(s.HandInputSerializer):
    number = s.bounded(*s.HAND_NUMBERS, required=False)
    expected_version = s.bounded(1, s.MOST_VERSIONS)
    in_play = s.in_play_list(default=None, allow_null=True)


class ResolveSerializer(serializers.Serializer):
    upheld = fields.Flag()
    reason = REASON
    correction = DisputeCorrectionSerializer(required=False, allow_null=True, default=None)


class SeatReasonSerializer(serializers.Serializer):
    seat = fields.Text(max_length=1)
    reason = REASON


class ForfeitSerializer(SeatReasonSerializer):
    confirm = fields.Flag(
        required=False,
        default=False,
        help_text=(
            "true to confirm: the game ends now with this seat placed last. Without it "
            "nothing changes and the answer (400) says so."
        ),
    )


class DeductionSerializer(SeatReasonSerializer):
    points = s.bounded(*s.PENALTY_RANGE)


class LeaderSerializer(serializers.Serializer):
    seat = fields.Text(max_length=1)


class RedealSerializer(serializers.Serializer):
    reason = fields.Text(max_length=500, required=False, allow_blank=True, default="")


class OfficialActSerializer(serializers.ModelSerializer):
    actor = fields.Text(source="actor.username", default=None, allow_null=True)
    hand = fields.WholeNumber(source="hand_number", allow_null=True)

    class Meta:
        model = OfficialAct
        fields = ["id", "at", "kind", "actor", "game", "hand", "subject", "reason", "detail"]


class DisputeListView(GameMixin, APIView):
    """The game's disputes (its officials), or open one on a hand or the whole game."""

    parser_classes = [JSONParser, MultiPartParser]
    pagination_class = Pages

    @extend_schema(responses=DisputeSerializer(many=True))
    def get(self, request, pk: int):
        game = self.get_game(request, pk, action="game.score")
        disputes = game.disputes.select_related("opened_by", "resolved_by").prefetch_related(
            "photos"
        )
        return page_response(
            self,
            request,
            disputes.order_by("pk"),
            lambda page: DisputeSerializer(page, many=True).data,
        )

    @extend_schema(
        request={
            "application/json": DisputeInputSerializer,
            "multipart/form-data": DisputeInputSerializer,
        },
        responses={201: DisputeSerializer},
        parameters=[IDEMPOTENCY],
        examples=[
            OpenApiExample(
                "A hand in question", value={"hand": 3, "note": "B says the 6-5 was played"}
            )
        ],
    )
    def post(self, request, pk: int):
        game = self.get_game(request, pk, action="game.score")
        return run_once(request, lambda: self._open(request, game))

    def _open(self, request, game) -> Response:
        data = request.data
        if hasattr(data, "getlist"):  # multipart: the note and hand as text, the photos
            data = {
                key: data.get(key) for key in ("note", "hand") if data.get(key) not in (None, "")
            }
            if "hand" in data:
                data["hand"] = int(data["hand"]) if data["hand"].isdigit() else data["hand"]
            if request.POST.getlist("photos"):  # text where files belong
                raise ValidationError({"photos": [_("Send the photos as files.")]})
            data["photos"] = request.FILES.getlist("photos")
        body = DisputeInputSerializer(data=data)
        body.is_valid(raise_exception=True)
        dispute = officiating.open_dispute(game, by=request.user, **body.validated_data)
        return Response(DisputeSerializer(dispute).data, status=status.HTTP_201_CREATED)


class DisputeResolveView(GameMixin, APIView):
    """Uphold a dispute (with the correction of its hand, in the same action) or dismiss
    it, with a reason (organizers)."""

    @extend_schema(request=ResolveSerializer, responses={200: DisputeSerializer})
    def post(self, request, pk: int, dispute_id: int):
        game = self.get_game(request, pk, action="game.manage")
        if not game.disputes.filter(pk=dispute_id).exists():
            raise Http404
        return run_once(request, lambda: self._resolve(request, dispute_id))

    def _resolve(self, request, dispute_id: int) -> Response:
        body = ResolveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        correction = None
        if data["correction"] is not None:
            given = data["correction"]
            correction = {name: given[name] for name in HAND_FIELDS}
            correction["expected_version"] = given["expected_version"]
            in_play = given["in_play"]
            correction["in_play"] = None if in_play is None else [dict(e) for e in in_play]
            if given.get("number") is not None:
                correction["hand"] = given["number"]
        dispute = officiating.resolve_dispute(
            dispute_id,
            by=request.user,
            upheld=data["upheld"],
            reason=data["reason"],
            correction=correction,
        )
        return Response(DisputeSerializer(dispute).data)


class ForfeitView(GameMixin, APIView):
    """A seat forfeits the game: it ends at once, that side placed last (organizers)."""

    @extend_schema(request=ForfeitSerializer, responses={200: OpenApiTypes.OBJECT})
    def post(self, request, pk: int):
        game = self.get_game(request, pk, action="game.manage")
        return run_once(request, lambda: self._forfeit(request, game))

    def _forfeit(self, request, game) -> Response:
        body = ForfeitSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if not data["confirm"]:
            raise ScoringError(
                say(
                    "Nothing changed: a forfeit ends the game now with seat {seat} placed "
                    "last. Send confirm: true to do it.",
                    seat=data["seat"],
                ),
                "confirm",
            )
        officiating.forfeit_seat(game, data["seat"], data["reason"], request.user)
        return Response(game_state(game))


class DeductionView(GameMixin, APIView):
    """Deduct points from a seat in the hand in progress, with a reason (organizers)."""

    @extend_schema(request=DeductionSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request, pk: int):
        game = self.get_game(request, pk, action="game.manage")
        return run_once(request, lambda: self._deduct(request, game))

    def _deduct(self, request, game) -> Response:
        body = DeductionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        event = officiating.deduct_points(game, by=request.user, **body.validated_data)
        return Response(
            {"event": s.EventSerializer(event).data, "game": game_state(game)},
            status=status.HTTP_201_CREATED,
        )


class LeaderView(GameMixin, APIView):
    """Who leads the hand in progress: the answer to the rule set's question."""

    @extend_schema(request=LeaderSerializer, responses={200: OpenApiTypes.OBJECT})
    def post(self, request, pk: int):
        game = self.get_game(request, pk, action="game.score")
        return run_once(request, lambda: self._lead(request, game))

    def _lead(self, request, game) -> Response:
        body = LeaderSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        officiating.set_leader(game, by=request.user, seat=body.validated_data["seat"])
        return Response(game_state(game))


class RedealView(GameMixin, APIView):
    """Deal the hand in progress again (nobody holds a double): nothing is scored."""

    @extend_schema(request=RedealSerializer, responses={200: OpenApiTypes.OBJECT})
    def post(self, request, pk: int):
        game = self.get_game(request, pk, action="game.score")
        return run_once(request, lambda: self._redeal(request, game))

    def _redeal(self, request, game) -> Response:
        body = RedealSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        officiating.redeal(game, by=request.user, reason=body.validated_data["reason"])
        return Response(game_state(game))


class GameAuditView(GameMixin, APIView):
    """The game's officiating acts, newest first (organizers)."""

    pagination_class = Pages

    @extend_schema(responses=OfficialActSerializer(many=True))
    def get(self, request, pk: int):
        game = self.get_game(request, pk, action="game.manage")
        acts = game.official_acts.select_related("actor").order_by("-at", "-pk")
        return page_response(
            self, request, acts, lambda page: OfficialActSerializer(page, many=True).data
        )
