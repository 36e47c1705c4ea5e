"""Issue or revoke a referee's API token: ``manage.py referee_token ana [--revoke]``."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from rest_framework.authtoken.models import Token


class Command(BaseCommand):
    help = "Print a user's API token (creating it), or revoke it with --revoke."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--revoke", action="store_true", help="delete the user's token")
        parser.add_argument(
            "--create-user", action="store_true", help="create the user if there is none"
        )
        parser.add_argument(
            "--rotate", action="store_true", help="replace an existing token with a new one"
        )

    def handle(self, *args, username, revoke, create_user, rotate, **options):
        users = get_user_model().objects
        with transaction.atomic():
            user = users.filter(username=username).first()
            if user is None:
                if not create_user:
                    raise CommandError(f"There is no user {username!r} (use --create-user).")
                user = users.create_user(username=username)
                user.set_unusable_password()
                user.save(update_fields=["password"])
            if revoke:
                deleted, _ = Token.objects.filter(user=user).delete()
                self.stdout.write(
                    f"Revoked {username}'s token." if deleted else f"{username} had no token."
                )
                return
            if rotate:
                Token.objects.filter(user=user).delete()
            token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(token.key)
