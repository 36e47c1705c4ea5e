"""The API's JSON parser: it refuses, before any field sees it, what no field could take.

Numbers are left to the fields: each bounds its own and says its range in its own words
("Give a whole number from 1 to 10000."), which a parser-wide "too large" could not.
"""

from django.utils.translation import gettext
from rest_framework import exceptions, parsers

# Deep enough for any body the API documents; Python's parser would recurse past its
# limit long before a hostile body ends.
MAX_JSON_DEPTH = 32


def _refused_json(value) -> str | None:
    """Why ``value`` (a parsed JSON body) may not go further, or None if it may."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if depth > MAX_JSON_DEPTH:
            return gettext("The JSON is nested too deeply.")
        if isinstance(item, dict):
            pending.extend((key, depth) for key in item)
            pending.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            pending.extend((child, depth + 1) for child in item)
        elif isinstance(item, str) and "\x00" in item:
            return gettext("Text may not contain NUL characters.")
    return None


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing what no field could take: too deep, or NUL in text."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            value = super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise exceptions.ParseError(gettext("The JSON is nested too deeply.")) from error
        problem = _refused_json(value)
        if problem:
            raise exceptions.ParseError(problem)
        return value
