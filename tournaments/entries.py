"""Reading a pasted list of entrants: one a line, ``A & B`` for a team of two (pure)."""

from dataclasses import dataclass

from domain.say import say
from players.names import split_club

MAX_NAME = 120


@dataclass(frozen=True)
class EntryLine:
    """One entrant read from a line: one name, or two for a team."""

    line: int
    names: tuple[str, ...]
    clubs: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return " & ".join(self.names)

    @property
    def people(self) -> list[tuple[str, str]]:
        """Each name with its club (``"Ana Rivera (Club Capicú)"``), or ``""``."""
        clubs = self.clubs or ("",) * len(self.names)
        return list(zip(self.names, clubs, strict=True))


@dataclass(frozen=True)
class LineProblem:
    """Why a line cannot be registered, in an organizer's words."""

    line: int
    text: str
    message: str


def _clean(name: str) -> str:
    return " ".join(name.split())


def read_entries(
    text: str, *, teams: bool, taken: set[str] = frozenset()
) -> tuple[list[EntryLine], list[LineProblem]]:
    """Parse a pasted list; report every bad or duplicate line, nothing half-read."""
    entries: list[EntryLine] = []
    problems: list[LineProblem] = []
    seen: dict[str, int] = {}
    taken_folded = {name.casefold() for name in taken}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        names = tuple(_clean(part) for part in line.split("&"))
        if any(not name for name in names):
            problems.append(
                LineProblem(number, raw, say("A name is missing on either side of '&'."))
            )
            continue
        if len(names) > 2:
            problems.append(LineProblem(number, raw, say("A team has two players: 'A & B'.")))
            continue
        if teams and len(names) == 1:
            problems.append(
                LineProblem(number, raw, say("This is a Partners event: write a team as 'A & B'."))
            )
            continue
        if not teams and len(names) == 2:
            problems.append(
                LineProblem(number, raw, say("Players enter alone here; write one name a line."))
            )
            continue
        if teams and names[0].casefold() == names[1].casefold():
            problems.append(LineProblem(number, raw, say("A team needs two different players.")))
            continue
        if any(len(name) > MAX_NAME for name in names):
            problems.append(
                LineProblem(
                    number, raw, say("Names are at most {MAX_NAME} characters.", MAX_NAME=MAX_NAME)
                )
            )
            continue
        people = [split_club(name) for name in names]
        entry = EntryLine(number, tuple(n for n, _ in people), tuple(c for _, c in people))
        key = entry.label.casefold()
        if key in taken_folded:
            problems.append(
                LineProblem(number, raw, say("{label} is already registered.", label=entry.label))
            )
            continue
        if key in seen:
            problems.append(
                LineProblem(
                    number,
                    raw,
                    say(
                        "{label} is listed twice (line {seen}).", label=entry.label, seen=seen[key]
                    ),
                )
            )
            continue
        seen[key] = number
        entries.append(entry)
    return entries, problems
