"""Read queries about games shared by the API, pages, commands and tasks."""

from collections import defaultdict
from dataclasses import dataclass, field

from scoring import engine
from scoring.models import Game, Hand, ScoreEvent
from scoring.rulesets import RuleSet, get_ruleset


def ruleset_of(game: Game) -> RuleSet:
    """The rules the game is played under: frozen once started, else the resolved preset."""
    if game.ruleset is not None:
        return RuleSet.from_dict(game.ruleset)
    return get_ruleset(game.ruleset_key, players=game.seats.count(), overrides=game.overrides)


@dataclass
class Replay:
    """A game's current hands run again through the engine, next to what is stored."""

    game: Game
    totals: dict[str, int]
    stored_totals: dict[str, int]
    award_mismatches: list[str] = field(default_factory=list)
    tallies: dict[str, dict[str, int]] = field(default_factory=dict)
    stored_tallies: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def agrees(self) -> bool:
        return (
            not self.award_mismatches
            and self.totals == self.stored_totals
            and self.tallies == self.stored_tallies
        )

    def describe(self) -> str:
        problems = list(self.award_mismatches)
        if self.totals != self.stored_totals:
            problems.append(f"stored totals {self.stored_totals} but the hands give {self.totals}")
        if self.tallies != self.stored_tallies:
            problems.append(
                f"stored tallies {self.stored_tallies} but the hands give {self.tallies}"
            )
        return f"game {self.game.pk} ({self.game}): " + "; ".join(problems)


def replay(game: Game, hands: list[Hand], events: list[ScoreEvent]) -> Replay:
    """Recompute a game's awards and totals from its stored hands and active events."""
    ruleset = ruleset_of(game)
    seats = sorted(game.seats.all(), key=lambda seat: seat.position)
    seat_names = [seat.name for seat in seats]
    sides = sorted(game.sides.all(), key=lambda side: side.position)
    totals = dict.fromkeys((side.name for side in sides), 0)
    mismatches = []
    for hand in hands:
        if hand.voided:
            expected = dict.fromkeys(hand.awards, 0)
        else:
            try:
                result = engine.score_hand(
                    ruleset,
                    seats=seat_names,
                    pips=None if hand.tiles else hand.pips,
                    tiles={seat: [tuple(t) for t in tiles] for seat, tiles in hand.tiles.items()}
                    if hand.tiles
                    else None,
                    domino_by=hand.domino_by or None,
                    leader=hand.leader or None,
                    lowest_tiles={seat: tuple(tile) for seat, tile in hand.lowest_tiles.items()}
                    if hand.lowest_tiles
                    else None,
                )
            except engine.ScoringError as error:
                mismatches.append(f"hand {hand.number} no longer scores: {error}")
                continue
            expected = dict(result.awards)
        if expected != hand.awards:
            mismatches.append(f"hand {hand.number} stored {hand.awards} but scores {expected}")
        for name, award in expected.items():
            totals[name] += award
    for event in events:
        totals[event.side.name] += event.points
    stored = {side.name: side.total for side in sides}
    tallies = engine.count_tallies(
        totals,
        [(hand.winners, hand.domino_by, hand.voided) for hand in hands],
        [(e.side.name, e.points) for e in events if e.kind == ScoreEvent.Kind.PENALTY],
    )
    return Replay(
        game=game,
        totals=totals,
        stored_totals=stored,
        award_mismatches=mismatches,
        tallies=tallies,
        stored_tallies=game.tallies,
    )


def replay_all(games) -> list[Replay]:
    """Replay many games with a fixed number of queries."""
    games = list(games.prefetch_related("seats", "sides"))
    ids = [game.pk for game in games]
    hands = defaultdict(list)
    for hand in Hand.objects.filter(game_id__in=ids, is_current=True).order_by("number"):
        hands[hand.game_id].append(hand)
    events = defaultdict(list)
    for event in ScoreEvent.objects.filter(game_id__in=ids, active=True).select_related("side"):
        events[event.game_id].append(event)
    return [replay(game, hands[game.pk], events[game.pk]) for game in games]


