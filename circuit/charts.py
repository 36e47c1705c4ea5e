"""A player's rating over their games as an SVG line, drawn on the server like the game
chart (``scoring.charts``): markup with a title and a text description, no JavaScript."""

import math
from collections.abc import Callable, Sequence
from html import escape

from scoring.charts import PALETTE


def _same(message: str) -> str:
    return message


def rating_svg(
    history: Sequence[dict],
    *,
    label: str,
    width: int = 480,
    height: int = 200,
    _: Callable[[str], str] | None = None,
) -> str:
    """The ordinal after each rated game (``history``: oldest first, each with
    ``ordinal``), in the language of ``_`` (the page's gettext by default)."""
    if _ is None:
        from django.utils.translation import gettext as _
    values = [point["ordinal"] for point in history]
    low = math.floor(min([0.0, *values]) / 5) * 5
    high = math.ceil(max([5.0, *values]) / 5) * 5
    step = 5 if high - low <= 40 else 10
    left, right, top, bottom = 36, 10, 10, 30
    plot_w, plot_h = width - left - right, height - top - bottom
    count = len(values)

    def x(n: int) -> float:
        return left + (plot_w * n / (count - 1) if count > 1 else plot_w / 2)

    def y(value: float) -> float:
        return top + plot_h * (high - value) / (high - low)

    title = _("Rating after each game: {label}").format(label=label)
    description = _("Rating (conservative) after games 1 to {count}: {values}.").format(
        count=count, values=", ".join(f"{v:.1f}" for v in values)
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
        f'class="chart"><title>{escape(title)}</title><desc>{escape(description)}</desc>'
    ]
    tick = low
    while tick <= high:
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            f'stroke="{"#8a949e" if tick == 0 else "#d8dde2"}" stroke-width="1"/>'
            f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" font-size="13" '
            f'fill="#3d4650">{tick}</text>'
        )
        tick += step
    every = max(1, count // 10)
    for n in range(0, count, every):
        parts.append(
            f'<text x="{x(n):.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
            f'font-size="13" fill="#3d4650">{n + 1}</text>'
        )
    colour = PALETTE[0]
    points = " ".join(f"{x(n):.1f},{y(v):.1f}" for n, v in enumerate(values))
    if count > 1:
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2.5" '
            'stroke-linejoin="round"/>'
        )
    if count <= 60:
        for n, v in enumerate(values):
            parts.append(f'<circle cx="{x(n):.1f}" cy="{y(v):.1f}" r="3" fill="{colour}"/>')
    parts.append("</svg>")
    return "".join(parts)
