"""The report's plots (joseki_miner.plots): each year's bar as tall as its
share, under its year, a year without games a gap, the highest labelled."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from joseki_miner import plots


def bars(svg: str) -> list[tuple[float, float]]:
    """(centre x, height) of each bar, left to right."""
    out = []
    for d in re.findall(r'<path d="([^"]+)"[^>]*style="fill: ' + plots.ACCENT, svg):
        xs, ys = zip(*[map(float, p.split()) for p in re.findall(r"[-\d.]+ [-\d.]+", d)])
        out.append(((min(xs) + max(xs)) / 2, max(ys) - min(ys)))
    return sorted(out)


def labels(svg: str) -> dict[str, float]:
    return {text: float(x) for x, text in re.findall(r'<text[^>]* x="([-\d.]+)"[^>]*>([^<]+)</text>', svg)}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=2, max_size=20))
def test_each_bar_is_as_tall_as_its_share_under_its_year(shares):
    years = [2000 + 2 * i for i in range(len(shares))]  # every other year: the ones between are gaps
    svg = plots.year_shares(years, shares)
    drawn = bars(svg)
    assert len(drawn) == len(years)
    top = max(shares)
    tallest = max(h for _, h in drawn)
    for (x, height), share in zip(drawn, shares):
        assert abs(height - (tallest * share / top if top else 0)) < 0.01 * tallest + 1e-6
    written = labels(svg)
    step = (drawn[1][0] - drawn[0][0]) / 2  # a year's width
    for year, x in written.items():
        if year.isdigit():
            assert abs(x - (drawn[0][0] + (int(year) - years[0]) * step)) < 0.5
    if top > 0:
        peak = shares.index(top)
        (text, x), = [(t, x) for t, x in written.items() if " in " in t]
        assert text == f"{100 * top:.1f}% in {years[peak]}" and abs(x - drawn[peak][0]) < 0.5


def test_the_same_shares_give_the_same_bytes():
    a = plots.year_shares([2001, 2002, 2003], [0.1, 0.3, 0.2])
    plots.year_shares([1999, 2005], [0.5, 0.5])
    assert plots.year_shares([2001, 2002, 2003], [0.1, 0.3, 0.2]) == a


def test_threads_drawing_at_once_each_get_their_own_plot():
    """A worker of the dask engine renders the pages of two tasks at once:
    each plot is the one its numbers give alone (a figure shared between
    threads wrote one page's label on another's)."""
    from concurrent.futures import ThreadPoolExecutor

    years = [2001, 2002, 2003, 2004]
    cases = [[(i % 7) / 10, 0.5, (i % 3) / 4, 0.05 * (i % 5)] for i in range(60)]
    alone = [plots.year_shares(years, c) for c in cases]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda c: plots.year_shares(years, c), cases))
    assert together == alone
