"""The tournaments API: events, entrants, stages, rounds (with pairing flags) and matches."""

import gzip
import json

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Count, Prefetch, Q
from django.http import Http404, HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotAuthenticated, PermissionDenied, ValidationError
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import run_once
from accounts.permissions import allowed
from config.pagination import Pages, page_response
from config.schema import ErrorSerializer
from domain.i18n import told
from domain.live import Viewer, live_answer, signed_in
from domain.numbers import whole_number
from domain.say import say
from tournaments import exports, services
from tournaments.api import serializers as s
from tournaments.api.confirm import EntrantActionRequestSerializer, withdraw_confirmed
from tournaments.models import (
    Entrant,
    Match,
    MatchSeat,
    Round,
    Stage,
    Tournament,
)
from tournaments.read import answers, live, selectors
from tournaments.stage_facts import points_basis


class TournamentMixin:
    def get_tournament(
        self, request, slug: str, *, manage: bool = False, noted: bool = False
    ) -> Tournament:
        """The tournament, if this caller may see it (and manage it, with ``manage``).
        ``noted``: the view answers from the cache too, so whether everyone may see it is
        kept for its fast path first (see ``live.note_visibility``)."""
        tournament = Tournament.objects.filter(slug=slug).first()
        if tournament is not None and noted:
            live.note_visibility(tournament)
        if tournament is None or not allowed(request.user, "tournament.view", tournament):
            raise Http404
        if manage:
            if not request.user.is_authenticated:
                raise NotAuthenticated()
            if not allowed(request.user, "tournament.manage", tournament):
                raise PermissionDenied("Only this tournament's organizers may do that.")
        return tournament

    def managed_round(self, request, slug: str, number: int) -> tuple[Tournament, Round]:
        """The tournament (for its organizers) and its round ``number`` of the stage asked."""
        tournament = self.get_tournament(request, slug, manage=True)
        round_ = Round.objects.filter(stage=_stage_of(tournament, request), number=number).first()
        if round_ is None:
            raise Http404
        return tournament, round_

    def act(self, request, action) -> Response:
        """Run a service through the idempotency guard (its refusals are the handler's)."""
        return run_once(request, action)


