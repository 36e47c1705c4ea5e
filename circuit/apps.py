from django.apps import AppConfig


class CircuitConfig(AppConfig):
    """Play beyond one event: series of events, player ratings and ranked ladder sessions."""

    name = "circuit"

    def ready(self) -> None:
        from circuit import consent, permissions, receivers  # noqa: F401 - rules and receivers
