"""Trends and comparisons within collections (joseki_miner.book.strata):
the years one collection holds marked, the most popular year read within
collections, and a change tested within them (Cochran-Mantel-Haenszel),
on two small hand-made collections where one alone holds a year."""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET

import pyarrow.parquet as pq
import pytest

from helpers import joseki_cli as joseki
from helpers import mine_into as mine

from joseki_miner.book import explore, strata
from joseki_miner.book.compare import compare
from joseki_miner.runs.inputs import Filters

INVASION = "pd qc qd pc oc ob"  # the 3-3 invasion under a 4-4 stone, upper right (Q16 R17 ...)
APPROACH = "pd nc pf pb qc kc"  # a one-space low approach instead
# each game its own two last moves (no two games alike), far from every corner
TAILS = [c + r for c in "hijkl" for r in "hijklm"]
# (collection, year, games, of which the invasion): "old" alone in 2001-2002, "new" alone in 2003
PLAN = [("old", 2001, 40, 8), ("old", 2002, 40, 24), ("new", 2003, 40, 36)]


def _game(moves: str, year: int, k: int) -> str:
    points = moves.split() + [TAILS[k % 30], TAILS[(k % 30 + k // 30 + 1) % 30]]  # each game's own two
    body = "".join(f";{'BW'[i % 2]}[{p}]" for i, p in enumerate(points))
    return f"(;FF[4]GM[1]SZ[19]PB[b{k}]PW[w{k}]DT[{year}-05-01]RE[B+R]{body})\n"


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """The games of ``PLAN`` in two folders, mined as two collections
    (every node of two games kept)."""
    root = tmp_path_factory.mktemp("two")
    k = 0
    for name, year, games, invaded in PLAN:
        (root / name).mkdir(exist_ok=True)
        for i in range(games):
            line = INVASION if i < invaded else APPROACH
            (root / name / f"{year}-{i}.sgf").write_text(_game(line, year, k))
            k += 1
    return mine([root / "old", root / "new"], root / "mined", "prune.min_count=2")


def _node(catalog, *moves: str) -> int:
    """The node of a line of the tree's moves (SGF points, its form)."""
    rows = pq.read_table(catalog.joseki, columns=["node", "parent", "move"]).to_pylist()
    node = next(r["node"] for r in rows if r["parent"] < 0)
    for m in moves:
        node = next(r["node"] for r in rows if r["parent"] == node and r["move"] == m)
    return node


def test_a_year_one_collection_holds_is_marked_in_the_trend(two):
    q, rows = explore.trend(two, "Q16 R17")
    by = {r["year"]: r for r in rows}
    assert [round(by[y]["share"], 6) for y in (2001, 2002, 2003)] == [0.2, 0.6, 0.9]
    assert all(by[y]["held_by"].endswith(name) and by[y]["held_share"] == 1.0 for name, y, _, _ in PLAN)
    done = joseki("trend", "Q16 R17", "--out", two.out, "--work", two.work, "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["most_popular"] == 2002 and [r["year"] for r in found["years"]] == [2001, 2002, 2003]
    text = joseki("trend", "Q16 R17", "--out", two.out, "--work", two.work).stdout
    assert re.search(r"^  2003 .* \* new 100%$", text, re.M), text
    assert "90% or more one collection's" in text and "most popular in 2002, within collections" in text
    assert explore.trend(two, "Q16 R17", by_collection=True)[1][0]["held_by"] is not None


def test_the_most_popular_year_is_read_within_collections(two):
    """The raw share peaks in 2003, the year "new" alone holds (90% of its
    games invade); within collections, "old" rose from 20% to 60% and
    "new" has one year: the line was most popular in 2002.  By hand:
    w_old = 2/3, w_new = 1/3, p_old = 0.4, p_new = 0.9; 2002's level
    0.6 / 0.4 = 1.5: S_2002 = 2/3 0.6 + 1/3 0.9 1.5 = 0.85; 2003's level
    1: S_2003 = 1/3 0.9 + 2/3 0.4 = 0.5667; S_2001 = 2/3 0.2 + 1/3 0.9 0.5."""
    _, rows = explore.trend(two, "Q16 R17")
    within = {r["year"]: r["within"] for r in rows}
    assert within == pytest.approx({2001: 0.2 * 2 / 3 + 0.9 * 0.5 / 3, 2002: 0.85, 2003: 0.9 / 3 + 0.4 * 2 / 3})
    raw = max(rows, key=lambda r: r["share"])["year"]
    assert raw == 2003 and explore.trend_peak(rows) == 2002
    assert explore.lookup(two, "Q16 R17")["most_popular"] == 2002
    node = _node(two, "dd", "cc")
    page = (two.report / f"n{node}.html").read_text(encoding="utf-8")
    headline = re.search(r'<p class="headline">(.*?)</p>', page).group(1)
    assert "2001-2003, most popular in 2002, within collections" in headline
    plot = ET.fromstring(re.search(r'<svg xmlns="http://www.w3.org/2000/svg" class="plot".*?</svg>', page, re.S)[0])
    ns = "{http://www.w3.org/2000/svg}"
    bars = {int(r.get("data-year")): r for r in plot.iter(ns + "rect")}
    assert all("held" in bars[y].get("class").split() for y in (2001, 2002, 2003))
    assert bars[2003].get("data-collection") == "new" and bars[2002].get("data-collection") == "old"
    assert [t.text for t in plot.iter(ns + "text") if t.get("class") == "peak"] == ["60.0% in 2002"]
    assert "Outlined bars: years whose games are 90% or more one collection" in page
    assert "most popular in 2002, within collections" in two.sgf.read_text(encoding="utf-8")


def test_held_years_and_the_shares_within_one_collection_are_the_raw_ones():
    cells = strata.year_collections([2001, 2001, 2001, 2002, 2002, 0], ["a", "a", "b", "a", "b", "b"])
    assert cells == {2001: {"a": 2, "b": 1}, 2002: {"a": 1, "b": 1}}
    assert strata.held_years(cells) == {} and strata.held_years(cells, 0.6) == {2001: ("a", 2 / 3)}
    one = {2001: {"x": 100}, 2002: {"x": 300}, 2003: {"x": 50}}
    node = {2001: {"x": 10}, 2002: {"x": 60}, 2003: {"x": 5}}
    assert strata.within_shares(node, one) == pytest.approx({2001: 0.1, 2002: 0.2, 2003: 0.1})


def test_the_stratified_test_against_a_hand_computation():
    """Two collections: a 10 of 100 -> b 30 of 100, and a 40 of 50 -> b 90
    of 100; a third on side a alone (no information: left out).  By hand:
    w = 100 100/200 = 50 and 50 100/150 = 100/3; D = (50 0.2 + 100/3 0.1)
    / (250/3) = 0.16.  CMH: E = 20 and 260/3, V = 1600/199 and
    13e6/(22500 149); chi2 = (10 + 10/3)^2 / (V1 + V2).  Sato: P = -5 and
    50000/22500, Q = 8.5 and 13/3; Var = (0.16 (P1 + P2) + Q1 + Q2) / w^2."""
    found = strata.stratified([10, 40, 7], [100, 50, 20], [30, 90, 0], [100, 100, 0])
    assert found["informative"] == 2
    assert found["difference"] == pytest.approx(0.16)
    chi2 = (10 + 10 / 3) ** 2 / (1600 / 199 + 13e6 / (22500 * 149))
    assert found["z"] == pytest.approx(math.sqrt(chi2)) and found["z"] == pytest.approx(3.8623, abs=1e-4)
    assert found["p"] == pytest.approx(math.erfc(math.sqrt(chi2 / 2)))
    variance = (0.16 * (-5 + 50000 / 22500) + 8.5 + 13 / 3) / (250 / 3) ** 2
    half = 1.959963984540054 * math.sqrt(variance)
    assert (found["low"], found["high"]) == pytest.approx((0.16 - half, 0.16 + half))
    assert half == pytest.approx(0.08278, abs=1e-5)
    # one stratum: Sato's variance is the two shares' own (Wald's)
    alone = strata.stratified([30], [100], [20], [100])
    assert alone["high"] - alone["difference"] == pytest.approx(1.959963984540054 * math.sqrt(0.0037))
    assert strata.stratified([1], [10], [0], [0])["difference"] is None


def test_compare_warns_where_the_sides_collections_differ(two):
    apart = compare(two, Filters(years=(2001, 2002)), Filters(years=(2003, 2003)), least=0)
    assert not apart["within_collections"]
    assert any("share no collection" in w for w in apart["warnings"])
    assert any("only the second side has games of new" in w for w in apart["warnings"])
    mixed = compare(two, Filters(years=(2001, 2001)), Filters(years=(2002, 2003)), least=0)
    assert mixed["within_collections"] and sorted(mixed["b"]["collections"].values()) == [40, 40]
    assert any("differ by 50%" in w for w in mixed["warnings"]), mixed["warnings"]
    three_three = next(c for c in mixed["risers"] + mixed["fallers"] if c["board"] == "D16 C17")
    # within "old" alone: 8 of 40 -> 24 of 40; the raw change mixes in "new"'s 36 of 40
    assert three_three["informative"] == 1 and three_three["difference"] == pytest.approx(0.4)
    assert three_three["raw"]["difference"] == pytest.approx(15 / 20 - 0.2)
    done = joseki(
        "compare", "--a", "filter.years=[2001,2002]", "--b", "filter.years=[2003,2003]", "--out", two.out, "--json"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["warnings"] == apart["warnings"]
    text = joseki("compare", "--a", "filter.years=[2001,2002]", "--b", "filter.years=[2003,2003]", "--out", two.out)
    assert "warning: the two sides share no collection" in text.stdout


def test_the_page_of_what_changed_warns_of_the_collections(two):
    page = (two.report / "changed.html").read_text(encoding="utf-8")
    """The report's eras split the games in half by year: 2001 ("old"
    alone) and 2002-2003 ("old" and "new")."""
    assert "What changed: 2001 and 2002-2003" in page and "Mind the collections." in page
    assert "Only the second side has games of new" in page and "differ by 50%" in page
