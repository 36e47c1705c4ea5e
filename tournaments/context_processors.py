"""What every page shows a signed-in user about the events they are part of."""

from django.utils.functional import SimpleLazyObject

from tournaments.models import Invitation


def staff_invitations(request) -> dict:
    """The roles offered to the signed-in user and not yet answered (read only if shown)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"pending_invitations": []}
    return {
        "pending_invitations": SimpleLazyObject(
            lambda: list(
                Invitation.objects.filter(user=user).select_related("tournament", "invited_by")
            )
        )
    }
