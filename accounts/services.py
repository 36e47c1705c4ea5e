"""Writes about users themselves."""

from django.conf import settings
from django.db import transaction

from accounts.models import Preference
from domain.errors import UserError
from domain.say import say


class PreferenceError(UserError):
    """A preference the user cannot choose."""


def set_language(user, language: str) -> Preference:
    """Remember the language a signed-in user reads the pages in ("" for the browser's)."""
    known = {code for code, _ in settings.LANGUAGES}
    if language and language not in known:
        raise PreferenceError(
            say("Choose one of: {names}.", names=", ".join(sorted(known))), "language"
        )
    with transaction.atomic():
        preference, _ = Preference.objects.update_or_create(
            user=user, defaults={"language": language}
        )
    return preference


def issue_own_token(user, *, rotate: bool = False) -> str:
    """The signed-in user's own API token (a new one with ``rotate``; the old one stops)."""
    from rest_framework.authtoken.models import Token

    with transaction.atomic():
        if rotate:
            Token.objects.filter(user=user).delete()
        token, _ = Token.objects.get_or_create(user=user)
    return token.key


def revoke_own_token(user) -> bool:
    """Delete the signed-in user's own API token; True if there was one."""
    from rest_framework.authtoken.models import Token

    with transaction.atomic():
        deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)
