"""The circuit API's views: series and their standings, leaderboards and a player's
ratings, seeding an event by rating, ladder sessions."""

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import run_once
from accounts.permissions import allowed
from circuit import exports, selectors
from circuit.api.serializers import (
    LadderCreateSerializer,
    LadderPlayerBody,
    LadderSerializer,
    PlayerPoolSerializer,
    RatingSerializer,
    SeriesCreateSerializer,
    SeriesDetailSerializer,
    SeriesSerializer,
    SeriesStandingsSerializer,
)
from circuit.models import LadderSession, Pool, Series
from circuit.selectors import visible_ladders, visible_series
from circuit.series_seen import standings_for
from circuit.services import ladders as ladder_services
from circuit.services import series as series_services
from circuit.services.common import CircuitError, bounded
from circuit.services.seeding import seed_by_rating
from config.pagination import Pages, page_response
from players.models import Player
from scoring.bounds import ID_MAX
from tournaments.api.confirm import require_confirmed
from tournaments.models import Tournament


def _signed_in(request) -> None:
    if not request.user.is_authenticated:
        raise NotAuthenticated()


def _series(request, slug: str, *, manage: bool = False) -> Series:
    series = Series.objects.filter(slug=slug).first()
    if series is None or not allowed(request.user, "series.view", series):
        raise Http404
    if manage:
        _signed_in(request)
        if not allowed(request.user, "series.manage", series):
            raise PermissionDenied("Only this series' organizers may do that.")
    return series


class SeriesListView(APIView):
    """Series you may see; start one from an event template."""

    pagination_class = Pages

    @extend_schema(operation_id="series_list", responses=SeriesSerializer(many=True))
    def get(self, request):
        return page_response(
            self, request, visible_series(request.user).order_by("name", "pk"),
            lambda page: SeriesSerializer(page, many=True).data,
        )  # fmt: skip

    @extend_schema(request=SeriesCreateSerializer, responses={201: SeriesSerializer})
    def post(self, request):
        _signed_in(request)
        body = SeriesCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        values = dict(body.validated_data)
        values["ruleset_key"] = values.pop("ruleset")

        def produce():
            series = series_services.create_series(by=request.user, **values)
            return Response(SeriesSerializer(series).data, status=status.HTTP_201_CREATED)

        return run_once(request, produce)


class SeriesDetailView(APIView):
    """A series: its template, its events and its standings."""

    @extend_schema(responses=SeriesDetailSerializer)
    def get(self, request, slug: str):
        series = _series(request, slug)
        return Response(SeriesDetailSerializer(series, context={"request": request}).data)


class SeriesNextEventView(APIView):
    """Create the series' next event from its template (its organizers)."""

    @extend_schema(request=None, responses={201: OpenApiTypes.OBJECT})
    def post(self, request, slug: str):
        series = _series(request, slug, manage=True)

        def produce():
            tournament = series_services.create_next_event(series, by=request.user)
            return Response(
                {"slug": tournament.slug, "name": tournament.name},
                status=status.HTTP_201_CREATED,
            )

        return run_once(request, produce)


class SeriesStandingsView(APIView):
    """The series standings as last computed (current within seconds of an event's)."""

    @extend_schema(responses=SeriesStandingsSerializer)
    def get(self, request, slug: str):
        series = _series(request, slug)
        return Response(SeriesStandingsSerializer(standings_for(series, request.user)).data)


class SeriesExportView(APIView):
    """The series standings as CSV."""

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request, slug: str):
        return exports.series_csv_response(_series(request, slug), request.user)


def min_games_of(request) -> int:
    asked = request.GET.get("min_games")
    if asked in (None, ""):
        return selectors.min_games_default()
    number = bounded(asked, 0, 1_000_000)
    if number is None:
        raise serializers.ValidationError({"min_games": ["Give a whole number from 0 to 1000000."]})
    return number


def rating_rows(page, start: int) -> list[dict]:
    return [
        {
            "rank": start + index + 1, "player_id": r.player_id, "name": r.player.display_name,
            "ordinal": r.ordinal, "mu": r.mu, "sigma": r.sigma, "games": r.games,
        }
        for index, r in enumerate(page)
    ]  # fmt: skip


