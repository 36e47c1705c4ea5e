"""CSV exports of a tournament: its standings and every hand's result per side.

Column names are stable (docs/guide.md, "Exports"); new columns are only ever appended.
Rows are produced in a fixed number of queries and streamed. Only published rounds are
exported: a draft round has no results yet, and its tables are the staff's.

Every cell of free text (names an organizer or a list typed in) goes through ``text``, so
that a spreadsheet opening the file never reads it as a formula; numbers stay numbers.
"""

import csv
from collections import defaultdict
from collections.abc import Iterator

from django.db.models import Prefetch
from django.http import StreamingHttpResponse

from scoring.models import Hand, ScoreEvent, Seat
from tournaments.models import Match, MatchSeat, Round, Tournament
from tournaments.read.selectors import side_names, standing_lines
from tournaments.read.standings import BRACKET_FINISH, MARKS, TIEBREAKERS, metric_text

STANDINGS_COLUMNS = [
    "tournament",
    "stage",
    "rank",
    "tied",
    "entrant",
    "withdrawn",
    "games_played",
    *TIEBREAKERS,  # every tiebreak metric of the registry, "seed" among them
    "reason",
    "disputed",
    "forfeit",
    "disqualified",
    BRACKET_FINISH,  # a bracket's place so far; blank in other stages
]

# A spreadsheet reads a cell starting with one of these as a formula (or, for tab and
# carriage return, strips them and reads what follows): OWASP's CSV injection list.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text(value: str) -> str:
    """A text cell a spreadsheet shows as text: a leading quote before a formula start."""
    return f"'{value}" if value.startswith(FORMULA_STARTS) else value


RESULTS_COLUMNS = [
    "tournament",
    "stage",
    "round",
    "table",
    "game",
    "hand",
    "version",
    "ended",
    "domino_by",
    "side",
    "players",
    "pips",
    "award",
    "in_play",
    "penalties",
    "total",
    "forfeit",
    "did_not_play",
]


def standings_rows(tournament: Tournament) -> Iterator[list[str]]:
    """Every stage's standings snapshot, every metric, best first."""
    yield STANDINGS_COLUMNS
    rows, _ = standing_lines(tournament)
    for row in rows:
        yield [
            text(tournament.name),
            text(row.stage.name),
            str(row.rank),
            "yes" if row.tied else "no",
            text(row.entrant.name),
            "yes" if row.withdrawn else "no",
            str(row.games_played),
            *(metric_text(row.metrics.get(key), 4) for key in TIEBREAKERS),
            text(row.reason),
            *("yes" if mark in row.marks else "no" for mark in MARKS),
            metric_text(row.metrics.get(BRACKET_FINISH)),
        ]


def results_rows(tournament: Tournament) -> Iterator[list[str]]:
    """One row per current hand per side, with the side's running total after it."""
    yield RESULTS_COLUMNS
    every = list(
        Match.objects.filter(round__stage__tournament=tournament, bye=False)
        .exclude(round__status=Round.Status.DRAFT)
        .select_related("round__stage", "game")
        .prefetch_related(
            Prefetch("game__seats", queryset=Seat.objects.order_by("position")),
            Prefetch(
                "seats", queryset=MatchSeat.objects.select_related("entrant").order_by("position")
            ),
        )
        .order_by("round__stage__order", "round__number", "table_number")
    )
    matches = [m for m in every if m.game_id]
    game_ids = [m.game_id for m in matches]
    hands = defaultdict(list)
    for hand in Hand.objects.filter(
        game__match__round__stage__tournament=tournament, is_current=True
    ).order_by("game_id", "number"):
        hands[hand.game_id].append(hand)
    points = defaultdict(int)  # (game, hand, side name, in_play|penalty) -> points
    for event in (
        ScoreEvent.objects.filter(game_id__in=game_ids, active=True)
        .select_related("side")
        .only("game_id", "hand_number", "kind", "points", "side__name")
    ):
        kind = "penalty" if event.kind == ScoreEvent.Kind.PENALTY else "in_play"
        points[(event.game_id, event.hand_number, event.side.name, kind)] += event.points
    tournament_name = text(tournament.name)
    names = side_names(tournament)
    for match in every:
        game = match.game
        stage_name = text(match.round.stage.name)
        missed = _did_not_play(match, names)
        where = [tournament_name, stage_name, str(match.round.number), str(match.table_number)]
        if game is None:
            # A bracket's walkover has no game: a row per entrant says who did not come.
            for seat in match.seats.all():
                side = names[seat.position]
                nothing = [""] * 5  # pips, award, in play, penalties, total: nothing played
                walkover = [*where, "", "", "", "walkover", "", side, text(seat.entrant.name)]
                gave_up = "yes" if side in missed else "no"
                yield [*walkover, *nothing, gave_up, missed.get(side, "")]
            continue
        seats = {seat.name: seat.display_name for seat in game.seats.all()}
        sides = sorted(game.totals) or names
        running = dict.fromkeys(sides, 0)
        for hand in hands[game.pk]:
            for side in sides:
                members = side.split("+")
                in_play = points[(game.pk, hand.number, side, "in_play")]
                penalties = points[(game.pk, hand.number, side, "penalty")]
                award = hand.awards.get(side, 0)
                running[side] += award + in_play + penalties
                yield [
                    tournament_name,
                    stage_name,
                    str(match.round.number),
                    str(match.table_number),
                    str(game.pk),
                    str(hand.number),
                    str(hand.version),
                    "void" if hand.voided else hand.ended,
                    text(seats.get(hand.domino_by, "")),
                    side,
                    text(" & ".join(seats.get(seat, seat) for seat in members)),
                    str(sum(hand.pips.get(seat, 0) for seat in members)),
                    str(award),
                    str(in_play),
                    str(penalties),
                    str(running[side]),
                    "yes" if side in game.forfeited_sides else "no",
                    missed.get(side, ""),
                ]
        if game.forfeited_sides:
            # The game ended as a forfeit: a row per side after its hands says so.
            for side in sides:
                members = side.split("+")
                yield [
                    *where,
                    str(game.pk),
                    "",
                    "",
                    "forfeit",
                    "",
                    side,
                    text(" & ".join(seats.get(seat, seat) for seat in members)),
                    "",
                    "0",
                    "0",
                    "0",
                    str(running[side]),
                    "yes" if side in game.forfeited_sides else "no",
                    missed.get(side, ""),
                ]


def _did_not_play(match: Match, names: list[str]) -> dict[str, str]:
    """Side name → why its entrant did not play, for the seats recorded so at the table."""
    return {
        names[seat.position]: seat.did_not_play
        for seat in match.seats.all()
        if seat.did_not_play and seat.position < len(names)
    }


class _Echo:
    """A file-like object whose write returns the line, for streaming csv output."""

    def write(self, value: str) -> str:
        return value


def csv_lines(rows: Iterator[list[str]]) -> Iterator[str]:
    writer = csv.writer(_Echo())
    for row in rows:
        yield writer.writerow(row)


EXPORTS = {"standings": standings_rows, "results": results_rows}


def csv_response(tournament: Tournament, kind: str):
    """A streamed CSV download of one export (``standings`` or ``results``)."""
    response = StreamingHttpResponse(
        csv_lines(EXPORTS[kind](tournament)), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{tournament.slug}-{kind}.csv"'
    return response
