"""Draws the home-screen icons the web app manifest names (static/icons/), with Pillow.

The icon is the favicon's domino standing on the site's green: a 1 over a 3, the pips
in green. Run it again after changing the drawing; the PNG files are committed.
"""

from pathlib import Path

from PIL import Image, ImageDraw

ICONS = Path(__file__).resolve().parent.parent / "static" / "icons"
GREEN, IVORY, INK = "#0b5d3b", "#fdfcf8", "#1b1f23"


def domino(size: int, *, safe: float) -> Image.Image:
    """The icon at ``size`` pixels; the domino fills ``safe`` of the height (a maskable
    icon keeps it inside the central circle every launcher's mask leaves)."""
    scale = 4  # drawn larger, then reduced: smooth edges
    side = size * scale
    image = Image.new("RGB", (side, side), GREEN)
    draw = ImageDraw.Draw(image)
    height = side * safe
    width = height / 2
    left, top = (side - width) / 2, (side - height) / 2
    unit = width / 32  # the favicon's own coordinates: 32 x 64
    draw.rounded_rectangle(
        (left, top, left + width, top + height),
        radius=5 * unit,
        fill=IVORY,
        outline=INK,
        width=max(1, round(2 * unit)),
    )
    middle = top + height / 2
    draw.line((left + 4 * unit, middle, left + 28 * unit, middle), fill=INK, width=round(2 * unit))
    for x, y, r in ((16, 16, 4), (9, 41, 3.5), (16, 48, 3.5), (23, 55, 3.5)):
        cx, cy, radius = left + x * unit, top + y * unit, r * unit
        draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=GREEN)
    return image.resize((size, size), Image.LANCZOS)


SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
    f'<rect width="64" height="64" fill="{GREEN}"/>'
    '<g transform="translate(18 5) scale(0.84375)">'
    f'<rect x="1" y="1" width="30" height="62" rx="5" fill="{IVORY}" stroke="{INK}" '
    'stroke-width="2"/>'
    f'<line x1="4" y1="32" x2="28" y2="32" stroke="{INK}" stroke-width="2"/>'
    f'<g fill="{GREEN}"><circle cx="16" cy="16" r="4"/><circle cx="9" cy="41" r="3.5"/>'
    '<circle cx="16" cy="48" r="3.5"/><circle cx="23" cy="55" r="3.5"/></g></g></svg>\n'
)


def main() -> None:
    ICONS.mkdir(exist_ok=True)
    for size in (192, 512):
        domino(size, safe=0.84).save(ICONS / f"icon-{size}.png", optimize=True)
    domino(512, safe=0.62).save(ICONS / "icon-maskable-512.png", optimize=True)
    domino(180, safe=0.84).save(ICONS / "apple-touch-icon.png", optimize=True)
    (ICONS / "icon.svg").write_text(SVG)


if __name__ == "__main__":
    main()
