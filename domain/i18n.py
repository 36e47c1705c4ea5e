"""Say a service's message in the language of the request being answered."""

from django.utils.translation import gettext, ngettext

from domain.say import localized


def told(message) -> str:
    """``message`` (a ``say`` message or plain text) in the active language."""
    return localized(message, gettext, ngettext)
