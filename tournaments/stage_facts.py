"""What both sides of tournaments know of a stage: who is in its field and in what seed
order, how its results score (the ranking settings and the match points), and what its
bracket's played tables decided.

The write side (pairing a round, seating winners, finishing a stage) and the read side
(the standings, the bracket page) both import this module; it reads models and pure
modules only, so neither side reaches into the other for these facts.
"""

from scoring.rulesets import PRESETS, ScoringError, allowed_table_sizes, get_ruleset
from tournaments.models import Entrant, Match, MatchSeat, Stage, Tournament
from tournaments.pairing import ENGINES, get_engine
from tournaments.pairing.base import Engine
from tournaments.read.standings import (
    BYE_SCORES,
    NO_SCORE,
    POINTS_BASES,
    ROUND_WINNERS,
    SAME_SCALE,
    TARGET_SHARE,
    WIN_POINTS,
    Scale,
    StandingsSettings,
    bye_match_points,
    points_for_place,
    target_scale,
)

__all__ = [
    "WIN_POINTS",
    "allowed_sides",
    "bracket_results",
    "bye_match_points",
    "bye_scores",
    "draw_order",
    "engine_of",
    "is_bracket",
    "pairing_seeds",
    "points_basis",
    "points_for_place",
    "settings_for",
    "stage_byes",
    "stage_entrants",
    "table_scale",
    "walkover_results",
]


# --- the field ----------------------------------------------------------------------------


def engine_of(stage: Stage) -> Engine:
    """The pairing engine of the stage's format."""
    return get_engine(stage.format)


def is_bracket(stage: Stage | None) -> bool:
    """Whether the stage is a bracket: its engine seats winners as games finish."""
    engine = ENGINES.get(stage.format) if stage is not None else None
    return bool(engine and engine.advances)


def stage_entrants(stage: Stage) -> list[Entrant]:
    """The stage's field: its members (every entrant of the event if it names none).

    A stage that requires check-in seats only entrants checked in: one who never sat in
    it and is not checked in is left out (arriving late, they join from the next round);
    one who sat in it and is absent now keeps their place in the field and sits out this
    round as a withdrawn entrant does (in a bracket, a walkover). A bracket's field is
    fixed once it is seeded. The entrants are fresh rows, so marking them is local."""
    members = list(stage.entrants.all()) or list(stage.tournament.entrants.all())
    if not stage.check_in_required:
        return members
    seated = set(MatchSeat.objects.filter(round__stage=stage).values_list("entrant_id", flat=True))
    if is_bracket(stage) and seated:
        field = [e for e in members if e.pk in seated]
    else:
        field = [e for e in members if e.checked_in or e.pk in seated]
    for entrant in field:
        if not entrant.checked_in:
            entrant.withdrawn = True
    return field


def pairing_seeds(stage: Stage, entrants: list[Entrant]) -> dict[int, int]:
    """Each entrant's seed as pairing takes it: its place in the stage's ``seeding``
    setting (a stage seeded from the one before), else after those, by its event seed."""
    seeding = {
        entrant_id: place
        for place, entrant_id in enumerate(stage.settings.get("seeding", []), start=1)
    }
    return {e.pk: seeding.get(e.pk, len(seeding) + e.seed) for e in entrants}


def draw_order(stage: Stage) -> list[int]:
    """The stage's field as its engine is handed it, in seed order (ids break equal
    seeds): the order a bracket was drawn from."""
    entrants = stage_entrants(stage)
    if not engine_of(stage).keeps_withdrawn:
        entrants = [e for e in entrants if not e.withdrawn]
    seeds = pairing_seeds(stage, entrants)
    return sorted(seeds, key=lambda entrant_id: (seeds[entrant_id], entrant_id))


def allowed_sides(tournament: Tournament) -> tuple[int, ...]:
    """The table sizes the tournament's rule set allows, in entrants a table: two teams
    in Partners, else its players (``scoring.rulesets.allowed_table_sizes``)."""
    if tournament.is_teams:
        return (2,)
    return allowed_table_sizes(tournament.ruleset_key)


# --- how results score ----------------------------------------------------------------------


def table_scale(tournament: Tournament) -> Scale:
    """What a point is worth at each table size the tournament's rule set allows, against
    a point at its own table size (``standings.Scale``): each size's target comes from the
    rule set at that size, with the organizer's overrides."""
    preset = PRESETS.get(tournament.ruleset_key)
    if preset is None:
        return SAME_SCALE
    try:
        rules = {
            size: get_ruleset(preset.key, players=size, overrides=tournament.overrides)
            for size in preset.players
        }
    except ScoringError:
        return SAME_SCALE
    if any(rule.teams != "none" for rule in rules.values()):
        return SAME_SCALE  # two teams a table, whatever its size
    own = rules.get(tournament.table_size)
    if own is None:
        return SAME_SCALE
    return target_scale({size: rule.target for size, rule in rules.items()}, own.target)