@dataclass
class SheetRow:
    """One hand of a game as the game page shows it."""

    number: int
    ended: str
    domino_by: str
    pips: dict[str, int]
    awards: dict[str, int]
    in_play: dict[str, int]
    penalties: dict[str, int]
    totals: dict[str, int]
    version: int
    voided: bool
    reason: str
    in_progress: bool = False


@dataclass
class Sheet:
    """A game's hand-by-hand table: seats, sides and one row per hand."""

    game: Game
    ruleset: RuleSet
    seats: list
    sides: list
    rows: list[SheetRow]
    side_labels: dict[str, str]
    seat_labels: dict[str, str]

    @property
    def running(self) -> dict[str, list[int]]:
        """Every side's total after each recorded hand."""
        return {
            side.name: [row.totals[side.name] for row in self.rows if not row.in_progress]
            for side in self.sides
        }


def game_sheet(game: Game) -> Sheet:
    """Build the hand-by-hand table of a game in four queries."""
    ruleset = ruleset_of(game)
    seats = list(game.seats.all().order_by("position"))
    sides = list(game.sides.all().order_by("position"))
    seat_labels = {seat.name: seat.display_name or seat.name for seat in seats}
    side_labels = {
        side.name: " & ".join(seat_labels[name] for name in side.name.split("+")) for side in sides
    }
    hands = list(Hand.objects.filter(game=game, is_current=True).order_by("number"))
    events = defaultdict(list)
    for event in ScoreEvent.objects.filter(game=game, active=True).select_related("side"):
        events[event.hand_number].append(event)
    running = dict.fromkeys((side.name for side in sides), 0)
    rows = []

    def points(hand_events, kinds) -> dict[str, int]:
        found = dict.fromkeys(running, 0)
        for event in hand_events:
            if event.kind in kinds:
                found[event.side.name] += event.points
        return found

    play_kinds = {ScoreEvent.Kind.IN_PLAY, ScoreEvent.Kind.STEAL, ScoreEvent.Kind.STOLEN}
    penalty_kinds = {ScoreEvent.Kind.PENALTY}
    for hand in hands:
        in_play = points(events[hand.number], play_kinds)
        penalties = points(events[hand.number], penalty_kinds)
        for name in running:
            running[name] += hand.awards.get(name, 0) + in_play[name] + penalties[name]
        rows.append(
            SheetRow(
                number=hand.number,
                ended=hand.ended,
                domino_by=hand.domino_by,
                pips=hand.pips,
                awards=hand.awards,
                in_play=in_play,
                penalties=penalties,
                totals=dict(running),
                version=hand.version,
                voided=hand.voided,
                reason=hand.reason,
            )
        )
    upcoming = game.hand_count + 1
    if events.get(upcoming) and not game.is_finished:
        in_play = points(events[upcoming], play_kinds)
        penalties = points(events[upcoming], penalty_kinds)
        for name in running:
            running[name] += in_play[name] + penalties[name]
        rows.append(
            SheetRow(
                number=upcoming,
                ended="",
                domino_by="",
                pips={},
                awards={},
                in_play=in_play,
                penalties=penalties,
                totals=dict(running),
                version=0,
                voided=False,
                reason="",
                in_progress=True,
            )
        )
    return Sheet(
        game=game,
        ruleset=ruleset,
        seats=seats,
        sides=sides,
        rows=rows,
        side_labels=side_labels,
        seat_labels=seat_labels,
    )


def preview_hand(game: Game, **ending) -> engine.HandResult:
    """What a hand would score if recorded now; nothing is stored."""
    ruleset = ruleset_of(game)
    seat_names = [seat.name for seat in game.seats.all().order_by("position")]
    if ending.get("leader") is None and game.next_leader:
        ending["leader"] = game.next_leader
    return engine.score_ending(ruleset, seat_names, **ending)
