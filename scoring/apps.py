from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"

    def ready(self) -> None:
        # Once the models are loaded: the game rules, the receiver that clears the live
        # pages' cache, and the answer to a game page's live question.
        from domain import live  # the registry the answer joins
        from scoring import permissions, receivers  # noqa: F401
        from scoring.live import GameQuestion, answer_game  # the game's live answer

        live.register(GameQuestion, answer_game)
