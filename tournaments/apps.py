from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"

    def ready(self) -> None:
        # Wiring once every app is loaded: the live answer of a tournament's question, and
        # the game page's links to its table.
        from domain import live  # the registry the answer joins
        from scoring.live import GAME_LINKS  # the hooks of the game page's links
        from tournaments import permissions, receivers  # noqa: F401 - registers rules, receivers
        from tournaments.links import links_of_game  # the link added below, once apps are loaded
        from tournaments.read import answers  # the live answer registered below, needs the models
        from tournaments.tasks import register_jobs  # the runner's jobs, once apps are loaded

        register_jobs()
        live.register(answers.Question, answers.answer_tournament)

        if links_of_game not in GAME_LINKS:
            GAME_LINKS.append(links_of_game)
