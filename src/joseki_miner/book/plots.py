"""Plots of a node's statistics, written as SVG text at build time (the
report loads nothing from the network and runs no script).

A plot is a bar chart: a bar per year as tall as its share, a year without
games a gap, a year of too few games to say much pale, a year whose games
are mostly one collection's outlined (its share is the collection's more
than the year's, ``strata.held_years``), a baseline with
some of the years under it, and the most popular year's share written over
its bar (inside the plot, however near its edge); the page gives every
year's numbers.  Drawn as the boards are (``diagram``): a
few rectangles and texts, each bar a ``<rect class="bar" data-year=...>``,
so the plot is testable against its numbers, the same bytes for the same
numbers, and a plot costs microseconds where a plotting library's took
20 ms (two thirds of a report's time).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from html import escape

ACCENT, PALE, INK, HELD = "#2f6f9f", "#b9cfe0", "#333333", "#d07a10"
YEAR_LABELS = 7  # years written under the bars, at most
WIDTH, HEIGHT = 403, 130  # the plot, in pixels
LEFT, RIGHT = 8, 395  # the years' span, from the first year's left edge to the last's right
TOP, BASE = 16, 108  # the top of the tallest bar and the baseline
FONT = 12  # px; a label's width is taken as 0.6 of it a character
BAR = 0.8  # a bar's width, of a year's


def _x(year: float, years: Sequence[int]) -> float:
    """The x of the middle of ``year``'s place."""
    return LEFT + (year - years[0] + 0.5) * (RIGHT - LEFT) / (years[-1] - years[0] + 1)


def _f(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _label(text: str, x: float, y: float, cls: str) -> str:
    """A text centred on ``x``, moved in to stay inside the plot."""
    half = 0.3 * FONT * len(text)
    x = min(max(x, half + 1), WIDTH - half - 1)
    return f'<text class="{cls}" x="{_f(x)}" y="{_f(y)}">{escape(text)}</text>'


def year_shares(
    years: Sequence[int],
    shares: Sequence[float],
    peak: int | None = None,
    thin: Collection[int] = (),
    held: Mapping[int, str] | None = None,
) -> str:
    """Bars of a node's share of each year's games (``shares``, 0-1, one a
    year of ``years``, ascending), year ``peak`` labelled with its share
    (by default the highest bar not thin), the ``thin`` years' bars pale
    (too few games for their share to say much), the ``held`` years' bars
    outlined, each with the name of the collection that holds it
    (``data-collection``); an SVG element as text."""
    held = held or {}
    # presentation attributes, not a <style>: a style inside an SVG in a page applies to the whole page
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="Share of each year\'s games">'
    ]
    if list(years) != sorted(set(years)):
        raise ValueError(f"years must ascend: {list(years)}")
    if years:
        percent = [100 * s if math.isfinite(s) and s > 0 else 0.0 for s in shares]
        top = max(percent, default=0)
        width = BAR * (RIGHT - LEFT) / (years[-1] - years[0] + 1)
        for fill, pale in ((ACCENT, False), (PALE, True)):
            drawn = [(y, p) for y, p in zip(years, percent) if (y in thin) == pale]
            if not drawn:
                continue
            parts.append(f'<g fill="{fill}">')
            for year, height in drawn:
                h = (BASE - TOP) * (height / top) if top > 0 else 0.0  # a ratio: no overflow
                mark = (
                    f' data-collection="{escape(held[year])}" stroke="{HELD}" stroke-width="1.5"'
                    if year in held
                    else ""
                )
                parts.append(
                    f'<rect class="bar{" thin" * pale}{" held" * (year in held)}" data-year="{year}" '
                    f'x="{_f(_x(year, years) - width / 2)}" y="{_f(BASE - h)}" width="{_f(width)}" '
                    f'height="{_f(h)}"{mark}/>'
                )
            parts.append("</g>")
        parts.append(
            f'<line x1="{LEFT}" y1="{BASE}" x2="{RIGHT}" y2="{BASE}" stroke="{INK}" stroke-width="1"/>'
            f'<g font-family="sans-serif" font-size="{FONT}" fill="{INK}" text-anchor="middle">'
        )
        step = -(-(years[-1] - years[0] + 1) // YEAR_LABELS)
        for year in range(years[0], years[-1] + 1, step):
            parts.append(_label(str(year), _x(year, years), BASE + FONT + 2, "year"))
        solid = [p if y not in thin else -1.0 for y, p in zip(years, percent)]
        at = years.index(peak) if peak in years else solid.index(max(solid)) if max(solid) > 0 else percent.index(top)
        if percent[at] > 0:
            parts.append(_label(f"{percent[at]:.1f}% in {years[at]}", _x(years[at], years), TOP - 4, "peak"))
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)
