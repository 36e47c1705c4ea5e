"""What tournaments tell the apps above them: ``entrant_withdrawn`` inside the
transaction that did it, ``standings_rewritten`` after a recompute's commit changed at
least one stage's snapshot (receivers get ``tournament_id``)."""

from django.dispatch import Signal

# An entrant withdrew (``entrant``): a place in the event may have come free.
entrant_withdrawn = Signal()

standings_rewritten = Signal()

# An organizer entered ``entrants`` in ``tournament`` (``by``): a name that is someone's
# account plays as a new player standing in, and the apps above ask the person. Sent
# inside the transaction that entered them.
entrants_entered = Signal()

# Tables were seated in a round already published (``round``, ``matches``): a bracket's
# winners moved on. Sent inside the transaction that seated them.
tables_seated = Signal()
