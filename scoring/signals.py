"""The one signal scoring sends: a game changed (after its transaction committed).

Receivers get ``game_id`` and ``change`` (``hand_recorded``, ``hand_corrected``,
``hand_voided``, ``event_added``, ``event_undone``, ``game_reopened``, ``created``,
``referee_added``). Tournaments listen to it; scoring never imports them.
"""

from django.dispatch import Signal

game_changed = Signal()
