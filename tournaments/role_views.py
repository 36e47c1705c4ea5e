"""The roles a user holds, on their account page: what they organize or referee, and a
button to give a role up (the account page knows nothing of tournaments)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from domain.pages import refusals_said
from tournaments.models import Staff
from tournaments.services.staff import leave_role as leave


def roles_of(user) -> list[Staff]:
    """The user's roles, newest event first, with their events (one query)."""
    return list(
        Staff.objects.filter(user=user)
        .select_related("tournament")
        .order_by("-tournament__created_at", "tournament__name", "role")
    )


@login_required
@require_POST
def leave_role(request, pk: int):
    """The signed-in user gives up one of their roles."""
    staff = Staff.objects.filter(pk=pk, user=request.user).select_related("tournament").first()
    if staff is None:
        raise Http404("No such role.")
    with refusals_said(request):
        leave(staff, by=request.user)
        messages.success(
            request,
            gettext("You are no longer {role} of {name}.").format(
                role=staff.get_role_display().lower(), name=staff.tournament.name
            ),
        )
    return redirect("account")
