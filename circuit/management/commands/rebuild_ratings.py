"""``manage.py rebuild_ratings``: every pool rated again from its first finished game."""

from django.core.management.base import BaseCommand

from circuit.services.ratings import rebuild_all


class Command(BaseCommand):
    help = (
        "Rebuild every rating pool from all finished games in finish order (the numbers "
        "the incremental updates give)."
    )

    def handle(self, *args, **options):
        for pool, games in rebuild_all().items():
            self.stdout.write(f"{pool}: {games} games rated")
