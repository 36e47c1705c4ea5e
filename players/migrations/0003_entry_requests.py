"""Entry requests: an organizer's entry of a player linked to an account waits for the
person's word. Entries made before, by someone other than the person, are asked now: until
answered their games leave the ratings (their finished games are marked for the ratings
job to take in again)."""

import django.db.models.deletion
from django.utils import timezone
from django.conf import settings
from django.db import migrations, models


def ask_for_earlier_entries(apps, schema_editor):
    """Every entry of a linked player that its holder did not make (their own entry or
    a partner's invitation accepted, a role in the event, the event their own, or the
    player claimed after the entry) gets a pending request from the event's creator."""
    Entrant = apps.get_model("tournaments", "Entrant")
    Application = apps.get_model("players", "Application")
    Staff = apps.get_model("tournaments", "Staff")
    IdentityAct = apps.get_model("players", "IdentityAct")
    EntryRequest = apps.get_model("players", "EntryRequest")
    Game = apps.get_model("scoring", "Game")
    RatingsDirty = apps.get_model("circuit", "RatingsDirty")
    asked_events = set()
    now = timezone.now()  # asked today: the person has the whole time to answer
    rows = Entrant.objects.filter(
        models.Q(player__user__isnull=False) | models.Q(partner__user__isnull=False)
    ).select_related("player", "partner", "tournament")
    for entrant in rows.iterator():
        for player in (entrant.player, entrant.partner):
            if player is None or player.user_id is None:
                continue
            user_id, tournament = player.user_id, entrant.tournament
            own = (
                tournament.created_by_id == user_id
                or Application.objects.filter(tournament=tournament, entrant=entrant)
                .filter(models.Q(user_id=user_id) | models.Q(partner_user_id=user_id))
                .exists()
                or Staff.objects.filter(tournament=tournament, user_id=user_id).exists()
                or IdentityAct.objects.filter(
                    kind="claim",
                    account_id=user_id,
                    player_id=player.pk,
                    at__gte=entrant.created_at,
                ).exists()
            )
            if own or EntryRequest.objects.filter(tournament=tournament, player=player).exists():
                continue
            EntryRequest.objects.create(
                tournament=tournament,
                entrant=entrant,
                player=player,
                asked_by_id=tournament.created_by_id,
                asked_at=now,
            )
            IdentityAct.objects.create(
                kind="entry_request",
                by_id=tournament.created_by_id,
                account_id=user_id,
                player_id=player.pk,
                player_name=player.display_name,
                event=tournament.name[:200],
            )
            asked_events.add(tournament.pk)
    finished = Game.objects.filter(
        match__round__stage__tournament_id__in=asked_events, status="finished"
    ).values_list("pk", flat=True)
    RatingsDirty.objects.bulk_create(
        [RatingsDirty(game_id=pk) for pk in finished], ignore_conflicts=True
    )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_preference_emails"),
        ("players", "0002_one_identity_owned_by_the_person"),
        ("tournaments", "0012_seat_results_up_to_six_sides"),
        ("circuit", "0002_ladder_consent_requests_and_acts"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="identityact",
            name="event",
            field=models.CharField(
                blank=True, help_text="The event an entry act is about.", max_length=200
            ),
        ),
        migrations.AlterField(
            model_name="identityact",
            name="kind",
            field=models.CharField(
                choices=[
                    ("claim_code", "Claim code given"),
                    ("claim", "Account linked with a claim code"),
                    ("link", "Account linked to a new player"),
                    ("unlink", "Account unlinked"),
                    ("merge_request", "Merge asked for"),
                    ("merge_confirm", "Merge confirmed"),
                    ("merge", "Players merged"),
                    ("entry_request", "Asked to enter you in an event"),
                    ("entry_accept", "Entry accepted"),
                    ("entry_decline", "Entry declined"),
                ],
                max_length=16,
            ),
        ),
        migrations.CreateModel(
            name="EntryRequest",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("asked_at", models.DateTimeField()),
                (
                    "answer",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("accepted", "Accepted"),
                            ("declined", "Declined"),
                        ],
                        default="pending",
                        max_length=8,
                    ),
                ),
                ("answered_at", models.DateTimeField(blank=True, null=True)),
                (
                    "asked_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "entrant",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tournaments.entrant",
                    ),
                ),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="accounts.player",
                    ),
                ),
                (
                    "stand_in",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="accounts.player",
                    ),
                ),
                (
                    "tournament",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="entry_requests",
                        to="tournaments.tournament",
                    ),
                ),
            ],
            options={
                "ordering": ["-asked_at", "-pk"],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("answer", "pending")),
                        fields=("tournament", "player"),
                        name="entry_request_pending_once",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("answer", "pending"), ("answered_at__isnull", True)),
                            models.Q(
                                models.Q(("answer", "pending"), _negated=True),
                                ("answered_at__isnull", False),
                            ),
                            _connector="OR",
                        ),
                        name="entry_request_answered_at",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("stand_in__isnull", True),
                            models.Q(("stand_in", models.F("player")), _negated=True),
                            _connector="OR",
                        ),
                        name="entry_request_stand_in_is_another",
                    ),
                ],
            },
        ),
        migrations.RunPython(ask_for_earlier_entries, migrations.RunPython.noop),
    ]
