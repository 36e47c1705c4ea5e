"""The OpenAPI schema tells every answer an operation can give, refusals included.

Every error the API gives has one shape (``config.api.exception_handler``); this schema
class adds it to each operation under the statuses that operation can answer, so a
client (or the fuzzer in the test suite) can rely on the documented codes.
"""

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    """What every refusal answers: a sentence, and the messages per field."""

    detail = serializers.CharField()
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))


ERROR_DESCRIPTIONS = {
    "400": "The request is malformed or a value is refused; `errors` says which field.",
    "401": "Sign in, or send `Authorization: Token …`.",
    "403": "You may not do this.",
    "404": "No such resource, or not one you may see.",
    "409": "The event's or game's state forbids this now (a version conflict, a round "
    "already paired ...).",
    "413": "The request body is too large.",
    "415": "The body is not JSON (the API takes `application/json` only).",
    "429": "Too many requests; wait and retry.",
}
READ_ERRORS = ("400", "401", "403", "404", "429")
WRITE_ERRORS = ("400", "401", "403", "404", "409", "413", "415", "429")


class AutoSchema(SpectacularAutoSchema):
    def _get_paginator(self):
        # Only reads are paginated: a POST that answers a list (the entrants a pasted list
        # registered) answers it whole.
        if self.method != "GET":
            return None
        return super()._get_paginator()

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        codes = READ_ERRORS if self.method in ("GET", "HEAD", "OPTIONS") else WRITE_ERRORS
        for code in codes:
            if code not in responses:
                responses[code] = self._get_response_for_code(
                    OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[code]),
                    code,
                    direction=direction,
                )
        return responses