def points_basis(stage: Stage | None) -> str:
    """How the stage compares points across table sizes (``standings.POINTS_BASES``)."""
    basis = (stage.settings or {}).get("points_basis") if stage is not None else None
    return basis if basis in POINTS_BASES else TARGET_SHARE


def bye_scores(tournament: Tournament, stage: Stage | None) -> str:
    """What a bye scores in the stage (``standings.BYE_SCORES``): the stage's
    ``bye_scores`` setting; without one, nothing where the tournament's bye policy says
    so, else a win with the average points for of the round's winners."""
    chosen = (stage.settings or {}).get("bye_scores") if stage is not None else None
    if chosen in BYE_SCORES:
        return chosen
    return NO_SCORE if tournament.bye_policy == Tournament.ByePolicy.NOTHING else ROUND_WINNERS


def stage_byes(tournament: Tournament, stage: Stage | None) -> dict:
    """The stage's bye settings as ``StandingsSettings`` fields."""
    points = (stage.settings or {}).get("bye_match_points") if stage is not None else None
    return {
        "bye_scores": bye_scores(tournament, stage),
        "bye_match_points": points if isinstance(points, (int, float)) else None,
    }


def settings_for(tournament: Tournament, stage: Stage | None = None) -> StandingsSettings:
    """The tournament's ranking choices as the pure module takes them (with ``stage``,
    that stage's points basis and byes; without, the defaults). Match points come from
    them through ``points_for_place`` and ``bye_match_points``, the standings' rule,
    wherever they are counted (the standings, Swiss pairing's score groups)."""
    points = {
        int(size): {int(place): value for place, value in table.items()}
        for size, table in (tournament.placement_points or {}).items()
    }
    return StandingsSettings(
        order=tuple(tournament.tiebreak_order),
        placement_points=points,
        include_live=tournament.include_live,
        points_basis=points_basis(stage),
        scale=table_scale(tournament),
        **stage_byes(tournament, stage),
    )


# --- what a bracket's tables decided --------------------------------------------------------


def walkover_results(stage: Stage) -> dict[str, list[int]]:
    """Walkover slots of a bracket: slot → entrant ids, those who came first."""
    results: dict[str, list[int]] = {}
    walkovers = (
        Match.objects.filter(round__stage=stage, bye=False, game=None)
        .exclude(slot="")
        .prefetch_related("seats")
    )
    for match in walkovers:
        seats = sorted(match.seats.all(), key=lambda s: (bool(s.did_not_play), s.position))
        results[match.slot] = [s.entrant_id for s in seats]
    return results


def bracket_results(stage: Stage, *, levels: dict | None = None) -> dict[str, list[int]]:
    """Played bracket slots: slot → entrant ids best first (the winner, then by the game's
    final totals, a forfeiting seat last). Given ``levels``, it is filled with each played
    slot's placings in that order, seats level on all three sharing one (a final's
    standings share a place between them; the bracket still moves on in seat order)."""
    results: dict[str, list[int]] = {}
    matches = (
        Match.objects.filter(round__stage=stage, bye=False, game__status="finished")
        .exclude(slot="")
        .exclude(slot__startswith="P")
        .select_related("game")
        .prefetch_related("seats")
    )
    results.update(walkover_results(stage))  # tables nobody played: whoever came goes on
    for match in matches:
        totals = match.game.totals
        sides = list(totals)
        winner = _winner_entrant(match)

        def level(seat, winner=winner, totals=totals, sides=sides):
            return (
                seat.entrant_id != winner,
                # A forfeiting seat is placed last whatever its total (RULES.md, Officiating).
                bool(seat.forfeit),
                -totals.get(sides[seat.position], 0) if seat.position < len(sides) else 0,
            )

        ranked = sorted(match.seats.all(), key=lambda seat: (level(seat), seat.position))
        results[match.slot] = [seat.entrant_id for seat in ranked]
        if levels is not None:
            keys = [level(seat) for seat in ranked]
            levels[match.slot] = [keys.index(key) + 1 for key in keys]
    return results


def _winner_entrant(match: Match) -> int | None:
    winner = match.game.winner
    if not winner:
        return None
    sides = list(match.game.totals)
    position = sides.index(winner) if winner in sides else None
    for seat in match.seats.all():
        if seat.position == position:
            return seat.entrant_id
    return None