class TournamentListView(TournamentMixin, generics.GenericAPIView):
    """Public tournaments (and your own); create one from a preset."""

    serializer_class = s.TournamentSerializer

    def get_queryset(self):
        user = self.request.user
        tournaments = Tournament.objects.all()
        if getattr(user, "is_superuser", False):
            return tournaments
        if user.is_authenticated:
            return tournaments.filter(Q(public=True) | Q(staff__user=user)).distinct()
        return tournaments.filter(public=True)

    @extend_schema(operation_id="tournaments_list", responses=s.TournamentSerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(s.TournamentSerializer(page, many=True).data)

    @extend_schema(request=s.TournamentCreateSerializer, responses={201: s.TournamentSerializer})
    def post(self, request):
        if not request.user.is_authenticated:
            raise NotAuthenticated()

        def create():
            body = s.TournamentCreateSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            data = dict(body.validated_data)
            data["ruleset_key"] = data.pop("ruleset")
            tournament = services.create_tournament(by=request.user, **data)
            return Response(s.TournamentSerializer(tournament).data, status=201)

        return self.act(request, create)


class TournamentDetailView(TournamentMixin, APIView):
    @extend_schema(responses=s.TournamentSerializer)
    def get(self, request, slug: str):
        return Response(s.TournamentSerializer(self.get_tournament(request, slug)).data)

    @extend_schema(request=s.TournamentUpdateSerializer, responses=s.TournamentSerializer)
    def patch(self, request, slug: str):
        tournament = self.get_tournament(request, slug, manage=True)

        def update():
            body = s.TournamentUpdateSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            changes = dict(body.validated_data)
            if "ruleset" in changes:
                changes["ruleset_key"] = changes.pop("ruleset")
            updated = services.update_tournament(tournament, by=request.user, **changes)
            return Response(s.TournamentSerializer(updated).data)

        return self.act(request, update)


class EntrantListView(TournamentMixin, APIView):
    pagination_class = Pages

    @extend_schema(responses=s.EntrantSerializer(many=True))
    def get(self, request, slug: str):
        tournament = self.get_tournament(request, slug)
        return page_response(
            self,
            request,
            tournament.entrants.order_by("seed", "pk"),
            lambda page: s.EntrantSerializer(page, many=True).data,
        )

    @extend_schema(
        request=s.EntrantCreateSerializer, responses={201: s.EntrantSerializer(many=True)}
    )
    def post(self, request, slug: str):
        tournament = self.get_tournament(request, slug, manage=True)

        def register():
            body = s.EntrantCreateSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            data = body.validated_data
            if data["text"]:
                made = services.register_entrants(
                    tournament, by=request.user, text=data["text"], choices=body.choices()
                )
            else:
                made = [
                    services.register_entrant(
                        tournament,
                        by=request.user,
                        name=data["name"],
                        partner_name=data["partner_name"],
                        seed=data["seed"],
                        choices=body.choices(),
                    )
                ]
            return Response(s.EntrantSerializer(made, many=True).data, status=201)

        return self.act(request, register)


class EntrantActionView(TournamentMixin, APIView):
    """Check an entrant in (or out), or withdraw them."""

    @extend_schema(
        operation_id="tournaments_entrants_action",
        request=EntrantActionRequestSerializer,
        responses=s.EntrantSerializer,
    )
    def post(self, request, slug: str, pk: int, action: str):
        tournament = self.get_tournament(request, slug, manage=True)
        entrant = Entrant.objects.filter(tournament=tournament, pk=pk).first()
        if entrant is None or action not in {"check-in", "check-out", "withdraw"}:
            raise Http404

        def run():
            if action == "withdraw":
                done = withdraw_confirmed(request, tournament, entrant)
            else:
                # The whole body the operation declares is checked, though a check-in
                # reads only its override (a substitute below 1 is refused here too).
                body = EntrantActionRequestSerializer(data=request.data)
                body.is_valid(raise_exception=True)
                done = services.check_in(
                    entrant,
                    by=request.user,
                    checked_in=action == "check-in",
                    override=body.validated_data["override"],
                )
            return Response(s.EntrantSerializer(done).data)

        return self.act(request, run)


class StageListView(TournamentMixin, APIView):
    pagination_class = Pages

    @extend_schema(responses=s.StageSerializer(many=True))
    def get(self, request, slug: str):
        tournament = self.get_tournament(request, slug)
        return page_response(
            self,
            request,
            tournament.stages.order_by("order"),
            lambda page: s.StageSerializer(page, many=True).data,
        )

    @extend_schema(request=s.StageSerializer, responses={201: s.StageSerializer})
    def post(self, request, slug: str):
        tournament = self.get_tournament(request, slug, manage=True)

        def add():
            body = s.StageSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            stage = services.add_stage(tournament, by=request.user, **body.validated_data)
            return Response(s.StageSerializer(stage).data, status=201)

        return self.act(request, add)


class StageFinishView(TournamentMixin, APIView):
    """Finish a stage and seed the next: GET lists who would go through, POST does it."""

    def _stage(self, request, slug: str, order: int) -> Stage:
        tournament = self.get_tournament(request, slug, manage=True)
        stage = Stage.objects.filter(tournament=tournament, order=order).first()
        if stage is None:
            raise Http404
        return stage

    @extend_schema(
        parameters=[s.StageFinishPreviewSerializer],
        responses={
            200: s.StageFinishPreviewResponseSerializer,
            409: OpenApiResponse(
                ErrorSerializer, description="The stage cannot finish yet (no game played...)."
            ),
        },
    )
    def get(self, request, slug: str, order: int):
        stage = self._stage(request, slug, order)
        given = {
            name: whole_number(value) if whole_number(value) is not None else value
            for name, value in request.query_params.items()
            if name in ("top", "per_pool")
        }
        asked = s.StageFinishPreviewSerializer(data=given)
        asked.is_valid(raise_exception=True)
        chosen = services.finish_preview(stage, by=request.user, **asked.validated_data)
        return Response(
            {
                "stage": order,
                "going_through": selectors.going_through(stage, chosen),
                "unplayed_rounds": services.rounds_unplayed(stage),
            }
        )

    @extend_schema(request=s.StageFinishSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request, slug: str, order: int):
        stage = self._stage(request, slug, order)

        def finish():
            body = s.StageFinishSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            try:
                following = services.finish_stage(stage, by=request.user, **body.validated_data)
            except services.RankingChanged as changed:
                now = services.finish_preview(
                    stage,
                    by=request.user,
                    top=body.validated_data["top"],
                    per_pool=body.validated_data["per_pool"],
                )
                return Response(
                    changed.body(told) | {"going_through": selectors.going_through(stage, now)},
                    status=status.HTTP_409_CONFLICT,
                )
            return Response(
                {
                    "finished": order,
                    "next": s.StageSerializer(following).data if following else None,
                }
            )

        return self.act(request, finish)


def _stage_of(tournament: Tournament, request) -> Stage:
    wanted = request.query_params.get("stage")
    if wanted is None and isinstance(request.data, dict):
        wanted = request.data.get("stage")
    stages = tournament.stages.all()
    if wanted is not None:  # an empty ?stage= is a stage nobody has, not "the current one"
        number = whole_number(wanted)
        stage = stages.filter(order=number).first() if number is not None else None
        if stage is None:
            raise ValidationError({"stage": [_("There is no stage {stage}.").format(stage=wanted)]})
        return stage
    stage = stages.exclude(status=Stage.Status.FINISHED).first() or stages.last()
    if stage is None:
        raise ValidationError({"stage": [_("Add a stage first.")]})
    return stage


def _round_body(round_: Round) -> dict:
    """A round with its tables, as the API answers after a write to it."""
    return s.RoundSerializer(_with_tables(Round.objects.filter(pk=round_.pk)).get()).data


def _rounds(tournament: Tournament, user):
    """The tournament's rounds ``user`` may see: drafts are for the event's staff."""
    rounds = Round.objects.filter(stage__tournament=tournament).select_related("stage")
    if not allowed(user, "tournament.see_drafts", tournament):
        rounds = rounds.exclude(status=Round.Status.DRAFT)
    return rounds


def _with_tables(rounds):
    seats = MatchSeat.objects.select_related("entrant").order_by("position")
    return rounds.prefetch_related(
        Prefetch(
            "matches",
            queryset=Match.objects.select_related("game", "referee", "round").prefetch_related(
                Prefetch("seats", queryset=seats)
            ),
        )
    )


def _round_summaries(rounds) -> list[dict]:
    return [
        {
            "stage": r.stage.order,
            "number": r.number,
            "status": r.status,
            "flags": r.flags,
            "published_at": r.published_at,
            "tables": r.tables,
        }
        for r in rounds
    ]


class RoundListView(TournamentMixin, APIView):
    pagination_class = Pages

    @extend_schema(responses=s.RoundSummarySerializer(many=True))
    def get(self, request, slug: str):
        tournament = self.get_tournament(request, slug)
        rounds = (
            _rounds(tournament, request.user)
            .annotate(tables=Count("matches"))
            .order_by("stage__order", "number")
        )
        return page_response(self, request, rounds, _round_summaries)

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses={201: s.RoundSerializer},
        parameters=[OpenApiParameter("stage", OpenApiTypes.INT)],
    )
    def post(self, request, slug: str):
        """Generate the next round of a stage (the current one unless ``stage`` says)."""
        tournament = self.get_tournament(request, slug, manage=True)
        if not isinstance(request.data, dict):
            raise ValidationError({"non_field_errors": [_("Send a JSON object, or nothing.")]})

        def generate():
            stage = _stage_of(tournament, request)
            round_ = services.generate_round(stage, by=request.user)
            return Response(
                _round_body(round_),
                status=status.HTTP_201_CREATED,
            )

        return self.act(request, generate)


