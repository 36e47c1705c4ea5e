"""Messages that count say the right form in each language, and keep it when pickled."""

import pickle

from django.utils import translation

from domain.i18n import told
from domain.say import say, say_n


def test_a_counted_message_picks_its_form_in_english_and_in_spanish():
    one = say_n(
        "{count} line needs fixing; nothing was registered.",
        "{count} lines need fixing; nothing was registered.",
        1,
        count=1,
    )
    three = say_n(
        "{count} line needs fixing; nothing was registered.",
        "{count} lines need fixing; nothing was registered.",
        3,
        count=3,
    )
    assert one == "1 line needs fixing; nothing was registered."
    assert three == "3 lines need fixing; nothing was registered."
    with translation.override("es"):
        assert told(one) == "Hay que corregir 1 línea; no se inscribió a nadie."
        assert told(three) == "Hay que corregir 3 líneas; no se inscribió a nadie."
        assert told(pickle.loads(pickle.dumps(three))) == told(three)
    with translation.override("en"):
        assert told(pickle.loads(pickle.dumps(one))) == str(one)


def test_a_plain_message_is_unchanged():
    message = say("This stage is already finished.")
    assert message.plural is None
    with translation.override("es"):
        assert told(message) != str(message)
