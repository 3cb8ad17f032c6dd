"""The fast path (compiled kernel, bulk readers, flat trie) against the
reference path (plain Python): byte-identical files on thousands of real
games from every collection, and the same files whatever the number of jobs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from joseki_miner.runs.config import load
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.catalog import STAGES
from helpers import setup_games
from pipeline.run import Request, run_stages

FILES = (
    "interim/games.parquet",
    "interim/rejects.parquet",
    "interim/sequences.parquet",
    "interim/trie.parquet",
    "interim/trie_years.parquet",
    "interim/trie_sources.parquet",
    "interim/trie_positions.parquet",
    "interim/sorted_sequences.parquet",
    "joseki.parquet",
    "node_years.parquet",
    "node_sources.parquet",
    "node_examples.parquet",
    "joseki.sgf",
    "joseki.dot",
    "influence.dot",
)


def _mine(
    paths, out: Path, engine: str, jobs: int = 2, *sets: str, sort_memory: float = 1024, table_memory: float = 256
) -> dict:
    catalog = Catalog(work=out / "interim", out=out)
    return run_stages(
        catalog,
        load(None, ["prune.min_count=3", *sets]),
        STAGES,
        paths,
        Request(progress=False, engine=engine, jobs=jobs, sort_memory=sort_memory, table_memory=table_memory),
    )


def _same(a: Path, b: Path) -> None:
    for name in FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.shared_data
def test_fast_path_equals_reference_on_real_games(real_subset, tmp_path):
    """With the defaults (sequences start within 6 lines of a corner's
    edges; kinds) and noise recognition on: every rule of phase 1 runs."""
    fast = _mine([real_subset], tmp_path / "fast", "fast", 2, "distance.noise=true")
    reference = _mine([real_subset], tmp_path / "reference", "reference", 2, "distance.noise=true")
    assert fast == {**reference, "seconds": fast["seconds"]}
    assert fast["games_accepted"] > 2500  # a real test: thousands of games
    _same(tmp_path / "fast", tmp_path / "reference")


@pytest.mark.shared_data
def test_jobs_and_spilling_do_not_change_the_outputs(real_subset, tmp_path):
    """One job, everything sorted and held in memory; three jobs, the
    sequences spilled as a sorted run once 64 KB are held, and merged with
    the rest into the count, the fingerprints and index lines in mapped
    files whose pages are dropped at every access: the same files
    (test_build spills many runs)."""
    _mine([real_subset], tmp_path / "one", "fast", 1)
    summary = _mine([real_subset], tmp_path / "three", "fast", 3, sort_memory=1 / 16, table_memory=0)
    extract = json.loads((tmp_path / "three" / "interim" / "extract.manifest.json").read_text())
    assert extract["run"]["runs_spilled"] >= 1 and summary["sequences"] == extract["figures"]["sequences"]
    ingest = json.loads((tmp_path / "three" / "interim" / "ingest.manifest.json").read_text())["run"]
    assert ingest["tables_mapped_bytes"] == ingest["tables_bytes"] > 2**20 and ingest["tables_dropped"] > 0
    assert not (tmp_path / "three" / "interim" / "runs").exists()  # the runs are removed, and their folder
    _same(tmp_path / "one", tmp_path / "three")


def test_fast_path_equals_reference_on_the_demo_with_odd_settings(demo_games, tmp_path):
    """Small distances, short caps and a low corner stop exercise every branch
    (tenuki at the cap, joins without starts, early stops)."""
    sets = ("distance.certain=2", "distance.maybe=4", "max_length=6", "corner_stones=5", "influence.reach=9")
    _mine([demo_games], tmp_path / "fast", "fast", 2, *sets)
    _mine([demo_games], tmp_path / "reference", "reference", 1, *sets)
    _same(tmp_path / "fast", tmp_path / "reference")


@pytest.mark.parametrize(
    "sets",
    [
        ("distance.noise=true", "corner.start=4", "prune.follow=0.5"),
        (
            "distance.noise=true",
            "distance.certain=3",
            "corner.start=10",
            "kinds=false",
            "prune.fold_tenuki=false",
            "prune.min_share=0.1",
        ),
    ],
)
def test_fast_path_equals_reference_with_the_future_works_rules(demo_games, tmp_path, sets):
    """Noise recognition, the start region, the pruning function and the
    kinds (on and off), on the demo: the same files from both engines."""
    _mine([demo_games], tmp_path / "fast", "fast", 2, *sets)
    _mine([demo_games], tmp_path / "reference", "reference", 1, *sets)
    _same(tmp_path / "fast", tmp_path / "reference")


@pytest.mark.shared_data
def test_mine_in_one_pass_equals_the_stages_one_by_one(real_subset, tmp_path):
    """``mine`` streams ingest -> extract -> build in memory; each stage run
    alone reads the previous one's Parquet.  Same files either way."""
    streamed = _mine([real_subset], tmp_path / "streamed", "fast")
    catalog = Catalog(work=tmp_path / "staged" / "interim", out=tmp_path / "staged")
    config = load(None, ["prune.min_count=3"])
    for stage in STAGES:  # the build stage spilling sorted runs too
        staged = run_stages(
            catalog,
            config,
            [stage],
            [real_subset] if stage == "ingest" else [],
            Request(progress=False, sort_memory=1 / 4),
        )
    assert staged == {**streamed, "seconds": staged["seconds"]}
    _same(tmp_path / "streamed", tmp_path / "staged")
    manifest = json.loads((tmp_path / "streamed" / "interim" / "build.manifest.json").read_text())
    assert manifest["run"]["streamed"] is True


