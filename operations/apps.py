from django.apps import AppConfig


class OperationsConfig(AppConfig):
    """Running an installation: backups of the database and the uploaded files."""

    name = "operations"
    default_auto_field = "django.db.models.BigAutoField"
