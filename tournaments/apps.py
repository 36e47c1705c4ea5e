from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"

    def ready(self) -> None:
        from tournaments import permissions, receivers  # noqa: F401 - registers rules, receivers
