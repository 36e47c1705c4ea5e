"""The referee API: games, hands, corrections, events, and the rule-book calculator."""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db.models import Prefetch, Q
from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotAuthenticated, PermissionDenied, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle
from rest_framework.views import APIView

from accounts.idempotency import HEADER, run_once
from accounts.permissions import allowed
from config.pagination import Pages, page_response
from scoring import engine, services
from scoring.api import serializers as s
from scoring.models import Game, Hand, ScoreEvent, Seat, Side
from scoring.rulesets import PRESETS, get_ruleset
from scoring.services import GameConflict, SeatSpec

VOID_REASON_LENGTH = 500

# What a hand's end says, the same whether it is recorded or corrected.
HAND_FIELDS = ("ended", "domino_by", "pips", "tiles", "leader", "lowest_tiles")


def _hand_fields(data: dict) -> dict:
    return {name: data[name] for name in HAND_FIELDS}


IDEMPOTENCY = OpenApiParameter(
    HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="Repeat a write safely: the same key and body replay the first answer.",
)

HAND_EXAMPLES = [
    OpenApiExample(
        "A block (DCS)",
        value={"number": 1, "ended": "block", "pips": {"A": 8, "B": 15, "C": 22, "D": 12}},
        request_only=True,
    ),
    OpenApiExample(
        "A domino with in-play points (Cutthroat)",
        value={
            "number": 2,
            "ended": "domino",
            "domino_by": "A",
            "pips": {"A": 0, "B": 13, "C": 9, "D": 5},
            "leader": "B",
            "in_play": [{"seat": "A", "points": 10}, {"seat": "C", "points": 15}],
        },
        request_only=True,
    ),
    OpenApiExample(
        "Tiles instead of pips",
        value={
            "number": 3,
            "ended": "domino",
            "domino_by": "B",
            "tiles": {"A": [[6, 6], [1, 2]], "B": [], "C": [[0, 3]], "D": [[2, 2]]},
        },
        request_only=True,
    ),
]


def games_visible_to(user):
    """Games ``user`` may read: public ones (not held), their own and the ones they referee."""
    games = Game.objects.all()
    if getattr(user, "is_superuser", False):
        return games
    public = Q(public=True, held=False)
    if getattr(user, "is_authenticated", False):
        return games.filter(public | Q(referees=user) | Q(created_by=user)).distinct()
    return games.filter(public)


def full_game(pk: int) -> Game:
    """A game with everything its detail shows, in a fixed number of queries."""
    return Game.objects.prefetch_related(
        Prefetch("sides", queryset=Side.objects.order_by("position")),
        Prefetch("seats", queryset=Seat.objects.select_related("side").order_by("position")),
        Prefetch(
            "hands", queryset=Hand.objects.filter(is_current=True).select_related("recorded_by")
        ),
        Prefetch(
            "events",
            queryset=ScoreEvent.objects.filter(active=True).select_related("seat", "side"),
        ),
    ).get(pk=pk)


def game_state(game: Game) -> dict:
    return s.GameSerializer(full_game(game.pk)).data


class GameMixin:
    """Find the game in the URL: 404 if the caller may not see it, 401/403 to write."""

    def refusal_details(self, error) -> dict:
        """A refused write tells the table where the game stands, to carry on from there."""
        details = {}
        if isinstance(error, GameConflict):
            if error.game is not None:
                details["game"] = game_state(error.game)
            if error.current is not None:
                details["current"] = s.HandSerializer(error.current).data
        return details

    def get_game(self, request, pk: int, *, action: str = "game.view") -> Game:
        game = Game.objects.filter(pk=pk).first()
        if game is None or not allowed(request.user, "game.view", game):
            raise Http404
        if action != "game.view":
            if not request.user.is_authenticated:
                raise NotAuthenticated()
            if not allowed(request.user, action, game):
                raise PermissionDenied("You are not a referee of this game.")
        return game


