"""The small things a new organizer met, each kept: counted words, rule-set names,
stored reasons and numbers in the reader's language."""

import pytest
from django.utils import translation

from scoring.templatetags.capicu import told
from tournaments.pairing.base import Table
from tournaments.pairing.round_robin import round_flags
from tournaments.services.pairing import flag_rows


@pytest.fixture(autouse=True)
def _language_reset():
    """A page asked for in Spanish leaves the thread's language as it found it."""
    yield
    translation.activate("en")


def _repeat_flag(pairs: int) -> dict:
    seated = (1, 2, 3, 4)
    met = {(1, 2): 1} if pairs == 1 else {(1, 2): 1, (3, 4): 1}
    (flag,) = round_flags([Table(seated)], met, unavoidable=True)
    (row,) = flag_rows([flag], {})
    return row


def test_a_repeat_meeting_counts_its_pairs_in_proper_words():
    one, two = _repeat_flag(1), _repeat_flag(2)
    with translation.override("en"):
        assert "(1 pair);" in told(one) and "(2 pairs);" in told(two)
    with translation.override("es"):
        assert "(1 pareja);" in told(one) and "(2 parejas);" in told(two)


@pytest.mark.django_db
def test_rule_set_names_stay_as_they_are_and_each_preset_has_its_own_words(client):
    from scoring.rulesets import PRESETS
    from tests.factories import UserFactory

    client.force_login(UserFactory())
    page = client.get("/organize/new/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    for preset in PRESETS.values():
        assert f'translate="no">{preset.label}</a>' in page  # a proper name, as it is
    two_box = [PRESETS["two_box"].description, PRESETS["two_box_cutthroat"].description]
    assert two_box[0] != two_box[1]
    with translation.override("es"):
        for description in two_box:
            assert translation.gettext(description) in page
    chosen = client.get("/organize/new/?preset=mexican", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Nuevo torneo con las reglas Mexican" in chosen


def test_spanish_says_valoracion_never_rating():
    """The player page said "Rating (conservador)": one language at a time."""
    import polib
    from django.conf import settings

    po = polib.pofile(str(settings.BASE_DIR / "locale" / "es" / "LC_MESSAGES" / "django.po"))
    mixed = [
        entry.msgid
        for entry in po
        if any("rating" in text.lower() for text in [entry.msgstr, *entry.msgstr_plural.values()])
    ]
    assert not mixed
    with translation.override("es"):
        said = translation.gettext("Rating (conservative) after games 1 to {count}: {values}.")
    assert said.startswith("Valoración (conservadora)")


def test_a_stage_name_follows_its_format_unless_the_organizer_typed_one():
    from tournaments.forms import StageForm, TournamentForm

    form = StageForm({"name": "Round robin", "format": "swiss"})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["name"] == "Swiss"
    typed = StageForm({"name": "Liga de otoño", "format": "swiss"})
    assert typed.is_valid() and typed.cleaned_data["name"] == "Liga de otoño"
    back = StageForm({"name": "Swiss", "format": "round_robin"})
    assert back.is_valid() and back.cleaned_data["name"] == "Round robin"
    assert "&quot;swiss&quot;: &quot;Swiss&quot;" in str(form["name"])  # the script follows too
    with translation.override("es"):
        spanish = StageForm({"name": "Round robin", "format": "swiss"})
        assert spanish.is_valid() and spanish.cleaned_data["name"] == str(
            translation.gettext("Swiss")
        )
    first = TournamentForm(
        {"name": "Copa", "stage_name": "Round robin", "stage_format": "swiss"}, preset="cutthroat"
    )
    first.is_valid()
    assert first.cleaned_data["stage_name"] == "Swiss"


@pytest.mark.django_db
def test_reasons_the_code_wrote_are_read_in_spanish_and_typed_ones_as_typed(client):
    from scoring.audit import record_act
    from scoring.models import OfficialAct
    from tests.factories import UserFactory
    from tournaments.sanctions import scope_of
    from tournaments.services import create_tournament

    organizer = UserFactory(username="organizer")
    tournament = create_tournament(by=organizer, name="Copa", ruleset_key="cutthroat")
    for reason in ("undone by referee", "No-show: did not arrive", "se fue a casa"):
        record_act(
            OfficialAct.Kind.FORFEIT, by=organizer, scope=scope_of(tournament), reason=reason
        )
    client.force_login(organizer)
    url = f"/t/{tournament.slug}/manage/audit/"
    spanish = client.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "deshecho por el árbitro" in spanish and "undone by referee" not in spanish
    assert "No se presentó: did not arrive" in spanish and "No-show" not in spanish
    assert "se fue a casa" in spanish
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "undone by referee" in english and "No-show: did not arrive" in english


def test_figures_on_pages_are_written_as_the_reader_writes_them():
    from domain.numbers import decimal_text
    from tournaments.read.standings import reason_text

    with translation.override("es"):
        assert decimal_text("96.67") == "96,67" and decimal_text("-2.5") == "-2,5"
        assert decimal_text("250") == "250" and decimal_text("") == ""
        assert decimal_text("v1.2.3") == "v1.2.3"
        data = {"metric": "points_for", "one": "227.5", "two": "96.67"}
        said = reason_text(data, translation.gettext, decimal_text)
        assert "227,5" in said and "96,67" in said
    with translation.override("en"):
        assert decimal_text("96.67") == "96.67"


@pytest.mark.django_db
def test_the_time_zone_menu_lists_canonical_zones_those_near_the_event_first(client):
    from tests.factories import UserFactory
    from tournaments import clock
    from tournaments.services import create_tournament

    organizer = UserFactory(username="organizer")
    create_tournament(
        by=organizer, name="Antes", ruleset_key="cutthroat", time_zone="Europe/Madrid"
    )
    tournament = create_tournament(by=organizer, name="Copa", ruleset_key="cutthroat")
    client.force_login(organizer)
    page = client.get(
        f"/t/{tournament.slug}/manage/settings/", HTTP_ACCEPT_LANGUAGE="es-PR,es;q=0.9"
    ).content.decode()
    menu = page[
        page.index('name="time_zone"') : page.index("</select>", page.index('name="time_zone"'))
    ]
    near = menu[menu.index("<optgroup") : menu.index("</optgroup>")]
    assert 'label="Cerca de usted"' in near
    assert "Europe/Madrid" in near and "America/Puerto_Rico" in near  # earlier event, region
    assert "US/Eastern" not in menu and "Etc/GMT+4" not in menu and "Cuba" not in menu
    assert 'value="UTC" selected' in menu or 'value="UTC"\n' in menu or 'value="UTC"' in menu
    assert len(clock.canonical_zones()) < 450  # not the ~600 names with their aliases
    assert "America/New_York" in clock.canonical_zones()


@pytest.mark.django_db
def test_times_on_event_pages_have_one_format_with_the_zone_named():
    import datetime as dt

    from tests.factories import UserFactory
    from tournaments.services import create_tournament
    from tournaments.templatetags.eventday_tags import event_time

    organizer = UserFactory(username="organizer")
    tournament = create_tournament(
        by=organizer, name="Copa", ruleset_key="cutthroat", time_zone="America/Puerto_Rico"
    )
    moment = dt.datetime(2026, 11, 24, 22, 0, tzinfo=dt.UTC)
    assert event_time(moment, tournament) == "2026-11-24 18:00 (America/Puerto_Rico)"
