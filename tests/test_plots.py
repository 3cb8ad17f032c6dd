"""The report's plots (joseki_miner.book.plots): each year's bar as tall as its
share, under its year, a year without games a gap, the highest labelled."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from joseki_miner.book import plots

SVG = "{http://www.w3.org/2000/svg}"


def bars(svg: str) -> list[tuple[int, float, float]]:
    """(year, centre x, height) of each bar, left to right."""
    root = ET.fromstring(svg)
    return sorted(
        (int(r.get("data-year")), float(r.get("x")) + float(r.get("width")) / 2, float(r.get("height")))
        for r in root.iter(SVG + "rect")
        if r.get("class", "").split()[0] == "bar"
    )


def labels(svg: str) -> dict[str, float]:
    return {t.text: float(t.get("x")) for t in ET.fromstring(svg).iter(SVG + "text")}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=2, max_size=20))
def test_each_bar_is_as_tall_as_its_share_under_its_year(shares):
    years = [2000 + 2 * i for i in range(len(shares))]  # every other year: the ones between are gaps
    svg = plots.year_shares(years, shares)
    drawn = bars(svg)
    assert [year for year, _, _ in drawn] == years
    top = max(shares)
    tallest = max(h for _, _, h in drawn)
    for (_, x, height), share in zip(drawn, shares):
        assert abs(height - (tallest * share / top if top else 0)) < 0.01 * tallest + 1e-6
    written = labels(svg)
    step = (drawn[1][1] - drawn[0][1]) / 2  # a year's width
    for year, x in written.items():
        if year.isdigit():  # under its year, moved in where it would stick out of the plot
            half = 0.3 * plots.FONT * len(year)
            centre = drawn[0][1] + (int(year) - years[0]) * step
            assert abs(x - min(max(centre, half + 1), plots.WIDTH - half - 1)) < 0.5
    if top > 0:
        peak = shares.index(top)
        ((text, x),) = [(t, x) for t, x in written.items() if " in " in t]
        assert text == f"{100 * top:.1f}% in {years[peak]}"
        half = 0.3 * plots.FONT * len(text)
        assert half < x < plots.WIDTH - half  # inside the plot, whatever bar it labels
        if half + 1 < drawn[peak][1] < plots.WIDTH - half - 1:
            assert abs(x - drawn[peak][1]) < 0.5  # over its bar where it fits there
    else:
        assert not [t for t in written if " in " in t]


def test_the_peak_at_either_end_is_written_inside_the_plot():
    """Its label moves in from the edge (it was cut off: "13.3% in 201")."""
    years = list(range(2001, 2018))
    for shares in ([0.01] * 16 + [0.133], [0.133] + [0.01] * 16):
        ((text, x),) = [(t, x) for t, x in labels(plots.year_shares(years, shares)).items() if " in " in t]
        half = 0.3 * plots.FONT * len(text)
        assert 0 < x - half and x + half < plots.WIDTH


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


def test_shares_that_are_no_share_draw_no_bar():
    """A share that is not a number, infinite or negative draws nothing
    (never an attribute "nan" or a negative height)."""
    svg = plots.year_shares([2001, 2002, 2003, 2004], [float("nan"), 0.2, float("inf"), -0.1])
    assert [h for _, _, h in bars(svg)] == [0.0, max(h for _, _, h in bars(svg)), 0.0, 0.0]
    assert "nan" not in svg and "inf" not in svg and "20.0% in 2002" in svg


def test_the_year_asked_for_is_labelled_and_thin_years_are_pale():
    """The report labels the year the headline calls most popular (a thin
    year, of few games, may have a taller bar) and draws thin years pale."""
    years = [2001, 2002, 2003, 2004]
    svg = plots.year_shares(years, [0.1, 0.3, 0.2, 0.6], peak=2002, thin={2004})
    assert [t for t in labels(svg) if " in " in t] == ["30.0% in 2002"]
    root = ET.fromstring(svg)
    assert {int(r.get("data-year")): r.get("class") for r in root.iter(SVG + "rect")} == {
        2001: "bar",
        2002: "bar",
        2003: "bar",
        2004: "bar thin",
    }
    heights = {year: h for year, _, h in bars(svg)}
    assert heights[2004] == max(heights.values())  # the scale is every bar's, thin or not
    assert [t for t in labels(plots.year_shares(years, [0.1, 0.3, 0.2, 0.6])) if " in " in t] == ["60.0% in 2004"]
    # no year asked for: the highest bar that is not thin
    assert [t for t in labels(plots.year_shares(years, [0.1, 0.3, 0.2, 0.6], thin={2004})) if " in " in t] == [
        "30.0% in 2002"
    ]