class RoundDetailView(TournamentMixin, APIView):
    @extend_schema(
        responses=s.RoundSerializer, parameters=[OpenApiParameter("stage", OpenApiTypes.INT)]
    )
    def get(self, request, slug: str, number: int):
        tournament = self.get_tournament(request, slug)
        stage = _stage_of(tournament, request)
        round_ = _with_tables(
            _rounds(tournament, request.user).filter(stage=stage, number=number)
        ).first()
        if round_ is None:
            raise Http404
        return Response(s.RoundSerializer(round_).data)


class RoundPublishView(TournamentMixin, APIView):
    @extend_schema(
        request=None,
        responses=s.RoundSerializer,
        parameters=[OpenApiParameter("stage", OpenApiTypes.INT)],
    )
    def post(self, request, slug: str, number: int):
        _, round_ = self.managed_round(request, slug, number)

        def publish():
            services.publish_round(round_, by=request.user)
            return Response(_round_body(round_))

        return self.act(request, publish)


class MatchDetailView(TournamentMixin, APIView):
    @extend_schema(responses=s.MatchSerializer)
    def get(self, request, pk: int):
        match = (
            Match.objects.select_related("round__stage__tournament", "game", "referee")
            .filter(pk=pk)
            .first()
        )
        if match is None:
            raise Http404
        tournament = match.round.stage.tournament
        if not allowed(request.user, "tournament.view", tournament) or (
            match.round.status == Round.Status.DRAFT
            and not allowed(request.user, "tournament.see_drafts", tournament)
        ):
            raise Http404
        return Response(s.MatchSerializer(match).data)


