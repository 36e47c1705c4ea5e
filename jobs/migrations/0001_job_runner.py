from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Job",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("kind", models.CharField(max_length=40)),
                ("key", models.BigIntegerField(default=0)),
                ("dirty", models.BooleanField(default=False)),
                (
                    "queued",
                    models.BooleanField(default=False, help_text="A run is queued or running."),
                ),
                ("queued_at", models.DateTimeField(blank=True, null=True)),
                ("requested_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("runs", models.PositiveIntegerField(default=0)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("kind", "key"), name="one_job_per_key")
                ],
                "indexes": [models.Index(fields=["dirty", "queued"], name="jobs_left_behind")],
            },
        ),
    ]
