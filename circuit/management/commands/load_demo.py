"""``manage.py load_demo``: a demo event on an empty database, with its logins printed.

The demo is built app by app, from the bottom up: the tournaments' events first
(``tournaments.demo``), then the series, leaderboards and ladder session played by their
players (``circuit.demo``)."""

import time

from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

from circuit.demo import load as load_circuit
from tournaments.demo import load, play
from tournaments.models import Tournament


class Command(BaseCommand):
    help = (
        "Create a demo event: an 18-player Cutthroat round robin four rounds in, a Partners "
        "league of 8 teams and a 16-player bracket, with an organizer and two referees."
    )

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=2026, help="seed for the shuffles")
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="do nothing (and succeed) when the database already holds tournaments",
        )
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")

    def handle(self, *args, seed, if_empty, base_url, **options):
        if Tournament.objects.exists():
            if if_empty:
                self.stdout.write("The database already holds tournaments; no demo loaded.")
                return
            raise CommandError("load_demo needs an empty database (no tournaments yet).")
        started = time.perf_counter()
        # The demo's players are told of their tables by email like anyone's; while it is
        # built those emails are kept in memory, not printed over its addresses.
        with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
            demo = load(seed=seed)
            demo.hands += load_circuit(
                demo.organizer, demo.rng, play=play, players_from="cutthroat-open"
            )
        elapsed = time.perf_counter() - started
        base = base_url.rstrip("/")
        self.stdout.write(
            self.style.SUCCESS(f"Demo loaded: {demo.hands} hands in {elapsed:.1f} s.")
        )
        self.stdout.write("Public pages (no account needed):")
        self.stdout.write(f"  {base}/")
        for tournament in demo.tournaments:
            self.stdout.write(f"  {base}/t/{tournament.slug}/   {tournament.name}")
        self.stdout.write(f"  {base}/players/   players across events")
        self.stdout.write(f"  {base}/series/   the weekly series and its standings")
        self.stdout.write(f"  {base}/ratings/   the leaderboards")
        self.stdout.write(f"  {base}/ladders/   the ladder session")
        self.stdout.write(f"Log in at {base}/accounts/login/ with:")
        for username, password in demo.logins.items():
            role = {
                "organizer": "organizer of every demo event",
                "ana": "a player in three events: her account page lists them",
            }.get(username, "referee")
            self.stdout.write(f"  {username:<10} / {password:<18} ({role})")
        self.stdout.write(f"Referees score at {base}/referee/ ; the API is at {base}/api/docs/")
