"""Players through the API: search, a player's events, claim codes and merges, merges
asked for and confirmed, the record of acts on who you are, entering an event yourself,
the partner's answer, approvals, the waiting list, self check-in."""

from zoneinfo import ZoneInfo

from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import NotAuthenticated, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import run_once
from accounts.permissions import allowed
from config.pagination import Pages, page_response
from domain.i18n import told
from players import entries as entry_requests
from players import identity, registration, selectors
from players.api.serializers import (
    AnswerSerializer,
    ApplicationSerializer,
    AskedMergeSerializer,
    ClaimCodeSerializer,
    ClaimSerializer,
    EnterSerializer,
    EntryRequestSerializer,
    IdentityActSerializer,
    MergeAskSerializer,
    MergeSerializer,
    PlayerDetailSerializer,
    PlayerSerializer,
    PreviewResultSerializer,
    PreviewSerializer,
    RegistrationSerializer,
    SelfCheckInSerializer,
)
from players.matching import look_up_all, offered
from players.models import Application, Player
from tournaments import services
from tournaments.api.serializers import EntrantSerializer
from tournaments.api.views import TournamentMixin
from tournaments.services.entrants import choice_scope


def _signed_in(request) -> None:
    if not request.user.is_authenticated:
        raise NotAuthenticated()


def _player(pk: int) -> Player:
    player = Player.objects.filter(pk=pk).first()
    if player is None:
        raise Http404
    return player


class PlayerListView(APIView):
    """Players by name or club (accents and case aside)."""

    pagination_class = Pages

    @extend_schema(
        operation_id="players_list",
        parameters=[OpenApiParameter("search", OpenApiTypes.STR, description="Name or club.")],
        responses=PlayerSerializer(many=True),
    )
    def get(self, request):
        text = request.query_params.get("search", "")[:120]
        rows = selectors.search_players(text, limit=None)
        return page_response(
            self, request, rows, lambda page: PlayerSerializer(page, many=True).data
        )


class PlayerDetailView(APIView):
    @extend_schema(responses=PlayerDetailSerializer)
    def get(self, request, pk: int):
        player = _player(pk)
        return Response(PlayerDetailSerializer(player, context={"user": request.user}).data)


def _may_not(request, action: str, player) -> None:
    """A clear 403 before anything else when the user may not do ``action`` to ``player``."""
    if not allowed(request.user, action, player):
        raise PermissionDenied(
            gettext(
                "Only an organizer of every event this player entered may do that, and only "
                "while no account holds the player."
            )
        )


class PlayerMergeView(APIView):
    """Merge another player into this one: two players no account holds, by an organizer
    of every event either entered (or a superuser)."""

    @extend_schema(request=MergeSerializer, responses=PlayerDetailSerializer)
    def post(self, request, pk: int):
        _signed_in(request)
        player = _player(pk)
        _may_not(request, "player.merge", player)

        def merge():
            body = MergeSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            other = Player.objects.filter(pk=body.validated_data["other"]).first()
            if other is None:
                raise identity.PlayerError(gettext("There is no such player."), "other")
            _may_not(request, "player.merge", other)
            kept = identity.merge_players(player, other, by=request.user)
            return Response(PlayerDetailSerializer(kept, context={"user": request.user}).data)

        return run_once(request, merge)


class ClaimCodeView(APIView):
    """A new claim code for an unlinked player (the old one stops working), by an
    organizer of every event they entered. The code is in this answer only."""

    @extend_schema(request=None, responses={201: ClaimCodeSerializer})
    def post(self, request, pk: int):
        _signed_in(request)
        player = _player(pk)
        _may_not(request, "player.claim_code", player)

        def issue():
            issued = identity.issue_claim_code(player, by=request.user)
            return Response({"player": player.pk, "code": issued.code}, status=201)

        return run_once(request, issue)


class ClaimView(APIView):
    """Link your account to the player whose claim code you give."""

    @extend_schema(request=ClaimSerializer, responses=PlayerSerializer)
    def post(self, request):
        _signed_in(request)

        def link():
            body = ClaimSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            player = identity.claim_player(body.validated_data["code"], by=request.user)
            return Response(PlayerSerializer(player).data)

        return run_once(request, link)


class UnlinkView(APIView):
    """Unlink your account from its player."""

    @extend_schema(request=None, responses=PlayerSerializer)
    def post(self, request):
        _signed_in(request)
        player = selectors.own_player(request.user)
        if player is None:
            raise identity.PlayerConflict(
                gettext("Your account is not linked to a player."), "player"
            )

        def unlink():
            return Response(PlayerSerializer(identity.unlink_player(player, by=request.user)).data)

        return run_once(request, unlink)


