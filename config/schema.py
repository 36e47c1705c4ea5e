"""The OpenAPI generator, told that only reads are paginated."""

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema


class AutoSchema(SpectacularAutoSchema):
    """Document the page shape on GET lists only: a POST that answers a list (the entrants a
    pasted list registered) answers it whole."""

    def _get_paginator(self):
        if self.method != "GET":
            return None
        return super()._get_paginator()
