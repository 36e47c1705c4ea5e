"""The circuit's jobs move to the one job runner (``jobs.Job``): each row is copied, its
name ("ratings", "series:7", "ladder:3") split into a kind and a key, then the old table
goes. Backwards the rows go back the same way."""

from django.db import migrations

KINDS = ("ratings", "series", "ladder")
FIELDS = ("dirty", "queued", "queued_at", "requested_at", "finished_at", "runs")


def to_the_runner(apps, schema_editor):
    Old = apps.get_model("circuit", "Job")
    New = apps.get_model("jobs", "Job")
    for job in Old.objects.all():
        kind, _, key = job.name.partition(":")
        if kind not in KINDS:
            continue
        New.objects.update_or_create(
            kind=kind,
            key=int(key or 0),
            defaults={field: getattr(job, field) for field in FIELDS},
        )


def back_to_the_circuit(apps, schema_editor):
    Old = apps.get_model("circuit", "Job")
    New = apps.get_model("jobs", "Job")
    for job in New.objects.filter(kind__in=KINDS):
        name = f"{job.kind}:{job.key}" if job.key else job.kind
        Old.objects.update_or_create(
            name=name, defaults={field: getattr(job, field) for field in FIELDS}
        )
    New.objects.filter(kind__in=KINDS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("circuit", "0003_player_in_players"),
        ("jobs", "0001_job_runner"),
    ]

    operations = [
        migrations.RunPython(to_the_runner, back_to_the_circuit),
        migrations.DeleteModel(name="Job"),
    ]