class GameListView(generics.GenericAPIView):
    """List the games you may see, or open a new game (you become its referee)."""

    serializer_class = s.GameSummarySerializer

    def get_queryset(self):
        games = games_visible_to(self.request.user).prefetch_related(
            Prefetch("sides", queryset=Side.objects.order_by("position"))
        )
        wanted = self.request.query_params.get("status")
        if wanted is not None:
            if wanted not in Game.Status.values:
                raise ValidationError(
                    {
                        "status": [
                            _("Status is one of {statuses}.").format(
                                statuses=", ".join(Game.Status.values)
                            )
                        ]
                    }
                )
            games = games.filter(status=wanted)
        return games.order_by("-updated_at", "-pk")

    @extend_schema(
        parameters=[OpenApiParameter("status", OpenApiTypes.STR, enum=Game.Status.values)],
        responses=s.GameSummarySerializer(many=True),
    )
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(s.GameSummarySerializer(page, many=True).data)

    @extend_schema(
        request=s.GameCreateSerializer, responses={201: s.GameSerializer}, parameters=[IDEMPOTENCY]
    )
    def post(self, request):
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        return run_once(request, lambda: self._create(request))

    def refusal_field(self, error) -> str:
        """The rule engine's fields as this request names them: seats, ruleset, overrides."""
        field = "seats" if error.field == "players" else error.field
        return field if field in {"seats", "ruleset"} else "overrides"

    def _create(self, request) -> Response:
        body = s.GameCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        seats = [
            seat if not isinstance(seat, str) else SeatSpec(display_name=seat)
            for seat in data["seats"]
        ]
        game = services.start_game(
            ruleset_key=data["ruleset"],
            seats=seats,
            by=request.user,
            overrides=data["overrides"],
            label=data["label"],
            public=data["public"],
            referees=[request.user],
        )
        return Response(game_state(game), status=status.HTTP_201_CREATED)


class GameDetailView(GameMixin, APIView):
    """A game: sides, seats, totals, the rules in effect, hands and in-play events."""

    @extend_schema(responses=s.GameSerializer)
    def get(self, request, pk: int):
        return Response(game_state(self.get_game(request, pk)))


def hand_payload(hand: Hand) -> dict:
    """A recorded hand as the table needs it back, without a serializer's overhead."""
    return {
        "number": hand.number,
        "version": hand.version,
        "ended": hand.ended,
        "domino_by": hand.domino_by or None,
        "leader": hand.leader or None,
        "pips": hand.pips,
        "awards": hand.awards,
        "winners": hand.winners,
        "voided": hand.voided,
        "reason": hand.reason,
    }


def totals_payload(game: Game) -> dict:
    """The game's new totals and state after a hand (``game.totals`` keeps the sides' order)."""
    return {
        "id": game.pk,
        "status": game.status,
        "winner": game.winner or None,
        "next_hand": None if game.is_finished else game.hand_count + 1,
        "next_leader": game.next_leader or None,
        "revision": game.revision,
        "sides": [
            {"name": name, "position": position, "total": total, "seats": name.split("+")}
            for position, (name, total) in enumerate(game.totals.items())
        ],
    }


class HandListView(GameMixin, APIView):
    """Record the end of the game's next hand."""

    @extend_schema(
        request=s.HandInputSerializer,
        responses={201: OpenApiTypes.OBJECT},
        examples=HAND_EXAMPLES,
        parameters=[IDEMPOTENCY],
    )
    def post(self, request, pk: int):
        # Refused before the body is read: a caller who may not score the game learns
        # nothing of it from what a bad body would be told.
        self.get_game(request, pk, action="game.score")
        return run_once(request, lambda: self._record(request, pk))

    def _record(self, request, pk: int) -> Response:
        data = s.validated_hand_body(request.data)
        try:
            # The service locks the game and checks that the caller referees it.
            outcome = services.record_hand(
                pk,
                by=request.user,
                number=data["number"],
                in_play=[dict(entry) for entry in data["in_play"]],
                **_hand_fields(data),
            )
        except Game.DoesNotExist as error:
            raise Http404 from error
        except DjangoPermissionDenied as error:
            self.get_game(request, pk)  # 404 where the caller may not even see the game
            raise PermissionDenied("You are not a referee of this game.") from error
        return Response(
            {"hand": hand_payload(outcome.hand), "game": totals_payload(outcome.game)},
            status=status.HTTP_201_CREATED,
        )


