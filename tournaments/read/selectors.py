"""Read queries for the public pages: a fixed number of queries whatever the field size."""

from dataclasses import dataclass, field
from datetime import timedelta

from django.db.models import Count, Exists, OuterRef, Prefetch, Q
from django.utils import timezone
from django.utils.translation import gettext

from domain.numbers import decimal_text, whole_number
from scoring import engine, wording
from scoring.models import Dispute, seat_names
from scoring.rulesets import RuleSet, get_ruleset
from scoring.selectors import ruleset_of as game_ruleset
from tournaments.models import (
    Entrant,
    Match,
    MatchSeat,
    Round,
    Stage,
    StandingsSnapshot,
    StandingsState,
    Tournament,
)
from tournaments.pairing import PairingError
from tournaments.read import live
from tournaments.read.live import StandingsMark
from tournaments.read.standings import explain, metric_text, reason_text
from tournaments.read.standings_store import SnapshotDocument, stage_order
from tournaments.stage_facts import engine_of, stage_entrants


def visible_tournaments(user):
    """Public tournaments, and the private ones ``user`` is staff of."""
    tournaments = Tournament.objects.exclude(status=Tournament.Status.DRAFT)
    if getattr(user, "is_superuser", False):
        return Tournament.objects.all()
    if getattr(user, "is_authenticated", False):
        return Tournament.objects.filter(
            Q(public=True, status__in=_SHOWN) | Q(staff__user=user)
        ).distinct()
    return tournaments.filter(public=True)


_SHOWN = [
    Tournament.Status.REGISTRATION,
    Tournament.Status.RUNNING,
    Tournament.Status.FINISHED,
]


def ruleset_of(tournament: Tournament) -> RuleSet:
    return get_ruleset(
        tournament.ruleset_key, players=tournament.table_size, overrides=tournament.overrides
    )


def table_ruleset(table: "TableView", default: RuleSet) -> RuleSet:
    """The rules a table plays under: its game's (a three-player Cutthroat table plays to
    200 whatever the event's usual table size), else the event's."""
    game = table.match.game
    return game_ruleset(game) if game is not None else default


def table_title(stage: Stage, round_number: int, table_number: int) -> str:
    """A table's name in the viewer's language: "Round robin · round 4, table 1"."""
    return gettext("{stage} · round {round}, table {table}").format(
        stage=stage.name, round=round_number, table=table_number
    )


def side_names(tournament: Tournament, rules: RuleSet | None = None) -> list[str]:
    """Side names in entrant-seat order: seat position i scores for side i."""
    rules = rules or ruleset_of(tournament)
    return engine.side_names(rules, seat_names(tournament.table_size))


def pick_stage(wanted: str | None, stages: list[Stage]) -> Stage | None:
    """The stage asked for, else the first one not finished, else the last."""
    number = whole_number(wanted)
    if number is not None:
        for stage in stages:
            if stage.order == number:
                return stage
    for stage in stages:
        if stage.status != Stage.Status.FINISHED:
            return stage
    return stages[-1] if stages else None


@dataclass
class StandingLine:
    """One entrant's line of a stage's standings snapshot."""

    rank: int
    tied: bool
    entrant_id: int
    withdrawn: bool
    games_played: int
    metrics: dict
    reason_data: dict | None = None
    marks: str = ""
    position: int = 0
    stage: Stage | None = None
    entrant: Entrant | None = None
    cells: list = field(default_factory=list)

    @property
    def reason(self) -> str:
        return reason_text(self.reason_data, str)


def standing_lines(
    tournament: Tournament,
    *,
    stage: Stage | None = None,
    entrant: Entrant | None = None,
    limit: int | None = None,
) -> tuple[list[StandingLine], int]:
    """Lines of the standings snapshots, stage by stage and best first, with their stage
    and entrant (two queries), and how many lines there are in all.

    ``stage`` keeps one stage, ``entrant`` one entrant's lines, ``limit`` the first lines.
    """
    snapshots = StandingsSnapshot.objects.filter(tournament=tournament).select_related("stage")
    if stage is not None:
        snapshots = snapshots.filter(stage=stage)
    lines: list[StandingLine] = []
    total = 0
    for snapshot in snapshots.order_by("stage__order"):
        document = SnapshotDocument(snapshot.document)
        total += len(document)
        start, stop = 0, len(document)
        if entrant is not None:
            start = document.index_of(entrant.pk)
            if start is None:
                continue
            stop = start + 1
        elif limit:
            stop = min(limit, stop)
        rows = document.rows(start, stop + 1)  # and the next one, to say why it is below
        following = rows[stop - start] if len(rows) > stop - start else None
        shown = explain(rows[: stop - start], document.order, following)
        lines += [
            StandingLine(**row._asdict(), position=n, stage=snapshot.stage)
            for n, row in enumerate(shown, start=start + 1)
        ]
    if entrant is not None:
        for line in lines:
            line.entrant = entrant
    else:
        named = Entrant.objects.only("id", "name", "withdrawn")
        entrants = named.in_bulk({line.entrant_id for line in lines})
        for line in lines:
            line.entrant = entrants.get(line.entrant_id)
    return lines, total