def _odd_games(folder: Path, later_setup: bool) -> Path:
    """Games that take every branch around the one replay that validates and
    finds sequences: handicap stones, a capture played into again, a move on
    an occupied point, a repeat, a 9x9 game; and, if asked, setup stones
    after the root (read by the Python reader, and rejected)."""
    opening = ";B[pd];W[dp];B[qp];W[dd];B[fq];W[cn];B[jp];W[pj];B[qh];W[qn];B[pn];W[pm];B[on];W[qo]"
    games = {
        "plain.sgf": f"(;GM[1]FF[4]SZ[19]{opening};B[nq];W[rp])",
        "repeat.sgf": f"(;GM[1]FF[4]SZ[19]PB[again]{opening};B[nq];W[rp])",
        "handicap.sgf": "(;GM[1]FF[4]SZ[19]HA[2]AB[pd][dp];W[dd];B[qp];W[fq];B[cn];W[jp];B[pj];W[qh];B[qn])",
        # white captures the black stone at aa, then black plays there again
        "capture.sgf": f"(;GM[1]FF[4]SZ[19]{opening};B[aa];W[ba];B[pp];W[ab];B[oo];W[pq];B[aa])",
        "occupied.sgf": f"(;GM[1]FF[4]SZ[19]{opening};B[pd])",
        # every corner holds 3 stones at W[ee] (corner_stones=3 below): the
        # move on an occupied point comes after phase 1 stops, as does the
        # capture game's play into its captured point
        "late-occupied.sgf": f"(;GM[1]FF[4]SZ[19]{opening};B[cc];W[ee];B[nq];B[pd])",
        "small.sgf": "(;GM[1]FF[4]SZ[9];B[ee];W[cc];B[gg])",
    }
    if later_setup:
        games["setup-later.sgf"] = f"(;GM[1]FF[4]SZ[19]{opening};AB[cc]AW[qq];B[oc])"
    folder.mkdir()
    for name, text in games.items():
        (folder / name).write_text(text)
    return folder


@pytest.mark.parametrize("later_setup", [False, True])
def test_fast_path_equals_reference_on_odd_games(tmp_path, later_setup):
    games = _odd_games(tmp_path / "games", later_setup)
    sets = ("include_handicap=true", "prune.min_count=1", "min_length=1", "corner_stones=3")
    fast = _mine([games], tmp_path / "fast", "fast", 2, *sets)
    reference = _mine([games], tmp_path / "reference", "reference", 1, *sets)
    assert fast == {**reference, "seconds": fast["seconds"]}
    later = {"setup stones after the root": 1} if later_setup else {}
    assert fast["games_rejected"] == {"duplicate": 1, "move on an occupied point": 2, "not 19x19": 1, **later}
    _same(tmp_path / "fast", tmp_path / "reference")