class LeaderboardView(APIView):
    """A pool's leaderboard: players with at least ``min_games`` rated games, best first."""

    pagination_class = Pages

    @extend_schema(
        parameters=[OpenApiParameter("min_games", OpenApiTypes.INT)],
        responses=RatingSerializer(many=True),
    )
    def get(self, request, pool: str):
        if pool not in Pool.values:
            raise Http404
        rows = selectors.leaderboard(pool, min_games=min_games_of(request))
        pages = Pages()
        page = pages.paginate_queryset(rows, request, view=self)
        start = (pages.page.number - 1) * pages.get_page_size(request)
        return pages.get_paginated_response(
            RatingSerializer(rating_rows(page, start), many=True).data
        )


class PlayerRatingsView(APIView):
    """A player's rating in each pool and its history, oldest first."""

    @extend_schema(responses=PlayerPoolSerializer(many=True))
    def get(self, request, pk: int):
        player = get_object_or_404(Player, pk=pk) if pk <= ID_MAX else None
        if player is None:
            raise Http404
        return Response(
            PlayerPoolSerializer(
                [
                    {
                        "pool": entry["pool"], "ordinal": entry["rating"].ordinal,
                        "mu": entry["rating"].mu, "sigma": entry["rating"].sigma,
                        "games": entry["rating"].games, "history": entry["history"],
                    }
                    for entry in selectors.player_ratings(player.pk)
                ],
                many=True,
            ).data
        )  # fmt: skip


class SeedByRatingView(APIView):
    """Seed the tournament's entrants by rating, best first (before round 1; a Swiss
    round 1 is then paired by rating)."""

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT})
    def post(self, request, slug: str):
        tournament = Tournament.objects.filter(slug=slug).first()
        if tournament is None or not allowed(request.user, "tournament.view", tournament):
            raise Http404
        _signed_in(request)
        if not allowed(request.user, "tournament.manage", tournament):
            raise PermissionDenied("Only this tournament's organizers may do that.")

        def produce():
            ranked = seed_by_rating(tournament, by=request.user)
            return Response(
                {"entrants": [{"id": e.pk, "name": e.name, "seed": e.seed} for e in ranked]}
            )

        return run_once(request, produce)


def _ladder(request, slug: str) -> LadderSession:
    session = LadderSession.objects.filter(slug=slug).first()
    if session is None or not allowed(request.user, "ladder.view", session):
        raise Http404
    return session


def ladder_state(session: LadderSession) -> dict:
    waiting, tables = ladder_services.session_floor(session)
    return {
        **LadderSerializer(session).data,
        "waiting": [
            {"player_id": e.player_id, "name": e.player.display_name, "since": e.waiting_since}
            for e in waiting
        ],
        "tables": [
            {
                "number": t.number, "game": t.game_id, "status": t.game.status,
                "players": [s.display_name for s in t.game.seats.all()],
            }
            for t in tables
        ],
        "standings": [
            {
                "player_id": line["player"].pk, "name": line["player"].display_name,
                "games": line["games"], "wins": line["wins"],
                "average_place": line["average_place"], "ordinal": line["ordinal"],
            }
            for line in ladder_services.session_standings(session)
        ],
    }  # fmt: skip


class LadderListView(APIView):
    """Ladder sessions you may see; open one."""

    pagination_class = Pages

    @extend_schema(operation_id="ladders_list", responses=LadderSerializer(many=True))
    def get(self, request):
        return page_response(
            self,
            request,
            visible_ladders(request.user),
            lambda page: LadderSerializer(page, many=True).data,
        )

    @extend_schema(request=LadderCreateSerializer, responses={201: LadderSerializer})
    def post(self, request):
        _signed_in(request)
        body = LadderCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        values = dict(body.validated_data)
        values["ruleset_key"] = values.pop("ruleset")

        def produce():
            session = ladder_services.create_session(by=request.user, **values)
            return Response(LadderSerializer(session).data, status=status.HTTP_201_CREATED)

        return run_once(request, produce)