def going_through(stage: Stage, chosen: list[int]) -> list[dict]:
    """The entrants ``chosen`` to go through from ``stage``, in order: id, name and the
    pool they played in ("" outside pools), as the confirmation page and the API show them."""
    by_id = Entrant.objects.in_bulk(chosen)
    pool_of = dict(
        MatchSeat.objects.filter(round__stage=stage, entrant_id__in=chosen)
        .filter(match__slot__startswith="P")
        .values_list("entrant_id", "match__slot")
    )
    return [
        {"id": pk, "name": by_id[pk].name, "pool": pool_of.get(pk, "")[1:]}
        for pk in chosen
        if pk in by_id
    ]


def did_not_play_text(seat: MatchSeat) -> str:
    """The mark of a seat that did not play, in the page's words: "forfeit (no-show)", or
    "forfeit" for a side that forfeited its game with no reason kept at the table; empty
    for a seat that played."""
    if seat.did_not_play:
        reason = str(seat.get_did_not_play_display()).lower()
        return gettext("forfeit ({reason})").format(reason=reason)
    return gettext("forfeit") if seat.forfeit else ""


def standings_mark(tournament: Tournament, stage: Stage | None) -> StandingsMark:
    """The stage's standings as pollers compare them (two queries): a digest of the
    snapshot's content, not of when it was computed, so a recompute that finds the same
    standings changes nothing a viewer holds."""
    state = StandingsState.objects.filter(tournament=tournament).first()
    snapshot = (
        StandingsSnapshot.objects.filter(stage=stage).only("computed_at", "document").first()
        if stage is not None
        else None
    )
    stale = bool(state and state.stale)
    overdue = stale and (timezone.now() - state.requested_at > timedelta(seconds=live.STALE_AFTER))
    content = snapshot.document if snapshot else ""
    return live.StandingsMark(
        digest=live.digest(stage.pk if stage else 0, tournament.tiebreak_order, content),
        stale=stale,
        overdue=overdue,
        computed_at=state.computed_at if state else None,
        changed_at=snapshot.computed_at if snapshot else None,
    )


@dataclass
class StandingsView:
    stage: Stage | None
    order: list[str]
    rows: list
    computed_at: object
    stale: bool
    tag: str
    total: int = 0
    unplayed: bool = False

    @property
    def cut(self) -> bool:
        return len(self.rows) < self.total


def standings(
    tournament: Tournament,
    stage: Stage | None,
    *,
    limit: int | None = None,
    mark: StandingsMark | None = None,
) -> StandingsView:
    """A stage's standings snapshot, when it last changed, and its tag (four queries).

    Each row gets ``cells``: its metrics in the tournament's order, formatted for a page.
    """
    mark = mark or standings_mark(tournament, stage)
    order = stage_order(tournament, stage)
    rows, total, unplayed = [], 0, False
    if stage is not None:
        rows, total = standing_lines(tournament, stage=stage, limit=limit)
        # Before any game is played every line is tied down to the seed: saying so ten
        # times tells a reader nothing.
        unplayed = bool(rows) and not any(row.games_played for row in rows)
        for row in rows:
            row.cells = [decimal_text(metric_text(row.metrics.get(key))) for key in order]
            if unplayed:
                row.reason_data = None
    return StandingsView(
        stage, order, rows, mark.changed_at, mark.overdue, mark.tag, total, unplayed=unplayed
    )


@dataclass
class TableView:
    match: Match
    seats: list[dict] = field(default_factory=list)
    # A game ended by a forfeit, in words: "Forfeit by D; A, B and C share first place."
    outcome: str = ""


def rounds_of(stage: Stage, *, include_drafts: bool) -> list[Round]:
    rounds = Round.objects.filter(stage=stage).annotate(tables=Count("matches")).order_by("number")
    if not include_drafts:
        rounds = rounds.exclude(status=Round.Status.DRAFT)
    return list(rounds)


def pick_round(rounds: list[Round], wanted: str | None) -> Round | None:
    number = whole_number(wanted)
    if number is not None:
        for round_ in rounds:
            if round_.number == number:
                return round_
    return rounds[-1] if rounds else None


