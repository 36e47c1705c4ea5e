"""A game's live part: the question its page asks of the live answer, and the answer.

A game's public page (``scoring.views.game_page``) shows the hand-by-hand sheet, the
running totals and a chart, and while the game is played its live part polls with the
revision it shows (``?since=<revision>``). The page asks ``domain.live.live_answer`` with
a ``GameQuestion``; scoring registers ``answer_game`` for it in its ``ready``, so a game
played outside any event is answered without a tournament.

The answer comes from the cache while it can: the revision a public page last showed is
kept under ``scoring.receivers.live_key`` (forgotten when the game changes), so a poll
holding that revision is answered after one cache read, before any query. The revision
is kept only while everyone may see the game (the held game of a draft round, a private
event's, never): other polls are checked against the database. A changed live part is
rendered once per revision and language and served from the cache to the game's other
viewers (it holds nothing personal).
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext

from accounts.permissions import allowed
from domain.live import Viewer
from scoring import charts
from scoring.models import Game
from scoring.receivers import live_key
from scoring.selectors import game_sheet

# How long a game's public live part is kept without a writer's word.
LIVE_SECONDS = 120

# Higher apps add links shown on a game's pages (its tournament, its table) without
# scoring importing them: each hook takes a game and returns (label, url) pairs.
GAME_LINKS: list[Callable[[Game], list[tuple[str, str]]]] = []


@dataclass(frozen=True)
class GameQuestion:
    """What a game's page asks: the game, and the revision its live part holds as the poll
    says it ("" when it names none), or None for the state alone (the whole page, which
    renders its sheet itself)."""

    game_id: int
    since: str | None = None

    @classmethod
    def of(cls, game_id: int, request) -> "GameQuestion":
        """The question of a page's request: its live part's poll (htmx) carries ``since``."""
        return cls(game_id, request.GET.get("since", "") if request.htmx else None)


@dataclass
class GameAnswer:
    """The game's revision now, its live part when the question holds another revision
    (None when unchanged, or when it asked for the state alone), the game when the
    database was asked (None when the cache alone answered), and whether it did."""

    game_id: int
    revision: str
    html: str | None
    game: Game | None
    from_cache: bool

    @property
    def etag(self) -> str:
        return f'"game-{self.game_id}-{self.revision}"'


def answer_game(question: GameQuestion, viewer: Viewer) -> GameAnswer | None:
    """What changed in the game since the revision the question holds; None when there is
    no such game or this viewer may not see it."""
    pk, since = question.game_id, question.since
    if since and cache.get(live_key(pk)) == since:
        return GameAnswer(pk, since, None, None, from_cache=True)
    game = Game.objects.filter(pk=pk).first()
    if game is None or not allowed(viewer.user, "game.view", game):
        return None
    revision = str(game.revision)
    if allowed(AnonymousUser(), "game.view", game):
        cache.set(live_key(pk), revision, LIVE_SECONDS)
    answer = GameAnswer(pk, revision, None, game, from_cache=False)
    if since is not None and since != revision:
        answer.html = live_part(game)
    return answer


def live_part(game: Game) -> str:
    """The game's live part, rendered once per revision and language."""
    key = f"live:game-html:{game.pk}:{game.revision}:{get_language()}"
    html = cache.get(key)
    if html is None:
        html = render_to_string("scoring/_game_live.html", sheet_context(game))
        cache.set(key, html, LIVE_SECONDS)
    return html


def game_links(game: Game) -> list[tuple[str, str]]:
    return [link for hook in GAME_LINKS for link in hook(game)]


def sheet_context(game: Game) -> dict:
    """What a game's sheet is rendered from: the hands, the totals, the chart, the links."""
    sheet = game_sheet(game)
    series = [
        charts.Series(label=sheet.side_labels[side.name], totals=sheet.running[side.name])
        for side in sheet.sides
    ]
    chart = charts.running_total_svg(series, target=sheet.ruleset.target, _=gettext)
    # The hand table leaves out columns every hand leaves empty, so that it fits.
    in_play = sheet.ruleset.in_play_scoring or any(any(row.in_play.values()) for row in sheet.rows)
    penalty = any(any(row.penalties.values()) for row in sheet.rows)
    return {
        "game": game,
        "sheet": sheet,
        "chart": mark_safe(chart),  # built from escaped labels and numbers only
        "links": game_links(game),
        "totals": _totals(game, sheet),
        "in_play_column": in_play,
        "penalty_column": penalty,
        "side_columns": 2 + in_play + penalty,
    }


def _totals(game: Game, sheet) -> list[dict]:
    return [
        {
            "name": side.name,
            "label": sheet.side_labels[side.name],
            "total": game.total_of(side.name),
            "winner": game.winner == side.name,
        }
        for side in sheet.sides
    ]
