"""Template helpers for tournament pages (registered as a builtin in settings)."""

from django import template
from django.utils.translation import gettext

from domain.numbers import decimal_text
from tournaments.read.standings import reason_text

register = template.Library()


@register.filter
def reason_told(row):
    """A standings row's reason in the active language (from the data stored with it)."""
    return reason_text(row.reason_data, gettext, decimal_text)