@pytest.mark.parametrize("include_handicap", [False, True])
def test_setup_stones_that_are_not_a_handicaps_leave_their_game_out_in_both_engines(tmp_path, include_handicap):
    """Each such game is rejected with its reason and counted in the
    summary (games read = accepted + rejected), by the same bytes in both
    engines; with handicaps read, a handicap game with white setup stones
    is one of them, its own black stones alone are a handicap."""
    games = setup_games(tmp_path / "games")
    sets = (f"include_handicap={str(include_handicap).lower()}", "prune.min_count=1", "min_length=1")
    fast = _mine([games], tmp_path / "fast", "fast", 2, *sets)
    reference = _mine([games], tmp_path / "reference", "reference", 1, *sets)
    assert fast == {**reference, "seconds": fast["seconds"]}
    _same(tmp_path / "fast", tmp_path / "reference")
    handicap = {"setup stones": 4} if include_handicap else {"handicap": 2, "setup stones": 3}
    assert fast["games_rejected"] == {**handicap, "setup stones after the root": 2}
    assert (
        fast["games_read"] == 9 == fast["games_accepted"] + fast["games_rejected_total"] + fast["games_filtered_total"]
    )
    assert fast["games_accepted"] == (3 if include_handicap else 2)
    import pyarrow.parquet as pq

    rejects = {
        (Path(r["source"]).name, r["location"]): (r["reason"], r["detail"])
        for r in pq.read_table(tmp_path / "fast" / "interim" / "rejects.parquet").to_pylist()
    }
    assert rejects[("position.sgf", "")] == ("setup stones", "2 black and 2 white setup stones")
    assert rejects[("white.sgf", "")] == ("setup stones", "1 white setup stone")
    assert rejects[("later.sgf", "")] == ("setup stones after the root", "AB after move 8")
    assert rejects[("collection.sgf", "game 2")] == ("setup stones after the root", "AE after move 2")
    if include_handicap:
        assert rejects[("handicap-white.sgf", "")] == ("setup stones", "handicap 2: 2 black and 1 white setup stones")


def test_a_concatenated_collection_keeps_both_games_in_both_engines(tmp_path):
    """tests/fixtures/readers/concatenated.sgf (a UTF-8 game, then a
    Shift_JIS game whose root has no ';'): both games accepted with their
    names, by the same bytes in both engines."""
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "concatenated.sgf").write_bytes(
        (Path(__file__).parent / "fixtures/readers/concatenated.sgf").read_bytes()
    )
    sets = ("prune.min_count=1", "min_length=1")
    fast = _mine([folder], tmp_path / "fast", "fast", 2, *sets)
    reference = _mine([folder], tmp_path / "reference", "reference", 1, *sets)
    assert fast == {**reference, "seconds": fast["seconds"]}
    _same(tmp_path / "fast", tmp_path / "reference")
    assert fast["games_accepted"] == 2 and fast["games_rejected_total"] == 0
    import pyarrow.parquet as pq

    games = pq.read_table(tmp_path / "fast" / "interim" / "games.parquet", columns=["location", "PB", "PW"])
    assert games.to_pylist() == [
        {"location": "game 1", "PB": "井山裕太", "PW": "柯洁"},
        {"location": "game 2", "PB": "張栩", "PW": "山下敬吾"},
    ]


