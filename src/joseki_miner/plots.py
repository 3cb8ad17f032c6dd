"""Plots of a node's statistics, drawn by matplotlib as SVG text at build
time (the report loads nothing from the network and runs no script).

matplotlib is imported on the first plot only, with its SVG backend.  Every
node of a report is plotted against the same years, so one figure is kept
and only its bars' heights and the label of the highest bar change from
plot to plot.  A report of hundreds of pages draws hundreds of plots, so
the figure has no axes' ticks (three quarters of matplotlib's time went to
laying them out): a baseline with some of the years under it, and the
highest share written over its bar; the page gives every year's numbers.
About 7 ms a plot.  The SVG is the same bytes for the same numbers (no date,
fixed ids), so reports are reproducible.  Each thread keeps its own figure:
a worker of the dask engine draws the pages of several tasks at once.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Sequence

ACCENT, INK = "#2f6f9f", "#333333"
YEAR_LABELS = 7  # years written under the bars, at most
_drawn = threading.local()  # a thread's figure, its axes, bars and peak label, and the years they are drawn for


def _figure(years: Sequence[int]):
    _state = _drawn.__dict__
    if _state.get("years") != tuple(years):
        import matplotlib

        matplotlib.use("svg", force=False)
        from matplotlib.figure import Figure

        matplotlib.rcParams.update({"svg.hashsalt": "joseki-miner", "svg.fonttype": "none",
                                    "font.family": "sans-serif", "font.size": 9})
        figure = Figure(figsize=(5.6, 1.8), dpi=72)
        axes = figure.add_axes((0.02, 0.16, 0.96, 0.72))
        axes.set_axis_off()
        axes.set_xlim(years[0] - 0.6, years[-1] + 0.6)  # a year without games is a gap
        bars = axes.bar(list(years), [0] * len(years), color=ACCENT, width=0.8)
        axes.axhline(0, color=INK, linewidth=1)
        step = -(-(years[-1] - years[0] + 1) // YEAR_LABELS)
        for year in range(years[0], years[-1] + 1, step):
            axes.annotate(str(year), (year, 0), xytext=(0, -3), textcoords="offset points", ha="center",
                          va="top", color=INK)
        peak = axes.annotate("", (0, 0), xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                             color=INK)
        _state.update(years=tuple(years), figure=figure, axes=axes, bars=bars, peak=peak)
    return _state["figure"], _state["axes"], _state["bars"], _state["peak"]


def year_shares(years: Sequence[int], shares: Sequence[float]) -> str:
    """Bars of a node's share of each year's games (``shares``, 0-1, one a
    year of ``years``), the highest labelled with its share; an SVG element
    as text."""
    figure, axes, bars, peak = _figure(years)
    percent = [100 * s for s in shares]
    for bar, height in zip(bars, percent):
        bar.set_height(height)
    top = max(percent, default=0)
    at = percent.index(top) if percent else 0
    axes.set_ylim(0, top * 1.2 if top > 0 else 1)
    peak.xy = (years[at] if years else 0, top)
    peak.set_text(f"{top:.1f}% in {years[at]}" if top > 0 else "")
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # the element, without the XML prolog and doctype
