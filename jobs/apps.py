from django.apps import AppConfig


class JobsConfig(AppConfig):
    """The job runner: below every product app, which registers its work in ``ready``."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "jobs"
