"""Plots of a node's statistics, drawn by matplotlib as SVG text at build
time (the report loads nothing from the network and runs no script).

matplotlib is imported on the first plot only, with its SVG backend.  Every
node of a report is plotted against the same years, so one figure is kept
and only its bars' heights change from plot to plot: a report of hundreds
of pages draws hundreds of plots (about 20 ms each).  The SVG is the same
bytes for the same numbers (no date, fixed ids), so reports are
reproducible.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

ACCENT, INK = "#2f6f9f", "#333333"
_state: dict = {}  # the figure, its axes and bars, and the years they are drawn for


def _bars(years: Sequence[int]):
    if _state.get("years") != tuple(years):
        import matplotlib

        matplotlib.use("svg", force=False)
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator, PercentFormatter

        style = {"svg.hashsalt": "joseki-miner", "svg.fonttype": "none", "font.family": "sans-serif",
                 "font.size": 9, "axes.edgecolor": INK, "axes.spines.top": False, "axes.spines.right": False,
                 "xtick.color": INK, "ytick.color": INK}
        matplotlib.rcParams.update(style)
        figure = Figure(figsize=(5.6, 2.0), dpi=72)
        axes = figure.add_axes((0.09, 0.14, 0.89, 0.82))
        bars = axes.bar(list(years), [0] * len(years), color=ACCENT, width=0.8)
        axes.xaxis.set_major_locator(MaxNLocator(8, integer=True))
        axes.yaxis.set_major_locator(MaxNLocator(4))
        axes.yaxis.set_major_formatter(PercentFormatter(decimals=0))
        _state.update(years=tuple(years), figure=figure, axes=axes, bars=bars)
    return _state["figure"], _state["axes"], _state["bars"]


def year_shares(years: Sequence[int], shares: Sequence[float]) -> str:
    """Bars of a node's share of each year's games (``shares``, 0-1, one a
    year of ``years``), as an SVG element (text)."""
    figure, axes, bars = _bars(years)
    percent = [100 * s for s in shares]
    for bar, height in zip(bars, percent):
        bar.set_height(height)
    top = max(percent, default=0)
    axes.set_ylim(0, top * 1.1 if top > 0 else 1)
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # the element, without the XML prolog and doctype
