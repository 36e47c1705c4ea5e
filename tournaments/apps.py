from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"

    def ready(self) -> None:
        from scoring.views import GAME_LINKS
        from tournaments import permissions, receivers  # noqa: F401 - registers rules, receivers
        from tournaments.links import links_of_game

        if links_of_game not in GAME_LINKS:
            GAME_LINKS.append(links_of_game)