def _matches(queryset, tournament: Tournament) -> list[TableView]:
    seats = MatchSeat.objects.select_related("entrant").order_by("position")
    # Whether the game is under dispute, for its card's mark, in the same query.
    disputed = Dispute.objects.filter(game_id=OuterRef("game_id"), status=Dispute.Status.OPEN)
    matches = (
        queryset.select_related("game", "referee")
        .prefetch_related(Prefetch("seats", queryset=seats))
        .annotate(under_dispute=Exists(disputed))
    )
    names = side_names(tournament)
    tables = []
    for match in matches:
        game = match.game
        table = TableView(match)
        for seat in match.seats.all():
            side = names[seat.position] if seat.position < len(names) else None
            table.seats.append(
                {
                    "entrant": seat.entrant,
                    "total": game.total_of(side) if game and side else None,
                    # A bracket's walkover has no game: whoever came goes through.
                    "winner": bool(game and side and game.winner == side)
                    or (not game and not match.bye and match.slot != "" and not seat.did_not_play),
                    "did_not_play": did_not_play_text(seat),
                }
            )
        if game is not None and game.forfeits:
            labels = {
                names[seat.position]: seat.entrant.name
                for seat in match.seats.all()
                if seat.position < len(names)
            }
            table.outcome = wording.forfeit_outcome(
                game.totals, game.forfeited_sides, labels, gettext
            )
        tables.append(table)
    return tables


def tables_of(
    round_: Round, tournament: Tournament, *, only: list[int] | None = None
) -> list[TableView]:
    """Every table of a round (or those of the ``only`` match ids) with its seats and live
    totals (three queries)."""
    matches = Match.objects.filter(round=round_)
    if only is not None:
        matches = matches.filter(pk__in=only)
    return _matches(matches.order_by("table_number"), tournament)


@dataclass
class BracketSlot:
    key: str
    sources: list[str]
    table: TableView | None


@dataclass
class BracketColumn:
    title: str
    slots: list[BracketSlot]


def bracket(
    stage: Stage, tournament: Tournament, *, include_drafts: bool
) -> list[tuple[str, list[BracketColumn]]]:
    """The whole bracket as sections (winners', losers', final) of columns, played or not;
    a draft round's tables stay empty slots unless ``include_drafts``."""
    # The field pairing seats: with check-in required, those checked in (or already
    # seated), not everyone registered.
    count = len(stage_entrants(stage))
    try:
        slots = engine_of(stage).bracket(
            count, table_size=tournament.sides_per_table, settings=stage.settings
        )
    except PairingError:
        return []
    seated = Match.objects.filter(round__stage=stage).exclude(slot="")
    if not include_drafts:
        seated = seated.exclude(round__status=Round.Status.DRAFT)
    tables = {
        table.match.slot: table for table in _matches(seated.order_by("table_number"), tournament)
    }
    sections: dict[str, dict[int, list[BracketSlot]]] = {}
    for slot in slots:
        if slot.key.startswith("L"):
            section = gettext("Losers' bracket")
        elif slot.key.startswith("GF"):
            section = gettext("Final")
        elif stage.format == Stage.Format.DOUBLE_ELIMINATION:
            section = gettext("Winners' bracket")
        else:
            section = gettext("Bracket")
        column = int(slot.key[1:].split("-")[0]) if slot.key[1:2].isdigit() else slot.round
        sources = [_source(source, place) for source, place in slot.sources]
        if slot.seeds:
            sources = [gettext("seed {seed}").format(seed=seed) for seed in slot.seeds]
        sections.setdefault(section, {}).setdefault(column, []).append(
            BracketSlot(slot.key, sources, tables.get(slot.key))
        )
    drawn = []
    for section, columns in sections.items():
        drawn.append(
            (
                section,
                [
                    BracketColumn(
                        (
                            gettext("Grand final")
                            if slots[0].key == "GF"
                            else gettext("Grand final, second game")
                            if slots[0].key == "GF2"
                            else gettext("Round {number}").format(number=number)
                        ),
                        slots,
                    )
                    for number, slots in sorted(columns.items())
                ],
            )
        )
    return drawn


def _source(slot: str, place: int) -> str:
    if place == 0:
        return gettext("winner of {slot}").format(slot=slot)
    if place == 1:
        return gettext("runner-up of {slot}").format(slot=slot)
    return gettext("place {place} of {slot}").format(place=place + 1, slot=slot)


def entrant_games(entrant: Entrant, *, include_drafts: bool) -> list[TableView]:
    """Every table the entrant sat at, in round order (three queries); those of rounds in
    draft only with ``include_drafts``."""
    tournament = entrant.tournament
    matches = Match.objects.filter(seats__entrant=entrant)
    if not include_drafts:
        matches = matches.exclude(round__status=Round.Status.DRAFT)
    matches = matches.select_related("round__stage").order_by(
        "round__stage__order", "round__number"
    )
    return _matches(matches, tournament)
