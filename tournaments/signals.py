"""What tournaments tell the apps above them, inside the transaction that did it."""

from django.dispatch import Signal

# An entrant withdrew (``entrant``): a place in the event may have come free.
entrant_withdrawn = Signal()