class HandDetailView(GameMixin, APIView):
    """Correct a recorded hand (a new version), or void it."""

    @extend_schema(
        request=s.CorrectionSerializer,
        responses={200: OpenApiTypes.OBJECT},
        parameters=[IDEMPOTENCY],
        examples=[
            OpenApiExample(
                "A recount",
                value={
                    "ended": "block",
                    "pips": {"A": 8, "B": 15, "C": 20, "D": 12},
                    "reason": "C's hand was recounted",
                    "expected_version": 1,
                },
                request_only=True,
            )
        ],
    )
    def put(self, request, pk: int, number: int):
        game = self.get_game(request, pk, action="game.score")
        return run_once(request, lambda: self._correct(request, game, number))

    def _correct(self, request, game: Game, number: int) -> Response:
        body = s.CorrectionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        in_play = data["in_play"]
        outcome = services.correct_hand(
            game,
            number,
            by=request.user,
            reason=data["reason"],
            expected_version=data["expected_version"],
            in_play=None if in_play is None else [dict(entry) for entry in in_play],
            **_hand_fields(data),
        )
        return Response(
            {"hand": s.HandSerializer(outcome.hand).data, "game": game_state(outcome.game)}
        )

    @extend_schema(
        request=s.VoidSerializer,
        parameters=[
            IDEMPOTENCY,
            OpenApiParameter("reason", OpenApiTypes.STR, description="why the hand is void"),
        ],
        responses={200: OpenApiTypes.OBJECT},
    )
    def delete(self, request, pk: int, number: int):
        game = self.get_game(request, pk, action="game.score")
        return run_once(request, lambda: self._void(request, game, number))

    def _void(self, request, game: Game, number: int) -> Response:
        body = s.VoidSerializer(data=request.data if request.data else {})
        body.is_valid(raise_exception=True)
        reason = body.validated_data.get("reason") or request.query_params.get("reason", "")
        if not reason.strip() or len(reason) > VOID_REASON_LENGTH:
            raise ValidationError(
                {"reason": [_("Say why the hand is void, in at most 500 characters.")]}
            )
        outcome = services.void_hand(game, number, by=request.user, reason=reason)
        return Response(
            {"hand": s.HandSerializer(outcome.hand).data, "game": game_state(outcome.game)}
        )


class HandHistoryView(GameMixin, APIView):
    """Every version of a hand: who recorded or changed it, when and why."""

    pagination_class = Pages

    @extend_schema(responses=s.HandSerializer(many=True))
    def get(self, request, pk: int, number: int):
        game = self.get_game(request, pk)
        versions = Hand.objects.filter(game=game, number=number).select_related("recorded_by")
        if not versions.exists():
            raise Http404
        return page_response(
            self,
            request,
            versions.order_by("version"),
            lambda page: s.HandSerializer(page, many=True).data,
        )


class EventListView(GameMixin, APIView):
    """Record in-play points, a steal, a penalty or a forced pass in the hand in progress."""

    @extend_schema(
        request=s.EventInputSerializer,
        responses={201: OpenApiTypes.OBJECT},
        parameters=[IDEMPOTENCY],
        examples=[
            OpenApiExample(
                "Fifteen in play", value={"hand": 1, "seat": "A", "kind": "in_play", "points": 15}
            ),
            OpenApiExample(
                "A steal with a double",
                value={"hand": 1, "seat": "B", "kind": "steal", "points": 10, "double": True},
            ),
            OpenApiExample(
                "A steal from the last player who played (the seat between passed)",
                value={"hand": 1, "seat": "C", "kind": "steal", "points": 10, "from_seat": "A"},
            ),
            OpenApiExample("A penalty", value={"hand": 1, "seat": "C", "kind": "penalty"}),
            OpenApiExample(
                "A clock violation: the answer's became says forced_pass or penalty",
                value={"hand": 1, "seat": "C", "kind": "clock_violation"},
            ),
        ],
    )
    def post(self, request, pk: int):
        game = self.get_game(request, pk, action="game.score")
        return run_once(request, lambda: self._add(request, game))

    def _add(self, request, game: Game) -> Response:
        body = s.EventInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        events = services.add_score_event(game, by=request.user, **data)
        created = ScoreEvent.objects.filter(pk__in=[e.pk for e in events]).select_related(
            "seat", "side"
        )
        answer = {"events": s.EventSerializer(created, many=True).data, "game": game_state(game)}
        if data["kind"] == services.CLOCK_VIOLATION:
            answer["became"] = events[0].kind  # forced_pass or penalty
        return Response(answer, status=status.HTTP_201_CREATED)


