from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"

    def ready(self) -> None:
        # The game rules, and the receiver that clears the live pages' cache.
        from scoring import permissions, receivers  # noqa: F401
