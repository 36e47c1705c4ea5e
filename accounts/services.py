"""Writes about users themselves."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.cache import cache
from django.db import transaction
from rest_framework.authtoken.models import Token

from accounts.models import Preference
from domain.errors import UserError
from domain.say import say

UNSUBSCRIBE_SALT = "capicu.accounts.unsubscribe"
HOUR = 3600


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
    with transaction.atomic():
        if rotate:
            Token.objects.filter(user=user).delete()
        token, _ = Token.objects.get_or_create(user=user)
    return token.key


def revoke_own_token(user) -> bool:
    """Delete the signed-in user's own API token; True if there was one."""
    with transaction.atomic():
        deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)


def wants_emails(user) -> bool:
    """Whether ``user`` has not turned capicu's emails off."""
    return not Preference.objects.filter(user=user, emails=False).exists()


def set_emails(user, on: bool) -> Preference:
    """Turn every email capicu may send ``user`` on or off."""
    with transaction.atomic():
        preference, _ = Preference.objects.update_or_create(user=user, defaults={"emails": on})
    return preference


def unsubscribe_token(user) -> str:
    """A signed token that turns ``user``'s emails off without signing in (the link in
    every email, the same in each). It names the account and the address it was sent to,
    so it stops working once the address changes; it does not expire, as RFC 8058 asks."""
    return signing.Signer(salt=UNSUBSCRIBE_SALT).sign_object([user.pk, user.email], compress=True)


def user_of_unsubscribe_token(token: str):
    """The active user an unsubscribe token was made for, or None if it is not valid."""
    try:
        user_id, email = signing.Signer(salt=UNSUBSCRIBE_SALT).unsign_object(token)
    except (signing.BadSignature, TypeError, ValueError):
        return None
    return get_user_model().objects.filter(pk=user_id, email=email, is_active=True).first()


def unsubscribe(token: str):
    """Turn off the emails of the user the token names; None if the token is not valid."""
    user = user_of_unsubscribe_token(token)
    if user is not None:
        set_emails(user, False)
    return user


def spend_hourly(what: str, owner_id, per_hour: int) -> bool:
    """Count one more ``what`` by (or for) ``owner_id`` this hour; False once ``per_hour``
    are spent. The hour starts at the first one, kept in the cache like the claim-code
    tries; a cache that is away counts nothing (the caps are a brake, not a lock)."""
    key = f"accounts:hourly:{what}:{owner_id}"
    cache.add(key, 0, HOUR)
    try:
        used = cache.incr(key)
    except ValueError:  # gone between the two calls
        cache.set(key, 1, HOUR)
        used = 1
    return used <= per_hour