class MatchRefereeView(TournamentMixin, APIView):
    @extend_schema(request=OpenApiTypes.OBJECT, responses=s.MatchSerializer)
    def post(self, request, pk: int):
        """Assign a referee (by username) to a table."""
        match = Match.objects.select_related("round__stage__tournament").filter(pk=pk).first()
        if match is None:
            raise Http404
        self.get_tournament(request, match.round.stage.tournament.slug, manage=True)

        def assign():
            username = request.data.get("referee") if isinstance(request.data, dict) else None
            if not isinstance(username, str) or not username.strip():
                raise ValidationError({"referee": ["Name the referee by username."]})
            # Only the event's own staff are looked up: a user outside it gets the same
            # answer whether or not the name exists.
            user = (
                get_user_model()
                .objects.filter(
                    username=username.strip(),
                    tournament_roles__tournament=match.round.stage.tournament,
                )
                .first()
            )
            if user is None:
                raise services.TournamentError(
                    say(
                        "{username} is not a referee or organizer of this tournament; "
                        "invite them first.",
                        username=username.strip(),
                    ),
                    "referee",
                )
            done = services.assign_referee(match, user, by=request.user)
            return Response(s.MatchSerializer(done).data)

        return self.act(request, assign)


class StandingsView(TournamentMixin, APIView):
    """A stage's standings snapshot; reading never computes. Pollers get 304 when unchanged,
    and a signed-out poller the answer as kept when changed, both from the cache before
    authentication or any query (``tournaments.read.live``) while everyone may see the event."""

    def dispatch(self, request, *args, **kwargs):
        wanted = request.GET.get("stage", "")
        if wanted == "" or (wanted.isdigit() and len(wanted) < 6):
            kept = _kept_standings_answer(request, kwargs.get("slug", ""), wanted)
            if kept is not None:
                return live.served(kept, from_cache=True)
        return live.served(super().dispatch(request, *args, **kwargs), from_cache=False)

    @extend_schema(
        parameters=[
            OpenApiParameter("stage", OpenApiTypes.INT),
            OpenApiParameter(
                "ETag",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="The standings' tag: send it as If-None-Match for a 304.",
                response=[200, 304],
            ),
            OpenApiParameter(
                "Server-Timing",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="`cache;desc=hit` when the cache alone answered (no query),"
                " `cache;desc=miss` when the database was asked.",
                response=[200, 304],
            ),
        ],
        responses={200: OpenApiTypes.OBJECT, 304: None},
    )
    def get(self, request, slug: str):
        tournament = self.get_tournament(request, slug, noted=True)
        stage = _stage_of(tournament, request)
        mark = selectors.standings_mark(tournament, stage)
        wanted = request.query_params.get("stage", "")
        kept = wanted == "" or wanted == str(stage.order)
        if kept:
            live.keep_standings(live.standings_key(slug, wanted), mark)
        tag = mark.etag
        if request.headers.get("If-None-Match") == tag:
            response = Response(status=status.HTTP_304_NOT_MODIFIED)
            response["ETag"] = tag
            return response
        order = selectors.stage_order(tournament, stage)
        head = {
            "stage": stage.order,
            "order": order,
            # How points compare across table sizes (docs/pairing.md, "Standings across
            # table sizes").
            "points_basis": points_basis(stage),
            "computed_at": mark.computed_at,
            "stale": mark.stale,
        }
        if getattr(request.accepted_renderer, "format", "") != "json":  # the browsable API
            rows = _standings_rows(tournament, stage, mark, order)
            response = Response({**head, "rows": json.loads(rows)})
        else:
            response = _standings_json(
                tournament, stage, mark, order, JSONRenderer().render(head), request
            )
            if kept and _signed_out_poll(request):
                # This visitor may see the event, so may every signed-out one (the kept
                # answer goes with the mark whenever the event's settings change).
                gzipped = response.get("Content-Encoding") == "gzip"
                key = live.public_standings_key(slug, wanted, gzipped)
                cache.set(key, (mark, response.content), mark.keep_for)
        response["ETag"] = tag
        patch_vary_headers(response, ("Accept-Encoding",))
        return response