class IdentityView(APIView):
    """The record of acts on who you are: claim codes given for your player, your claim,
    merges asked for, confirmed and done, unlinks; newest first."""

    pagination_class = Pages

    @extend_schema(operation_id="account_identity_list", responses=IdentityActSerializer(many=True))
    def get(self, request):
        _signed_in(request)
        return page_response(
            self,
            request,
            selectors.identity_acts(request.user),
            lambda page: IdentityActSerializer(page, many=True).data,
        )


class MergeRequestListView(APIView):
    """The merges you asked for and those waiting for your confirmation; ask for one
    (``other``: a player who is you too, merged into your own once confirmed)."""

    pagination_class = Pages

    @extend_schema(responses=AskedMergeSerializer(many=True))
    def get(self, request):
        _signed_in(request)
        context = {"user": request.user}
        return page_response(
            self,
            request,
            selectors.merge_requests(request.user).order_by("-created_at", "-pk"),
            lambda page: AskedMergeSerializer(page, many=True, context=context).data,
        )

    @extend_schema(request=MergeAskSerializer, responses={201: AskedMergeSerializer})
    def post(self, request):
        _signed_in(request)

        def ask():
            body = MergeAskSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            other = Player.objects.filter(pk=body.validated_data["other"]).first()
            if other is None:
                raise identity.PlayerError(gettext("There is no such player."), "other")
            asked = identity.request_merge(other, by=request.user)
            data = AskedMergeSerializer(asked, context={"user": request.user}).data
            return Response(data, status=201)

        return run_once(request, ask)


class MergeConfirmView(APIView):
    """Confirm a merge asked for: a superuser merges at once; an organizer confirms for
    the other player's events they organize, and the merge is done once all are."""

    @extend_schema(request=None, responses=AskedMergeSerializer)
    def post(self, request, pk: int):
        _signed_in(request)
        asked = selectors.merge_requests(request.user).filter(pk=pk).first()
        if asked is None:
            raise Http404

        def confirm():
            done = identity.confirm_merge(asked, by=request.user)
            return Response(AskedMergeSerializer(done, context={"user": request.user}).data)

        return run_once(request, confirm)


class EntryRequestListView(APIView):
    """The entries organizers made for you and asked you about, newest first: until you
    accept one, it plays as a new player of your name and nothing of yours counts it."""

    @extend_schema(responses=EntryRequestSerializer(many=True))
    def get(self, request):
        _signed_in(request)
        rows = [entry_requests.row(asked) for asked in entry_requests.requests_of(request.user)]
        return Response(EntryRequestSerializer(rows, many=True).data)


class EntryRequestAnswerView(APIView):
    """Accept an organizer's entry of you (the entry, its games and results become
    yours) or decline it (it stays with the player of your name standing in)."""

    @extend_schema(request=None, responses=EntryRequestSerializer)
    def post(self, request, pk: int, answer: str):
        _signed_in(request)
        if answer not in ("accept", "decline"):
            raise Http404
        asked = entry_requests.request_for(request.user, pk)
        if asked is None:
            raise Http404

        def produce():
            done = entry_requests.answer(asked, by=request.user, accept=answer == "accept")
            return Response(EntryRequestSerializer(entry_requests.row(done)).data)

        return run_once(request, produce)


class MyEntriesView(APIView):
    """Your entries in progress and the partner invitations waiting for your answer."""

    pagination_class = Pages

    @extend_schema(operation_id="account_entries_list", responses=ApplicationSerializer(many=True))
    def get(self, request):
        _signed_in(request)
        return page_response(
            self,
            request,
            selectors.open_applications(request.user),
            lambda page: ApplicationSerializer(page, many=True).data,
        )


class RegistrationView(TournamentMixin, APIView):
    """The event's self-registration: anyone who sees the event reads it; its organizers
    open or change it (PUT) or close it (DELETE)."""

    @extend_schema(responses=RegistrationSerializer)
    def get(self, request, slug: str):
        tournament = self.get_tournament(request, slug)
        found = registration.registration_of(tournament)
        if found is None:
            raise Http404
        return Response(RegistrationSerializer(found).data)

    @extend_schema(request=RegistrationSerializer, responses=RegistrationSerializer)
    def put(self, request, slug: str):
        tournament = self.get_tournament(request, slug, manage=True)

        def save():
            body = RegistrationSerializer(data=request.data)
            with timezone.override(ZoneInfo(tournament.time_zone)):
                body.is_valid(raise_exception=True)
            data = {
                key: value
                for key, value in body.validated_data.items()
                if key in RegistrationSerializer.Meta.fields
            }
            found = registration.open_registration(tournament, by=request.user, **data)
            return Response(RegistrationSerializer(found).data)

        return run_once(request, save)

    @extend_schema(request=None, responses={204: None})
    def delete(self, request, slug: str):
        tournament = self.get_tournament(request, slug, manage=True)

        def close():
            registration.close_registration(tournament, by=request.user)
            return Response(status=204)

        return run_once(request, close)


