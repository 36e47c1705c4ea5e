from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"

    def ready(self) -> None:
        from scoring import permissions  # noqa: F401 - registers the game rules