def _signed_out_poll(request) -> bool:
    """Whether a request for the standings is a plain signed-out GET for JSON: the kind
    whose answer depends on nothing but the event, the stage and Accept-Encoding."""
    return (
        request.method == "GET"
        and "Authorization" not in request.headers
        and not signed_in(request)
        and set(request.GET) <= {"stage"}
        and "html" not in request.headers.get("Accept", "")
    )


def _kept_standings_answer(request, slug: str, wanted: str) -> HttpResponse | None:
    """A poll answered from the cache while everyone may see the event: 304 while the
    poller's tag is current, else (to a signed-out poller) the answer kept for the current
    mark; None to ask the database (which checks who may see it)."""
    tagged = request.headers.get("If-None-Match")
    public = _signed_out_poll(request)
    if not tagged and not public:
        return None
    gzipped = public and live.accepts_gzip(request.headers.get("Accept-Encoding", ""))
    body_key = live.public_standings_key(slug, wanted, gzipped)
    # The live answer of the standings alone, as everyone sees them (standings show no
    # drafts), read with the kept body in one round trip; never from the database here.
    got = live_answer(
        answers.Question(slug, stage=wanted, tables=False, along=(body_key,) if public else ()),
        Viewer(drafts=False),
        database=False,
    )
    if got is None:
        return None
    known = got.mark
    if tagged and known.etag == tagged:
        # Tells the poller only that what it holds is current.
        response = HttpResponseNotModified()
        response["ETag"] = tagged
        patch_vary_headers(response, ("Accept-Language", "Cookie", "Authorization"))
        return response
    answer = got.along.get(body_key)
    if answer is None or answer[0] != known:
        return None
    response = HttpResponse(answer[1], content_type="application/json")
    if gzipped:
        response["Content-Encoding"] = "gzip"
    response["ETag"] = known.etag
    # The headers the view's own answer has (the view's Vary, then the framework's).
    response["Allow"] = "GET, HEAD, OPTIONS"
    patch_vary_headers(response, ("Accept-Encoding", "Accept"))
    return response


def _standings_json(tournament, stage, mark, order, head: bytes, request) -> HttpResponse:
    """The standings answer as JSON, its rows as kept spliced in (no poller renders them
    again). A client that takes gzip gets it compressed, once per answer for every poller
    that asks for the same: a 256-row answer is about a tenth of its size, and a web
    worker hands it to the socket at once instead of waiting on a slow reader."""

    def spliced() -> bytes:
        return head[:-1] + b',"rows":' + _standings_rows(tournament, stage, mark, order) + b"}"

    if not live.accepts_gzip(request.headers.get("Accept-Encoding", "")):
        return HttpResponse(spliced(), content_type="application/json")
    key = f"live:standings-gz:{stage.pk}:{mark.digest}:{live.digest(head)}"
    body = cache.get(key)
    if body is None:
        body = gzip.compress(spliced(), 6, mtime=0)
        cache.set(key, body, live.TAG_SECONDS)
    response = HttpResponse(body, content_type="application/json")
    response["Content-Encoding"] = "gzip"
    return response


def _standings_rows(tournament: Tournament, stage: Stage, mark, order: list[str]) -> bytes:
    """A stage's standings rows as JSON, rendered once per content of the standings and
    kept for every poller that asks for the same (each change is read and rendered once,
    not once a poller)."""
    key = f"live:standings-rows:{stage.pk}:{mark.digest}"
    rows = cache.get(key)
    if rows is None:
        lines, _ = selectors.standing_lines(tournament, stage=stage)
        rows = JSONRenderer().render(
            [
                {
                    "rank": row.rank,
                    "tied": row.tied,
                    "entrant": {"id": row.entrant_id, "name": row.entrant.name},
                    "withdrawn": row.withdrawn,
                    "games_played": row.games_played,
                    "metrics": {key: row.metrics.get(key) for key in order},
                    "all_metrics": row.metrics,
                    "reason": row.reason,
                }
                for row in lines
            ]
        )
        cache.set(key, rows, live.TAG_SECONDS)
    return rows


