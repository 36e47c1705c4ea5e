from django.apps import AppConfig


class CircuitConfig(AppConfig):
    """Play beyond one event: series of events, player ratings and ranked ladder sessions."""

    name = "circuit"

    def ready(self) -> None:
        # Wiring once the apps are loaded: rules, receivers and the runner's jobs.
        from circuit import consent, permissions, receivers  # noqa: F401 - rules and receivers
        from circuit.services import ladders, ratings, series  # the jobs' work, wired here
        from jobs import runner  # wired here with the jobs' work

        runner.register("ratings", ratings.take_in_changes, keyed=False)
        runner.register("series", series.recompute_series)
        runner.register("ladder", ladders.refresh_session)
