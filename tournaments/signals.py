"""The signal tournaments send for apps above them: ``standings_rewritten`` after a
recompute's commit changed at least one stage's snapshot (receivers get
``tournament_id``)."""

from django.dispatch import Signal

standings_rewritten = Signal()
