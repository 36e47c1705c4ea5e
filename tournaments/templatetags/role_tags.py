"""The roles section of the account page (an inclusion tag: the account page knows
nothing of tournaments)."""

from django import template

from tournaments.models import EventAccount
from tournaments.role_views import roles_of

register = template.Library()


@register.inclusion_tag("tournaments/_account_roles.html", takes_context=True)
def account_roles(context):
    user = context["request"].user
    return {
        "csrf_token": context.get("csrf_token"),
        "roles": roles_of(user),
        "made_by": EventAccount.objects.filter(user=user).select_related("tournament").first(),
    }
