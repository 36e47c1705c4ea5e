"""Staff through the API: organizers invite existing users, who accept or decline; every
user manages their own API token. Nobody is given a role or a credential without their
own consent, except the referee accounts an event creates itself."""

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services as account_services
from accounts.idempotency import run_once
from tournaments import services
from tournaments.api import serializers as s
from tournaments.api.views import TournamentMixin
from tournaments.models import Invitation


def _signed_in(request) -> None:
    if not request.user.is_authenticated:
        raise NotAuthenticated()


class StaffView(TournamentMixin, APIView):
    """The event's staff and open invitations (organizers); invite an existing user."""

    @extend_schema(responses=s.StaffListSerializer)
    def get(self, request, slug: str):
        tournament = self.get_tournament(request, slug, manage=True)
        return Response(
            {
                "staff": s.StaffSerializer(
                    tournament.staff.select_related("user").order_by("role", "pk"), many=True
                ).data,
                "invitations": s.InvitationSerializer(
                    tournament.invitations.select_related("user", "invited_by", "tournament"),
                    many=True,
                ).data,
            }
        )

    @extend_schema(request=s.InvitationCreateSerializer, responses={201: s.InvitationSerializer})
    def post(self, request, slug: str):
        tournament = self.get_tournament(request, slug, manage=True)

        def invite():
            body = s.InvitationCreateSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            invitation = services.invite_staff(tournament, by=request.user, **body.validated_data)
            return Response(s.InvitationSerializer(invitation).data, status=201)

        return self.act(request, invite)


class MyInvitationsView(APIView):
    """The roles offered to you and not yet answered."""

    @extend_schema(responses=s.InvitationSerializer(many=True))
    def get(self, request):
        _signed_in(request)
        invitations = Invitation.objects.filter(user=request.user).select_related(
            "tournament", "invited_by", "user"
        )
        return Response(s.InvitationSerializer(invitations, many=True).data)


class InvitationAnswerView(TournamentMixin, APIView):
    """Accept (the role becomes yours) or decline an invitation made to you."""

    @extend_schema(request=None, responses={200: s.StaffSerializer, 204: None})
    def post(self, request, pk: int, answer: str):
        _signed_in(request)
        invitation = Invitation.objects.filter(pk=pk, user=request.user).first()
        if invitation is None or answer not in ("accept", "decline"):
            raise Http404

        def reply():
            if answer == "decline":
                services.decline_invitation(invitation, by=request.user)
                return Response(status=204)
            staff = services.accept_invitation(invitation, by=request.user)
            return Response(s.StaffSerializer(staff).data)

        return self.act(request, reply)


class MyTokenView(APIView):
    """Your own API token: a new one (the old one stops working) or none."""

    @extend_schema(request=None, responses={201: s.TokenSerializer})
    def post(self, request):
        _signed_in(request)
        return run_once(
            request,
            lambda: Response(
                {"token": account_services.issue_own_token(request.user, rotate=True)},
                status=201,
            ),
        )

    @extend_schema(request=None, responses={204: None})
    def delete(self, request):
        _signed_in(request)
        account_services.revoke_own_token(request.user)
        return Response(status=204)