def test_duplicates_name_their_first_game_across_batches(tmp_path, monkeypatch):
    """Batches of three games: a repeat whose first game is in an earlier
    batch or in its own, and a repeat of a repeat, name the first game as
    the reference does; so do repeats whose first games lie in different
    earlier batches, one after the other (where each game was read is read
    back from disk a batch at a time)."""
    import functools

    from joseki_miner.stages import ingest
    from joseki_miner.readers import bulk

    monkeypatch.setattr(bulk, "UNITS_A_SCAN", 3)
    monkeypatch.setattr(ingest, "read_batches", functools.partial(bulk.read_batches, games=3))
    firsts = ["pd", "pe", "qd", "qe", "oc", "od"]
    # game 5 repeats 4 (its own batch), 6 repeats 0 (an earlier one), 9 and 10 repeat 1 and 3 (two earlier ones)
    order = [0, 1, 2, 3, 4, 4, 0, 5, 1, 1, 3]
    folder = tmp_path / "games"
    folder.mkdir()
    for i, g in enumerate(order):
        (folder / f"g{i:02d}.sgf").write_text(f"(;GM[1]FF[4]SZ[19];B[{firsts[g]}];W[dp];B[qp];W[dd];B[fq])")
    fast = _mine([folder], tmp_path / "fast", "fast", 2, "prune.min_count=1")
    reference = _mine([folder], tmp_path / "reference", "reference", 1, "prune.min_count=1")
    assert fast == {**reference, "seconds": fast["seconds"]}
    assert fast["games_rejected"] == {"duplicate": 5}
    _same(tmp_path / "fast", tmp_path / "reference")
    import pyarrow.parquet as pq

    rejects = pq.read_table(tmp_path / "fast" / "interim" / "rejects.parquet").to_pylist()
    assert [(Path(r["source"]).name, Path(r["detail"].removeprefix("same moves as ")).name) for r in rejects] == [
        ("g05.sgf", "g04.sgf"),
        ("g06.sgf", "g00.sgf"),
        ("g08.sgf", "g01.sgf"),
        ("g09.sgf", "g01.sgf"),
        ("g10.sgf", "g03.sgf"),
    ]


def test_without_dedupe_every_repeat_is_kept_and_counted(tmp_path):
    """``dedupe: false``: a game read twice is stored and counted twice, the
    same in both engines, and no log of where games were read is kept."""
    folder = tmp_path / "games"
    folder.mkdir()
    for i, first in enumerate(["pd", "pd", "qd", "pd"]):
        (folder / f"g{i}.sgf").write_text(f"(;GM[1]FF[4]SZ[19];B[{first}];W[dp];B[qp];W[dd];B[fq])")
    fast = _mine([folder], tmp_path / "fast", "fast", 2, "dedupe=false", "prune.min_count=1")
    reference = _mine([folder], tmp_path / "reference", "reference", 1, "dedupe=false", "prune.min_count=1")
    assert fast == {**reference, "seconds": fast["seconds"]}
    assert fast["games_accepted"] == 4 and fast["games_rejected_total"] == 0
    _same(tmp_path / "fast", tmp_path / "reference")
    import pyarrow.parquet as pq

    sequences: dict[int, list] = {}
    for row in pq.read_table(tmp_path / "fast" / "interim" / "sequences.parquet").to_pylist():
        sequences.setdefault(row["game"], []).append((row["moves"], row["scores"]))
    assert sequences[0] and sequences[0] == sequences[1] == sequences[3] != sequences[2]  # g0, g1, g3 alike
    assert not list((tmp_path / "fast" / "interim").glob("*.wheres"))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmPeak from /proc/self/status (Linux)")
def test_a_game_of_millions_of_moves_does_not_reserve_memory_by_its_moves(tmp_path):
    """The kernel's per-game sequence rows are bounded by the points of the
    board, not by the game's moves: a kifu line of 3 million moves (12 MB,
    a few KB zipped) reserved 2 GB of address space, one of 100 million
    (within limits.member_mb) failed the whole run with a MemoryError."""
    import subprocess
    import sys

    script = """
import numpy as np, re
from joseki_miner.fast import kernel
from joseki_miner.method.sequences import Phase1Params

def peak():
    return int(re.search(r"VmPeak:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) << 10

def run(n):
    colours = np.where(np.arange(n) % 2, 1, -1).astype(np.int8)
    points = np.full(n, -1, np.int16)
    points[0] = 60
    none = np.zeros(0, np.int8), np.zeros(0, np.int16), np.zeros(2, np.int64)
    kernel.validate_and_extract((colours, points, np.array([0, n]), *none), params=Phase1Params(),
                                todo=np.ones(1, bool))

run(10)
before = peak()
run(3_000_000)
print(peak() - before)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 200 << 20  # the moves themselves are 9 MB
