"""Which run made an output folder (joseki_miner.runs.lineage): a query,
emit or report reads the stages its tree was made from, or refuses with
exit 2; two runs that share a work folder never mix, in any order of
mines and queries."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import joseki_cli as joseki
from joseki_miner.book.explore import lookup
from joseki_miner.runs import lineage
from joseki_miner.runs.catalog import STAGES, Catalog
from joseki_miner.runs.config import load
from pipeline.run import Request, run_stages

SEQUENCE = "Q16"  # the 4-4 point: every collection of the demo plays it


@pytest.fixture(scope="module")
def two(demo_games, tmp_path_factory) -> dict[str, Path]:
    """Two collections of games (the demo's club and pro folders), and each
    one's clean answer to lookup, mined alone."""
    root = tmp_path_factory.mktemp("lineage")
    found = {}
    for name in ("club", "pro"):
        shutil.copytree(demo_games / name, root / "games" / name)
        found[name] = root / "games" / name
    return found


def _mine(games: Path, out: Path, work: Path) -> Catalog:
    catalog = Catalog(work=work, out=out)
    run_stages(catalog, load(None, ["prune.min_games=2"]), STAGES, [games], Request(progress=False), log=lambda s: None)
    return catalog


def _answer(out: Path, work: Path | None) -> dict:
    """A query as ``joseki lookup`` reads the outputs (``--work`` given, or
    the one the tree records)."""
    catalog = Catalog(work=work if work is not None else lineage.work_for(out, out / "interim"), out=out)
    steady = lineage.Steady(catalog)
    found = lookup(catalog, SEQUENCE)
    steady.confirm()
    return found


@pytest.fixture(scope="module")
def clean(two, tmp_path_factory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("clean")
    answers = {}
    for name, games in two.items():
        _mine(games, root / name, root / name / "interim")
        answers[name] = _answer(root / name, None)
    assert answers["club"] != answers["pro"]
    return answers


def test_a_query_on_a_work_folder_another_run_replaced_refuses(two, clean, tmp_path):
    """The issue's commands: mine A, then B, on one work folder; A's lookup
    names the work folder and exits 2, B's answers; A mined again answers
    as a clean run, and B's then refuses.  emit and report alone refuse as
    the queries do."""
    work = tmp_path / "W"
    for name in ("club", "pro"):
        assert (
            joseki(
                "mine", two[name], "--out", tmp_path / name, "--work", work, "--quiet", "--set", "prune.min_games=2"
            ).returncode
            == 0
        )
    refused = joseki("lookup", SEQUENCE, "--out", tmp_path / "club", "--work", work, "--json")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and str(work) in refused.stderr, refused.stderr
    assert "another run" in refused.stderr
    for command in ("games", "trend"):
        assert joseki(command, SEQUENCE, "--out", tmp_path / "club").returncode == 2  # its recorded work folder
    for stage in ("emit", "report"):
        alone = joseki(stage, "--out", tmp_path / "club", "--work", work)
        assert alone.returncode == 2 and "another run" in alone.stderr, alone.stderr
    assert _answer(tmp_path / "pro", work) == clean["pro"]
    assert (
        joseki(
            "mine", two["club"], "--out", tmp_path / "club", "--work", work, "--quiet", "--set", "prune.min_games=2"
        ).returncode
        == 0
    )
    assert _answer(tmp_path / "club", None) == clean["club"]
    assert joseki("lookup", SEQUENCE, "--out", tmp_path / "pro").returncode == 2


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["mine", "ask"]), st.sampled_from(["club", "pro"]), st.booleans()),
        min_size=2,
        max_size=6,
    )
)
def test_two_runs_sharing_a_work_folder_never_mix(two, clean, tmp_path_factory, steps):
    """Mines of two collections into their own output folders and one work
    folder, and queries of either (with --work, or the work folder the tree
    records), in any order: each answer is that of a clean run of its own
    games, or a refusal, exactly when the work folder holds the other
    run's stages (or none)."""
    root = tmp_path_factory.mktemp("interleaved")
    work = root / "W"
    last = None  # whose stages the work folder holds
    mined = set()
    for what, name, given_work in steps:
        out = root / name
        if what == "mine":
            _mine(two[name], out, work)
            last = name
            mined.add(name)
            continue
        if name not in mined:
            continue  # no tree to ask: a plain "no outputs" error, not this law's
        try:
            found = _answer(out, work if given_work else None)
        except lineage.OtherRun:
            assert last != name
        else:
            assert last == name and found == clean[name]