class LadderDetailView(APIView):
    """A session: who waits, the tables in play, the session's standings."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, slug: str):
        return Response(ladder_state(_ladder(request, slug)))


LADDER_ACTIONS = ("check-in", "check-out", "ask", "forfeit", "form", "close")
PLAYER_ACTIONS = ("check-in", "check-out", "ask", "forfeit")


class LadderActionView(APIView):
    """``check-in`` (``player_id`` or ``name``: yourself, or a player without an account
    whom you organize), ``check-out`` (``player_id``), ``ask`` (``player_id``: ask a
    player with an account to check in), ``forfeit`` (``player_id``, ``reason``,
    ``confirm``: your seat, or as the organizer a seat at your table), ``form`` (seat
    whoever waits now), ``close`` (``confirm``). A forfeit or a close without
    ``confirm: true`` changes nothing and the answer (400) says what it would do."""

    @extend_schema(
        operation_id="ladders_act", request=LadderPlayerBody, responses={200: OpenApiTypes.OBJECT}
    )
    def post(self, request, slug: str, action: str):
        session = _ladder(request, slug)
        if action not in LADDER_ACTIONS:
            raise Http404
        _signed_in(request)
        confirming = action in PLAYER_ACTIONS or action == "close"
        body = LadderPlayerBody(data=request.data if confirming else {})
        body.is_valid(raise_exception=True)
        player = None
        if "player_id" in body.validated_data:
            player = Player.objects.filter(pk=body.validated_data["player_id"]).first()
            if player is None:
                raise serializers.ValidationError({"player_id": ["No such player."]})

        def produce():
            user = request.user
            if action == "check-in":
                ladder_services.check_in(
                    session, by=user, player=player, name=body.validated_data["name"]
                )
            elif action in PLAYER_ACTIONS and player is None:
                raise serializers.ValidationError({"player_id": ["Say which player."]})
            elif action == "check-out":
                ladder_services.check_out(session, by=user, player=player)
            elif action == "ask":
                ladder_services.ask(session, by=user, player=player)
            elif action == "forfeit":
                require_confirmed(
                    body.validated_data["confirm"],
                    ladder_services.forfeit_effect(session, by=user, player=player),
                    CircuitError,
                )
                ladder_services.forfeit(
                    session, by=user, player=player, reason=body.validated_data["reason"]
                )
            elif action == "form":
                ladder_services.form_now(session, by=user)
            else:
                require_confirmed(
                    body.validated_data["confirm"],
                    ladder_services.close_effect(session, by=user),
                    CircuitError,
                )
                ladder_services.close_session(session, by=user)
            return Response(ladder_state(LadderSession.objects.get(pk=session.pk)))

        return run_once(request, produce)


class LadderAuditView(APIView):
    """The session's audit list, latest first: check-ins and how they were consented,
    requests and their answers, forfeits and other acts on its games (its organizers)."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, slug: str):
        session = _ladder(request, slug)
        _signed_in(request)
        if not allowed(request.user, "ladder.manage", session):
            raise PermissionDenied("Only this session's organizer may do that.")
        return Response({"acts": ladder_services.session_audit(session)})


def ladder_request_row(asked) -> dict:
    return {
        "id": asked.pk, "session": asked.session.slug, "session_name": asked.session.name,
        "player_id": asked.player_id, "asked_at": asked.asked_at, "answer": asked.answer,
        "answered_at": asked.answered_at,
    }  # fmt: skip


def ladder_entry_row(entry) -> dict:
    return {
        "session": entry.session.slug, "session_name": entry.session.name,
        "status": entry.session.status, "player_id": entry.player_id, "present": entry.present,
        "waiting": entry.waiting_since is not None, "at_table": entry.table_id is not None,
        "consent": entry.consent, "consented_at": entry.consented_at,
    }  # fmt: skip


class AccountLaddersView(APIView):
    """Your ladder entries (how each was consented) and the requests ladders sent you."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        _signed_in(request)
        entries, requests = ladder_services.ladders_of(request.user)
        return Response(
            {
                "entries": [ladder_entry_row(entry) for entry in entries],
                "requests": [ladder_request_row(asked) for asked in requests],
            }
        )


class LadderRequestAnswerView(APIView):
    """Accept a ladder's request (you are checked in) or decline it."""

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT})
    def post(self, request, pk: int, answer: str):
        _signed_in(request)
        if answer not in ("accept", "decline"):
            raise Http404
        asked = ladder_services.request_for(request.user, pk) if pk <= ID_MAX else None
        if asked is None:
            raise Http404

        def produce():
            answered = ladder_services.answer(asked, by=request.user, accept=answer == "accept")
            return Response(ladder_request_row(answered))

        return run_once(request, produce)