class RoundSwapView(TournamentMixin, APIView):
    """Swap two entrants' seats before the round's games start (re-validated)."""

    @extend_schema(
        request=s.SwapSerializer,
        responses=s.RoundSerializer,
        parameters=[OpenApiParameter("stage", OpenApiTypes.INT)],
    )
    def post(self, request, slug: str, number: int):
        tournament, round_ = self.managed_round(request, slug, number)

        def swap():
            body = s.SwapSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            ids = body.validated_data["entrants"]
            found = {e.pk: e for e in Entrant.objects.filter(tournament=tournament, pk__in=ids)}
            if len(found) != 2:
                raise ValidationError({"entrants": ["Both must be entrants of this tournament."]})
            services.swap_seats(round_, found[ids[0]], found[ids[1]], by=request.user)
            return Response(_round_body(round_))

        return self.act(request, swap)


class RoundRefereesView(TournamentMixin, APIView):
    """Assign the referees of a whole round in one request, all or nothing."""

    @extend_schema(
        request=s.RoundRefereesSerializer,
        responses=s.RoundSerializer,
        parameters=[OpenApiParameter("stage", OpenApiTypes.INT)],
    )
    def post(self, request, slug: str, number: int):
        tournament, round_ = self.managed_round(request, slug, number)

        def assign():
            body = s.RoundRefereesSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            wanted = body.validated_data
            if "referee" in wanted:
                tables = round_.matches.filter(bye=False).values_list("table_number", flat=True)
                name = (wanted["referee"] or "").strip() or None
                pairs = [(table, name) for table in tables]
            else:
                pairs = _tables_named(round_, wanted["assignments"])
            staff = _staff_named(tournament, {name for _, name in pairs if name})
            services.assign_round_referees(
                round_,
                {table: staff[name] if name else None for table, name in pairs},
                by=request.user,
            )
            return Response(_round_body(round_))

        return self.act(request, assign)


def _tables_named(round_: Round, assignments: list[dict]) -> list[tuple[int, str | None]]:
    """(table number, username) for each assignment, its match id read as its table."""
    numbers = dict(
        round_.matches.filter(pk__in=[a["match"] for a in assignments if "match" in a]).values_list(
            "pk", "table_number"
        )
    )
    pairs = []
    for assignment in assignments:
        if "match" in assignment and assignment["match"] not in numbers:
            raise services.TournamentError(
                say(
                    "Match {match} is not a table of round {number}.",
                    match=assignment["match"],
                    number=round_.number,
                ),
                "assignments",
            )
        table = assignment.get("table") or numbers[assignment["match"]]
        pairs.append((table, (assignment["referee"] or "").strip() or None))
    tables = [table for table, _ in pairs]
    if len(set(tables)) != len(tables):
        raise services.TournamentError(say("A table is listed twice."), "assignments")
    return pairs


def _staff_named(tournament: Tournament, names: set[str]) -> dict:
    """The event's staff by username; a name outside the staff is refused.

    Only the event's own staff are looked up: a user outside it gets the same answer
    whether or not the name exists.
    """
    wanted = set(names)
    found = {
        user.username: user
        for user in get_user_model()
        .objects.filter(tournament_roles__tournament=tournament, username__in=wanted)
        .distinct()
    }
    unknown = sorted(wanted - set(found))
    if unknown:
        raise services.TournamentError(
            say(
                "{username} is not a referee or organizer of this tournament; invite them first.",
                username=", ".join(unknown),
            ),
            "referee",
        )
    return found


class ExportView(TournamentMixin, APIView):
    """CSV exports: ``standings`` (every metric) or ``results`` (a row per hand per side)."""

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request, slug: str, kind: str):
        tournament = self.get_tournament(request, slug)
        if kind not in exports.EXPORTS:
            raise Http404
        return exports.csv_response(tournament, kind)
