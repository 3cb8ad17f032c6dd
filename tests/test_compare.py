"""What changed between two sides of the games (joseki_miner.book.compare,
``joseki compare``): each side's share of a position's games, checked
against the build's own tables; on all of ../shared/data, the 3-3
invasion under the 4-4 stone among the first risers from the human
collections to the programs'."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers import joseki_cli as joseki
from helpers import mine_into as mine
from hypothesis import given, settings
from hypothesis import strategies as st

from joseki_miner.book.compare import compare, eras, side_games
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.inputs import Filters


@pytest.fixture(scope="module")
def demo(demo_games, tmp_path_factory) -> Catalog:
    return mine([demo_games], tmp_path_factory.mktemp("compare-demo"))


def test_sides_that_split_the_games_split_each_count(demo):
    """Sides that split the games (club against the rest): a move's
    sequences on the two sides add up to the tree's count of it, and those
    at its position to its parent's; the changes are ordered by weight."""
    found = compare(demo, Filters(sources=("club",)), Filters(sources=("demo", "pro")), least=0)
    tree = pq.read_table(demo.joseki, columns=["node", "parent", "count"]).to_pydict()
    count = dict(zip(tree["node"], tree["count"]))
    parent = dict(zip(tree["node"], tree["parent"]))
    changes = found["risers"] + found["fallers"]
    assert changes
    for c in changes:
        n = c["node"]
        assert c["a"]["count"] + c["b"]["count"] == count[n]
        assert c["a"]["of"] + c["b"]["of"] == count[parent[n]]
        assert c["low"] <= c["difference"] <= c["high"]
        assert (c["low"] > 0) == (c in found["risers"]) and (c["high"] < 0) == (c in found["fallers"])
    weighed = [c["low"] * c["reach"] for c in found["risers"]]
    assert weighed == sorted(weighed, reverse=True)


def test_eras_read_from_the_years_alone_select_as_the_filters_do(tmp_path):
    """Sides that are eras (years alone, as the report's page of what
    changed splits the games) select the games the filters' reasons do,
    the undated games on neither side."""
    games = tmp_path / "games.parquet"
    year = [2004, 0, 1990, 2011, 2005, 0, 2030, 2010, 2012]
    pq.write_table(pa.table({"year": pa.array(year, pa.int16())}), games)
    for a, b in [((1990, 2004), (2005, 2030)), ((0, 2010), (2011, 2011)), ((2100, 2200), (1, 3000))]:
        sides = Filters(years=a), Filters(years=b)
        fast = side_games(games, *sides)
        assert fast[0].dtype == bool and len(fast[0]) == len(year)
        assert [list(side) for side in fast] == [
            [r is None for r in side.reasons(np.array(year), np.zeros(len(year)), [""] * len(year), None)]
            for side in sides
        ]
    assert side_games(games, Filters())[0].all()


def test_the_two_sides_together_share_as_lookup_does(demo):
    """Shares are defined once: the two sides' sequences together give each
    move the share lookup gives it among its position's continuations."""
    from joseki_miner.book.explore import lookup
    from joseki_miner.book.words import share_of

    found = compare(demo, Filters(sources=("club",)), Filters(sources=("demo", "pro")), least=0)
    checked = 0
    for c in found["risers"] + found["fallers"]:
        before, _, last = c["sequence"].rpartition(";")
        if before:
            shares = {m["normal"]: m["share"] for m in lookup(demo, before)["continuations"]}
            both = share_of(c["a"]["count"] + c["b"]["count"], c["a"]["of"] + c["b"]["of"])
            assert shares[last] == both, c["sequence"]
            checked += 1
    assert checked


def test_a_side_against_itself_changes_nothing(demo):
    same = compare(demo, Filters(), Filters(), least=0)
    assert same["moves"] > 0 and same["risers"] == [] and same["fallers"] == []
    assert same["a"]["games"] == same["b"]["games"] == pq.read_metadata(demo.games).num_rows


def test_the_cli_takes_only_filter_keys(demo):
    bad = joseki("compare", "--a", "prune.min_count=3", "--out", demo.out)
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "filter" in bad.stderr
    wrong = joseki("compare", "--a", "filter.years=[2019]", "--out", demo.out)
    assert wrong.returncode == 2 and "filter.years" in wrong.stderr


@pytest.mark.shared_data
def test_the_three_three_invasion_rises_with_the_programs(shared_data, tmp_path):
    """Human collections against the AI collection, on all of
    ../shared/data: the 3-3 invasion under a 4-4 stone (B[dd];W[cc] in
    the tree's form) is among the first ten risers."""
    catalog = mine([shared_data], tmp_path / "all")  # its collections: ai, kgs-6d, tom-9d, tygem-9d
    done = joseki(
        "compare",
        "--a",
        "filter.sources=[kgs-6d, tom-9d, tygem-9d]",
        "--b",
        "filter.sources=[ai]",
        "--json",
        "--out",
        catalog.out,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    risers = [r["sequence"] for r in found["risers"]]
    assert "B[dd];W[cc]" in risers[:10], risers
    three_three = found["risers"][risers.index("B[dd];W[cc]")]
    assert three_three["b"]["share"] > 3 * three_three["a"]["share"] and three_three["p"] < 1e-6
    assert len(found["risers"]) == len(found["fallers"]) == 10
    assert found["a"]["games"] + found["b"]["games"] == pq.read_metadata(catalog.games).num_rows


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=30), max_size=60), st.none() | st.integers(1990, 2030))
def test_eras_counted_by_year_are_those_of_every_games_year(offsets, since):
    """``eras`` (of the games counted by year, ``era_years``: what a run's
    partitions know) are those of every game's year in order: the dated
    games split in half by year, or at ``since`` kept within them; none
    below two years."""
    year = np.array([0 if k == 0 else 1999 + k for k in offsets], np.int16)
    dated = np.sort(year[year > 0])
    got = eras(year, since)
    if len(np.unique(dated)) < 2:
        assert got is None
        return
    first, last = int(dated[0]), int(dated[-1])
    at = min(max(int(dated[len(dated) // 2]) if since is None else since, first + 1), last)
    a, b, before, after = got
    assert (a.years, b.years) == ((first, at - 1), (at, last))
    assert before == (f"{first}-{at - 1}" if at - 1 > first else f"{first}")
    assert after == (f"{at}-{last}" if last > at else f"{at}")
