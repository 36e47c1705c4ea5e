"""What the players app tells the apps above it."""

from django.dispatch import Signal

# Two players are becoming one (``kept``, ``removed``), inside the merge's transaction and
# before any row is moved: an app holding figures derived from a player's games (ratings)
# drops the removed player's and works them out again after the commit.
player_merging = Signal()

# An entry's place in ``tournament`` moved between two ``players`` (an entry request
# answered), inside the answer's transaction: figures derived from their games (ratings,
# series lines) are worked out again after the commit.
entry_moved = Signal()
