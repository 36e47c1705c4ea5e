"""Reading pasted entrant lists."""

from tournaments.entries import read_entries


def test_one_player_a_line_skipping_blanks_and_comments():
    entries, problems = read_entries("Ana\n\n  Beto  Ruiz \n# late ones\nCruz\n", teams=False)
    assert [entry.label for entry in entries] == ["Ana", "Beto Ruiz", "Cruz"]
    assert [entry.line for entry in entries] == [1, 3, 5]
    assert problems == []


def test_teams_are_written_with_an_ampersand():
    entries, problems = read_entries("Ana & Beto\nCruz&Dalia", teams=True)
    assert [entry.names for entry in entries] == [("Ana", "Beto"), ("Cruz", "Dalia")]
    assert problems == []


def test_every_bad_line_is_reported_with_its_number():
    text = "Ana & Beto\nCruz\nEva & \nFe & Gil & Hugo\nIris & iris\nAna & Beto\nana & beto"
    entries, problems = read_entries(text, teams=True)
    assert [entry.label for entry in entries] == ["Ana & Beto"]
    assert [(problem.line, problem.message) for problem in problems] == [
        (2, "This is a Partners event: write a team as 'A & B'."),
        (3, "A name is missing on either side of '&'."),
        (4, "A team has two players: 'A & B'."),
        (5, "A team needs two different players."),
        (6, "Ana & Beto is listed twice (line 1)."),
        (7, "ana & beto is listed twice (line 1)."),
    ]


def test_a_team_line_in_an_individual_event_is_refused():
    _, problems = read_entries("Ana & Beto", teams=False)
    assert problems[0].message == "Players enter alone here; write one name a line."


def test_names_already_registered_are_reported():
    entries, problems = read_entries("Ana\nBeto", teams=False, taken={"ANA"})
    assert [entry.label for entry in entries] == ["Beto"]
    assert problems[0].message == "Ana is already registered."


def test_overlong_names_are_refused():
    _, problems = read_entries("x" * 121, teams=False)
    assert problems[0].message == "Names are at most 120 characters."