class EventDetailView(GameMixin, APIView):
    """Undo an event of the hand in progress."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT}, parameters=[IDEMPOTENCY])
    def delete(self, request, pk: int, event_id: int):
        game = self.get_game(request, pk, action="game.score")
        return run_once(request, lambda: self._undo(request, game, event_id))

    def _undo(self, request, game: Game, event_id: int) -> Response:
        try:
            services.undo_event(game, event_id, by=request.user)
        except engine.ScoringError as error:
            if error.field == "event":  # an event that is not there is not found
                raise Http404 from error
            raise
        return Response({"game": game_state(game)})


class ReopenView(GameMixin, APIView):
    """Undo a finished game's result (organizers)."""

    @extend_schema(request=s.ReasonSerializer, responses={200: s.GameSerializer})
    def post(self, request, pk: int):
        game = self.get_game(request, pk, action="game.manage")
        return run_once(request, lambda: self._reopen(request, game))

    def _reopen(self, request, game: Game) -> Response:
        body = s.ReasonSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.reopen_game(game, by=request.user, reason=body.validated_data["reason"])
        return Response(game_state(game))


class RulesetListView(APIView):
    """Every preset with every field, per table size: the rule book."""

    permission_classes = [AllowAny]
    throttle_classes = [AnonRateThrottle]
    pagination_class = Pages

    @extend_schema(operation_id="rulesets_list", responses=s.RulesetSerializer(many=True))
    def get(self, request):
        return page_response(
            self,
            request,
            list(PRESETS.values()),
            lambda page: [preset.to_dict() for preset in page],
        )


class RulesetDetailView(APIView):
    """One preset with every field, per table size."""

    permission_classes = [AllowAny]
    throttle_classes = [AnonRateThrottle]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, key: str):
        if key not in PRESETS:
            raise Http404
        return Response(PRESETS[key].to_dict())


class CalculatorView(APIView):
    """Score a hand under a rule set without a game: nothing is stored."""

    permission_classes = [AllowAny]
    throttle_classes = [AnonRateThrottle]

    def refusal_field(self, error) -> str:
        """The engine counts players; this request names them as seats."""
        return "seats" if error.field == "players" else error.field

    @extend_schema(
        request=s.CalculatorSerializer,
        responses=s.HandResultSerializer,
        examples=[
            OpenApiExample(
                "DCS block",
                value={"ended": "block", "pips": {"A": 8, "B": 15, "C": 22, "D": 12}},
                request_only=True,
            )
        ],
    )
    def post(self, request, key: str):
        if key not in PRESETS:
            raise Http404
        body = s.CalculatorSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        rules = get_ruleset(key, players=len(data["seats"]), overrides=data["overrides"])
        result = engine.score_hand(
            rules,
            seats=data["seats"],
            pips=data["pips"],
            tiles=data["tiles"],
            domino_by=data["domino_by"] if data["ended"] == "domino" else None,
            leader=data["leader"],
            lowest_tiles=data["lowest_tiles"],
        )
        return Response(
            {
                "ended": result.ended,
                "awards": result.awards,
                "raw_awards": result.raw_awards,
                "winners": list(result.winners),
                "pips": result.pips,
            }
        )
