"""A game's running totals as an SVG line chart, drawn on the server (pure Python).

The page needs no JavaScript library: the chart is markup, with a title and a text
description for screen readers, one line per side, dots at each hand and a dashed
target line.
"""

from collections.abc import Callable
from dataclasses import dataclass
from html import escape

# Colour-blind-safe colours (Okabe and Ito), dark enough for 3:1 against white.
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#7a6a00", "#56748f")


@dataclass(frozen=True)
class Series:
    label: str
    totals: list[int]  # the running total after each hand, hand 1 first


def _ticks(low: int, high: int, count: int = 5) -> list[int]:
    span = max(high - low, 1)
    raw = span / count
    step = next(s for s in (5, 10, 25, 50, 100, 250, 500, 1000, 10**9) if s >= raw)
    first = (low // step) * step
    return list(range(first, high + step, step))


def _same(message: str) -> str:
    return message


def running_total_svg(
    series: list[Series],
    *,
    target: int,
    width: int = 640,
    height: int = 280,
    _: Callable[[str], str] = _same,
) -> str:
    """The chart's SVG markup in the language of ``_`` (the page's gettext); every label is
    escaped."""
    hands = max((len(s.totals) for s in series), default=0)
    values = [0, target] + [v for s in series for v in s.totals]
    ticks = _ticks(min(values), max(values))
    low, high = ticks[0], ticks[-1]
    left, right, top, bottom = 44, 12, 12, 56
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(hand: int) -> float:
        return left + (plot_w * hand / hands if hands else 0)

    def y(value: float) -> float:
        return top + plot_h * (high - value) / (high - low)

    # Messages are looked up outside f-strings, where the extractor finds them.
    title = _("Running total after each hand")
    no_hands = _("no hands yet")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="img" aria-labelledby="chart-title chart-desc" class="chart">',
        f'<title id="chart-title">{escape(title)}</title>',
        '<desc id="chart-desc">'
        + escape(
            "; ".join(
                f"{s.label}: {', '.join(str(v) for v in s.totals) or no_hands}" for s in series
            )
            + ". "
            + _("Target {target}.").format(target=target)
        )
        + "</desc>",
    ]
    for tick in ticks:
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            'stroke="#d8dde2" stroke-width="1"/>'
            f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" font-size="11" '
            f'fill="#3d4650">{tick}</text>'
        )
    label_every = max(1, hands // 12)
    for hand in range(0, hands + 1, label_every):
        parts.append(
            f'<text x="{x(hand):.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
            f'font-size="11" fill="#3d4650">{hand}</text>'
        )
    target_label = escape(_("target {target}").format(target=target))
    parts.append(
        f'<line x1="{left}" x2="{width - right}" y1="{y(target):.1f}" y2="{y(target):.1f}" '
        'stroke="#1b1f23" stroke-width="1.5" stroke-dasharray="6 4"/>'
        f'<text x="{width - right}" y="{y(target) - 5:.1f}" text-anchor="end" font-size="12" '
        f'fill="#1b1f23">{target_label}</text>'
    )
    for index, s in enumerate(series):
        colour = PALETTE[index % len(PALETTE)]
        points = [(x(0), y(0))] + [(x(n + 1), y(v)) for n, v in enumerate(s.totals)]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        parts.append(
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.5" '
            'stroke-linejoin="round"/>'
        )
        for px, py in points[1:]:
            parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}"/>')
        legend_x = left + (index % 3) * (plot_w / 3)
        legend_y = height - 22 + (index // 3) * 16
        parts.append(
            f'<rect x="{legend_x:.1f}" y="{legend_y - 9}" width="12" height="12" '
            f'fill="{colour}"/><text x="{legend_x + 16:.1f}" y="{legend_y + 1}" font-size="12" '
            f'fill="#1b1f23">{escape(s.label)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
