"""The signals scoring sends; tournaments listen to them, scoring never imports them.

``game_changed`` comes after the transaction committed, for every change. Receivers get
``game_id``, ``change`` (``created``, ``hand_recorded``, ``hand_corrected``,
``hand_voided``, ``event_added``, ``event_undone``, ``game_reopened``, ``game_forfeited``,
``time_limit``, ``leader_set``, ``redeal``, ``dispute_opened``, ``dispute_resolved``),
``followed`` and ``status`` (the game's status once the change committed).

``game_saved`` comes inside the transaction, with the game row written and still locked,
and only for a followed game (one that something like a tournament's table holds), so a
receiver can keep rows of its own in step with the game in the same transaction. It gets
``game`` (the saved instance) and ``change``.
"""

from django.dispatch import Signal

game_changed = Signal()
game_saved = Signal()
