"""The small things a new organizer met, each kept: counted words, rule-set names,
stored reasons and numbers in the reader's language."""

from django.utils import translation

from scoring.templatetags.capicu import told
from tournaments.pairing.base import Table
from tournaments.pairing.round_robin import round_flags
from tournaments.services.pairing import flag_rows


def _repeat_flag(pairs: int) -> dict:
    seated = (1, 2, 3, 4)
    met = {(1, 2): 1} if pairs == 1 else {(1, 2): 1, (3, 4): 1}
    (flag,) = round_flags([Table(seated)], met, unavoidable=True)
    (row,) = flag_rows([flag], {})
    return row


def test_a_repeat_meeting_counts_its_pairs_in_proper_words():
    one, two = _repeat_flag(1), _repeat_flag(2)
    assert "(1 pair);" in told(one) and "(2 pairs);" in told(two)
    with translation.override("es"):
        assert "(1 pareja);" in told(one) and "(2 parejas);" in told(two)
