from django.apps import AppConfig


class PlayersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "players"

    def ready(self) -> None:
        from players import permissions, receivers  # noqa: F401  (rules and hooks)
        from players.tasks import register_jobs  # the runner's jobs, once the apps are loaded

        register_jobs()
