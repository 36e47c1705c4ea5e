"""Players through the API: search, a player's events, claim codes and merges, merges
asked for and confirmed, the record of acts on who you are, entering an event yourself,
the partner's answer, approvals, the waiting list, self check-in."""

from zoneinfo import ZoneInfo

from django.conf import settings
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import run_once
from accounts.models import Player
from accounts.permissions import allowed
from accounts.players import look_up_all, offered
from config.pagination import Pages, page_response
from domain.i18n import told
from players import entries as entry_requests
from players import identity, registration, selectors
from players.models import Application, IdentityAct, MergeRequest, Registration
from scoring.api import fields
from tournaments import services
from tournaments.api.serializers import EntrantSerializer
from tournaments.api.views import TournamentMixin
from tournaments.services.entrants import choice_scope

# --- serializers -------------------------------------------------------------------------


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


# --- views -------------------------------------------------------------------------------


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
