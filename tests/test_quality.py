"""The quality yardstick (joseki_miner.book.quality, benchmarks/named_shapes.yaml,
`make quality`): named shapes from public sources, and a tree measured
against them as the quality table does."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from sgfmill import sgf

from joseki_miner.book import quality
from joseki_miner.runs.config import load
from joseki_miner.readers.demo import PLANTED
from joseki_miner.method.kinds import FUSEKI, KindRules, kind_of
from joseki_miner.method.points import TENUKI
from joseki_miner.runs.catalog import Catalog
from pipeline.run import Request, run_stages

ROOT = Path(__file__).resolve().parents[1]
NAMED = yaml.safe_load((ROOT / "benchmarks" / "named_shapes.yaml").read_text(encoding="utf-8"))


def test_the_named_shapes_are_at_least_40_joseki_and_15_fuseki_shapes_each_with_a_source():
    joseki, fuseki = quality.shapes(NAMED["joseki"]), quality.shapes(NAMED["fuseki"])
    assert len(joseki) >= 40 and len(fuseki) >= 15
    assert all(s.source for s in joseki + fuseki)
    assert len({s.keys for s in joseki + fuseki}) == len(joseki) + len(fuseki)  # no line twice, in any orientation


def test_the_rules_call_each_named_joseki_a_joseki_and_each_fuseki_shape_not():
    """The yardstick and the rules agree on every named shape (the rules
    read from a line alone; an approach from the side needs the tree's
    counts): what the table counts is what the games made of them.  The
    one named joseki played after a tenuki, the double approach, is a
    follow-up by the defaults' rules: the table counts it as not held."""
    for s in quality.shapes(NAMED["joseki"]):
        assert kind_of(s.keys, KindRules(region=9)) == "joseki", s.name
        assert kind_of(s.keys, KindRules(region=9, follow_up=True)) == (
            "follow-up" if TENUKI in s.keys[2:] else "joseki"
        ), s.name
    assert sum(TENUKI in s.keys[2:] for s in quality.shapes(NAMED["joseki"])) == 1
    for s in quality.shapes(NAMED["fuseki"]):
        assert kind_of(s.keys, KindRules(region=9, follow_up=True)) in ("enclosure", "extension"), s.name


def test_a_shape_is_the_same_in_any_corner_and_colour():
    a = quality.shape("4-4 point, low approach", "dd fc cf")
    b = quality.shape("the same, lower right, colours swapped", "pp nq qn")
    assert a.keys == b.keys


@pytest.fixture(scope="module")
def planted():
    joseki = [{"name": n, "moves": m, "source": "the demo"} for n, m, _, k in PLANTED if k == "joseki"]
    fuseki = [{"name": n, "moves": m, "source": "the demo"} for n, m, _, k in PLANTED if k in FUSEKI]
    return quality.shapes(joseki), quality.shapes(fuseki)


def _tree(demo_games, folder, *sets):
    catalog = Catalog(work=folder / "work", out=folder / "out")
    config = load(None, list(sets))
    run_stages(catalog, config, ("ingest", "extract", "build", "prune"), [demo_games], Request(progress=False))
    return quality.tree(pq.read_table(catalog.joseki).to_pydict(), config.min_length)


def test_the_demo_measured_against_what_it_planted(demo_games, tmp_path, planted):
    joseki, fuseki = planted
    m = quality.measure(_tree(demo_games, tmp_path), joseki, fuseki)
    assert (m.named_joseki, m.named_total) == (7, 7) and m.missing == ()
    assert (m.fuseki_as_joseki, m.fuseki_named, m.fuseki_total) == (0, 2, 2)
    assert m.joseki_leaves == 6 and m.in_region == 1.0 and m.in_dictionary is None
    # the thesis' tree: no kinds, every leaf a joseki, so the planted fuseki shapes count among them
    thesis = quality.measure(
        _tree(demo_games, tmp_path / "thesis", "kinds=false", "prune.fold_tenuki=false", "corner.start=10"),
        joseki,
        fuseki,
    )
    assert thesis.fuseki_as_joseki == 2 and thesis.joseki_leaves == 8 and thesis.in_region < 1.0
    # before follow-ups were named, the line played after a tenuki was a joseki leaf; now the joseki ends before it
    mined = _tree(demo_games, tmp_path, "kinds.follow_up=true")
    before = _tree(demo_games, tmp_path / "before", "kinds.follow_up=false")
    line = quality.shape("", "dc ec db -- eb").keys
    assert line in before.leaves() and line not in mined.leaves() and line[:3] in mined.leaves()


def test_a_dictionary_holds_its_lines_and_their_prefixes_in_normal_form():
    """Variations, a pass for a tenuki, and a variation from setup stones
    (a position given, not played: left out); any corner."""
    text = "(;GM[1]FF[4]SZ[19];B[pd];W[qf](;B[nc];W[rd])(;B[];W[qc])(;AB[jd];W[qc];B[pc]))"
    known = quality.dictionary_lines(sgf.Sgf_game.from_string(text))
    assert known == {quality.shape("", m).keys for m in ("dd", "dd fc", "dd fc cf", "dd fc cf db", "dd fc -- cc")}
    # a tree's joseki leaves looked up there: "dd fc cf db" is, "dd fc hc" is not
    columns = {
        "node": [0, 1, 2, 3, 4, 5],
        "parent": [-1, 0, 1, 2, 3, 2],
        "depth": [0, 1, 2, 3, 4, 3],
        "move": ["", "dd", "fc", "cf", "db", "hc"],
        "count": [9, 9, 9, 5, 5, 4],
    }
    m = quality.measure(quality.tree(columns), [], [], dictionary=known, dictionaries={"d": known})
    assert m.joseki_leaves == 2 and m.in_dictionary == 0.5
    # richness and rightness together: 4 of its 5 joseki nodes are the dictionary's, 1 of its 2 leaves
    assert m.joseki_nodes == 5 and m.found["d"] == quality.Found(4, 1, 0.5)


def test_follow_ups_and_tenuki_are_no_joseki_nodes():
    columns = {
        "node": [0, 1, 2, 3, 4, 5],
        "parent": [-1, 0, 1, 2, 3, 4],
        "depth": [0, 1, 2, 3, 4, 5],
        "move": ["", "dd", "fc", "cf", "", "db"],
        "count": [9, 9, 9, 9, 5, 5],
        "kind": ["joseki", "joseki", "joseki", "joseki", "follow-up", "follow-up"],
    }
    t = quality.tree(columns, 3)
    assert t.joseki_nodes() == [t.paths[i] for i in (1, 2, 3)] and t.follow_ups() == 1
    assert t.leaves() == [t.paths[3]]