class ApplicationListView(TournamentMixin, APIView):
    """The event's entries (its organizers: every one; others: their own); enter yourself."""

    pagination_class = Pages

    @extend_schema(responses=ApplicationSerializer(many=True))
    def get(self, request, slug: str):
        tournament = self.get_tournament(request, slug)
        _signed_in(request)
        rows = Application.objects.filter(tournament=tournament).select_related(
            "tournament", "user", "player", "partner_user"
        )
        if not allowed(request.user, "tournament.manage", tournament):
            rows = rows.filter(user=request.user) | rows.filter(partner_user=request.user)
        return page_response(
            self,
            request,
            rows.order_by("created_at", "pk"),
            lambda page: ApplicationSerializer(page, many=True).data,
        )

    @extend_schema(request=EnterSerializer, responses={201: ApplicationSerializer})
    def post(self, request, slug: str):
        tournament = self.get_tournament(request, slug)
        _signed_in(request)

        def enter():
            body = EnterSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            made = registration.enter(tournament, by=request.user, **body.validated_data)
            return Response(ApplicationSerializer(made).data, status=201)

        return run_once(request, enter)


APPLICATION_ACTIONS = ("accept", "decline", "approve", "reject", "withdraw")


class ApplicationActionView(APIView):
    """``accept`` / ``decline``: the invited partner; ``approve`` / ``reject``: the event's
    organizers; ``withdraw``: the player or their partner (an entrant's place goes to the
    first on the waiting list)."""

    @extend_schema(
        operation_id="applications_action", request=AnswerSerializer,
        responses=ApplicationSerializer,
    )  # fmt: skip
    def post(self, request, pk: int, action: str):
        _signed_in(request)
        application = Application.objects.filter(pk=pk).select_related("tournament").first()
        if application is None or action not in APPLICATION_ACTIONS:
            raise Http404
        tournament = application.tournament
        mine = request.user.pk in (application.user_id, application.partner_user_id)
        if not mine and not allowed(request.user, "tournament.manage", tournament):
            raise Http404

        def run():
            body = AnswerSerializer(data=request.data or {})
            body.is_valid(raise_exception=True)
            user = request.user
            if action in ("accept", "decline"):
                done = registration.answer_partner(
                    application, by=user, accept=action == "accept", **body.validated_data
                )
            elif action in ("approve", "reject"):
                if not allowed(user, "tournament.manage", tournament):
                    raise PermissionDenied("Only this tournament's organizers may do that.")
                done = registration.decide(application, by=user, approve=action == "approve")
            else:
                done = registration.withdraw_entry(application, by=user)
            return Response(ApplicationSerializer(done).data)

        return run_once(request, run)


class SelfCheckInView(TournamentMixin, APIView):
    """Check yourself in (or out, ``present: false``) while the event's check-in is open."""

    @extend_schema(request=SelfCheckInSerializer, responses=EntrantSerializer)
    def post(self, request, slug: str):
        tournament = self.get_tournament(request, slug)
        _signed_in(request)

        def check_in():
            body = SelfCheckInSerializer(data=request.data or {})
            body.is_valid(raise_exception=True)
            entrant = registration.self_check_in(
                tournament, by=request.user, present=body.validated_data["present"]
            )
            return Response(EntrantSerializer(entrant).data)

        return run_once(request, check_in)


class PastePreviewView(TournamentMixin, APIView):
    """What a pasted list would register: each name's player, known or new, and the known
    players a name might be, each with the token that chooses it (register with
    ``players`` choices giving those tokens back)."""

    @extend_schema(request=PreviewSerializer, responses=PreviewResultSerializer)
    def post(self, request, slug: str):
        tournament = self.get_tournament(request, slug, manage=True)
        body = PreviewSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        entries, problems = services.preview_entrants(tournament, body.validated_data["text"])
        scope = choice_scope(tournament, request.user)
        found = iter(look_up_all([p for entry in entries for p in entry.people], by=request.user))
        lines = []
        for entry in entries:
            names = []
            for _person in entry.people:
                lookup = next(found)
                names.append(
                    {
                        "name": lookup.name,
                        "club": lookup.club,
                        "player": lookup.same.pk if lookup.same else None,
                        "asked": bool(
                            lookup.same
                            and lookup.same.user_id
                            and lookup.same.user_id != request.user.pk
                        ),
                        "candidates": offered(lookup, scope) if lookup.same is None else [],
                    }
                )
            lines.append({"line": entry.line, "names": names})
        return Response(
            {
                "lines": lines,
                "problems": [
                    {"line": p.line, "text": p.text, "message": told(p.message)} for p in problems
                ],
            }
        )
