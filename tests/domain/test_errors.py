"""domain/errors.py: every app's refusals are a UserError or a Conflict."""

import ast
from pathlib import Path

import pytest

from accounts.services import PreferenceError
from domain.errors import Conflict, DomainError, UserError
from domain.say import say
from scoring.rulesets import ScoringError
from scoring.services import GameConflict
from tournaments.entries import LineProblem
from tournaments.pairing.base import PairingError
from tournaments.services import BulkRegistrationError, TournamentConflict, TournamentError

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (ScoringError, UserError),
        (PairingError, UserError),
        (PreferenceError, UserError),
        (TournamentError, UserError),
        (BulkRegistrationError, UserError),
        (GameConflict, Conflict),
        (TournamentConflict, Conflict),
    ],
)
def test_each_app_error_is_a_domain_error_of_its_kind(error, kind):
    assert issubclass(error, kind)


def test_a_user_error_is_still_a_value_error_for_callers_that_catch_one():
    assert issubclass(UserError, ValueError)
    assert not issubclass(Conflict, UserError)


def test_the_body_tells_the_message_and_its_field_through_the_given_language():
    error = ScoringError(say("Seat {seat} is empty.", seat="B"), "pips")
    shout = lambda text: str(text).upper()  # noqa: E731
    assert error.body(shout) == {
        "detail": "SEAT B IS EMPTY.",
        "errors": {"pips": ["SEAT B IS EMPTY."]},
    }
    assert str(error) == "Seat B is empty."


def test_a_conflict_without_a_field_answers_for_the_whole_request():
    body = GameConflict("Hand 2 was already recorded.").body(str)
    assert body["errors"] == {"non_field_errors": ["Hand 2 was already recorded."]}


def test_a_bad_paste_lists_every_line_at_fault():
    problems = [LineProblem(line=2, text="Cruz", message="Partners need two names.")]
    body = BulkRegistrationError(problems).body(str)
    assert body["errors"] == {"text": ["line 2: Partners need two names."]}
    assert body["problems"] == [{"line": 2, "text": "Cruz", "message": "Partners need two names."}]


def imported_modules(package: str) -> set[str]:
    names = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
            elif isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
    return names


def test_accounts_imports_neither_scoring_nor_tournaments():
    assert imported_modules("accounts") & {"scoring", "tournaments"} == set()


def test_domain_imports_no_app():
    assert imported_modules("domain") & {"accounts", "scoring", "tournaments", "config"} == set()


def test_domain_errors_have_no_models():
    assert not (ROOT / "domain" / "models.py").exists()
    assert issubclass(DomainError, Exception)
