"""Score one hand from a terminal: ``manage.py score_hand dcs --block A=8 B=15 C=22 D=12``."""

from django.core.management.base import BaseCommand, CommandError

from scoring.engine import ScoringError, score_hand
from scoring.rulesets import PRESETS, get_ruleset


def _counts(pairs: list[str]) -> dict[str, int]:
    counts = {}
    for pair in pairs:
        seat, sep, value = pair.partition("=")
        if not sep or not seat:
            raise CommandError(f"Write each hand as SEAT=PIPS, like A=12 (got {pair!r}).")
        try:
            counts[seat] = int(value)
        except ValueError as error:
            raise CommandError(f"{seat}'s pips must be a whole number (got {value!r}).") from error
    return counts


def _override(text: str) -> tuple[str, object]:
    name, sep, value = text.partition("=")
    if not sep:
        raise CommandError(f"Write an override as FIELD=VALUE (got {text!r}).")
    lowered = value.lower()
    if lowered in {"true", "yes", "on"}:
        return name, True
    if lowered in {"false", "no", "off"}:
        return name, False
    try:
        return name, int(value)
    except ValueError:
        return name, value


class Command(BaseCommand):
    help = (
        "Score one hand with a rule set and print the award per side. "
        "Seats play in the order given. Examples: "
        "score_hand dcs --block A=8 B=15 C=22 D=12; "
        "score_hand cutthroat --domino A A=0 B=13 C=9 D=5; "
        "score_hand partners --block A=9 B=12 C=10 D=7 --set block_tie=split"
    )

    def add_arguments(self, parser):
        parser.add_argument("ruleset", choices=sorted(PRESETS), help="rule-set preset")
        ended = parser.add_mutually_exclusive_group(required=True)
        ended.add_argument("--block", action="store_true", help="the hand was blocked")
        ended.add_argument("--domino", metavar="SEAT", help="the seat that went out")
        parser.add_argument("hands", nargs="+", metavar="SEAT=PIPS", help="pips left per seat")
        parser.add_argument("--leader", help="the seat that led the hand")
        parser.add_argument(
            "--lowest-tile",
            action="append",
            default=[],
            metavar="SEAT=A-B",
            help="a tied seat's lowest tile, for lowest_tile ties",
        )
        parser.add_argument(
            "--set", action="append", default=[], metavar="FIELD=VALUE", help="override a rule"
        )

    def handle(self, *args, ruleset, block, domino, hands, leader, lowest_tile, **options):
        pips = _counts(hands)
        overrides = dict(_override(text) for text in options["set"])
        lowest = {}
        for text in lowest_tile:
            seat, _, tile = text.partition("=")
            low, _, high = tile.partition("-")
            if not (low.isdigit() and high.isdigit()):
                raise CommandError(f"Write a lowest tile as SEAT=A-B, like C=0-1 (got {text!r}).")
            lowest[seat] = (int(low), int(high))
        try:
            rules = get_ruleset(ruleset, players=len(pips), overrides=overrides)
            result = score_hand(
                rules,
                seats=list(pips),
                pips=pips,
                domino_by=domino,
                leader=leader,
                lowest_tiles=lowest or None,
            )
        except ScoringError as error:
            raise CommandError(f"{error.field}: {error}") from error
        how = f"domino by {domino}" if domino else "block"
        self.stdout.write(f"{PRESETS[ruleset].label}, {how}")
        for side, award in result.awards.items():
            raw = result.raw_awards[side]
            shown = f"{award}" if raw == award else f"{award} ({raw} rounded)"
            self.stdout.write(f"  {side}: {shown}")
        won = ", ".join(result.winners) if result.winners else "nobody (a draw)"
        self.stdout.write(f"Won by: {won}")
