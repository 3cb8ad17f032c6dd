"""The dask engine: partitions mined on worker processes (a LocalCluster
over TCP on loopback) and joined give the files of ``--engine fast --jobs 1``
byte for byte; duplicates across partitions are resolved as one reading
resolves them; ``--add`` reads only the new games; a worker killed mid-run
is replaced and its partition mined again."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import files_of, rows_of, setup_games
from hypothesis import given, settings
from hypothesis import strategies as st

from joseki_miner.cluster.client import Options
from joseki_miner.runs.config import load
from joseki_miner.cluster.partitions import Settings, plan, subtrees
from joseki_miner.method.points import DEEP_END
from joseki_miner.stages.params import Reading
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.catalog import STAGES
from pipeline.run import Request, run_stages

pytest.importorskip("distributed", reason="the dask engine needs dask's distributed (make setup installs it)")


def mine(
    paths,
    folder: Path,
    engine: str = "fast",
    *,
    add: bool = False,
    cluster: Options | None = None,
    sets=(),
    strict: bool = False,
) -> dict:
    catalog = Catalog(work=folder / "work", out=folder / "out")
    return run_stages(
        catalog,
        load(None, list(sets)),
        STAGES,
        list(paths),
        Request(
            progress=False,
            engine=engine,
            jobs=1,
            cluster=cluster or Options(workers=2, partition_mb=0.25),
            add=add,
            strict=strict,
        ),
    )


def manifest_run(folder: Path) -> dict:
    import json

    return json.loads((folder / "work" / "ingest.manifest.json").read_text())["run"]


SGF = "(;GM[1]FF[4]SZ[19]PB[{b}]PW[{w}]DT[2010-01-0{d}]RE[B+R];B[pd];W[dp];B[pq];W[dd];B[fc];W[cf]{tail})"


def _game(folder: Path, name: str, tail: str, d: int = 1) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(SGF.format(b=name, w="w", d=d, tail=tail))


@settings(max_examples=200, deadline=None)
@given(counts=st.dictionaries(st.integers(0, 362), st.integers(1, 50), max_size=12), parts=st.integers(1, 6))
def test_subtree_ranges_cover_every_first_key_in_order_with_the_smallest_largest_range(counts, parts):
    """At most ``parts`` ranges, in key order, one after the other from 0
    to DEEP_END (every key, sampled or not, in one of them); no way to
    cut the keys into ``parts`` runs has a smaller largest run."""
    import itertools

    ranges = subtrees(counts, parts)
    assert 1 <= len(ranges) <= parts
    assert all(lo < hi for lo, hi in ranges) and all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    assert ranges[0][0] == 0 and ranges[-1][1] == DEEP_END
    keys = sorted(counts)
    assert [k for k in keys if any(lo <= k < hi for lo, hi in ranges)] == keys
    largest = max((sum(n for k, n in counts.items() if lo <= k < hi) for lo, hi in ranges), default=0)
    best = max(counts.values(), default=0)
    if keys:
        best = min(
            max(sum(counts[k] for k in keys[a:b]) for a, b in zip((0, *cut), (*cut, len(keys))))
            for n in range(min(parts, len(keys)))
            for cut in itertools.combinations(range(1, len(keys)), n)
        )
    assert largest == best


def test_the_driver_plans_partitions_and_subtrees_without_the_compiled_engine(demo_games, tmp_path):
    """The dask engine's driver (the serial part of a run) imports the
    CLI and the stages, plans the partitions and the subtrees and names
    the stages' tasks without loading numba or the compiled engine: their imports
    alone cost a fifth of its CPU (the workers load them)."""
    import subprocess
    import sys

    code = f"""
import sys
from pathlib import Path
import pipeline.cli, pipeline.run
from joseki_miner.stages.params import floor_for
from joseki_miner.runs.catalog import STAGES
from joseki_miner.cluster.client import Options
from joseki_miner.runs.config import load
from joseki_miner.runs.catalog import Catalog
run = pipeline.run._Run(Catalog(work=Path({str(tmp_path / "w")!r}), out=Path({str(tmp_path / "o")!r})), load(None, []),
                        STAGES, [{str(demo_games)!r}],
                        pipeline.run.Request(progress=False, engine="dask", jobs=1, sort_memory=1, table_memory=1,
                                             cluster=Options(partition_mb=0.001)), print)
run.inputs_known(None)  # the inputs walked and hashed, as a dask run does before it plans
settings, parts, skipped = run.engine.runner.plan(run.context("ingest"), run.digests())
assert len(parts) > 1, parts
from joseki_miner.cluster import partitions
assert partitions.subtrees({{1: 5, 40: 3, 361: 2}}, 2) == [(0, 40), (40, partitions.DEEP_END)]
assert partitions.ranges_for(10**6, 2) == 50
run.figures.update(ingest={{}}, prune={{}})  # as the stages before left them
import joseki_miner.stages.emit, joseki_miner.stages.report  # the work of the stages the driver sends as one task
from joseki_miner.book import files
files.of_run(run.context("report")), floor_for(1000, load(None, []))
print(sorted(m for m in ("numba", "pandas", "joseki_miner.fast.kernel", "joseki_miner.stages.build", "joseki_miner.stages.ingest",
                         "joseki_miner.stages.extract", "joseki_miner.fast.fasttrie", "joseki_miner.fast.fingerprints")
             if m in sys.modules))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_dask_runs_driver_never_loads_numba(demo_games, tmp_path):
    """A whole dask run leaves numba to the workers: the driver's listener
    for the compile notice is installed only where kernels run in its own
    process.  (Importing numba while the cluster's thread imported dask,
    both reaching importlib.resources, could end the run in CPython's
    _DeadlockError.)"""
    import subprocess
    import sys

    code = f"""
import sys
from pathlib import Path
from pipeline.run import Request, run_stages
from joseki_miner.cluster.client import Options
from joseki_miner.runs.catalog import STAGES, Catalog
from joseki_miner.runs.config import load
catalog = Catalog(work=Path({str(tmp_path / "w")!r}), out=Path({str(tmp_path / "o")!r}))
run_stages(catalog, load(None, []), STAGES, [Path({str(demo_games)!r})],
           Request(progress=False, engine="dask", cluster=Options(workers=1)), log=lambda s: None)
print("numba" in sys.modules, (catalog.out / "joseki.sgf").exists())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False True"


def test_a_warmed_worker_leaves_what_it_holds_for_good_out_of_the_collectors_passes():
    """``warm`` freezes the modules and dask's own objects of a worker of
    the run's own cluster (``gc.freeze``): a full pass of the cyclic
    collector walked them all, about 0.1 s on this machine, in whatever
    task set it off."""
    import gc

    from distributed import Client, LocalCluster

    from joseki_miner.cluster.client import warm

    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as local,
        Client(local) as client,
    ):
        assert list(client.run(gc.get_freeze_count).values()) == [0]
        client.run(warm)  # a worker of a cluster of one's own: not the run's to freeze
        assert list(client.run(gc.get_freeze_count).values()) == [0]
        client.run(warm, freeze=True)
        assert list(client.run(gc.get_freeze_count).values())[0] > 10_000


def test_setup_stones_and_a_concatenated_collection_read_on_the_workers_as_in_one_reading(tmp_path):
    """Games whose setup stones are not a handicap's, with handicaps read,
    and the concatenated collection of a UTF-8 and a Shift_JIS game: the
    dask engine rejects each setup game with the fast engine's reason and
    detail, keeps both games of the collection, and writes the same files."""
    games = setup_games(tmp_path / "games")
    fixture = Path(__file__).parent / "fixtures" / "readers" / "concatenated.sgf"
    (games / "concatenated.sgf").write_bytes(fixture.read_bytes())
    sets = ("include_handicap=true", "prune.min_count=1", "min_length=1")
    fast = mine([games], tmp_path / "fast", sets=sets)
    dask = mine([games], tmp_path / "dask", "dask", sets=sets)
    assert fast["games_rejected"] == dask["games_rejected"] == {"setup stones": 4, "setup stones after the root": 2}
    assert fast["games_accepted"] == dask["games_accepted"] == 5
    for name in ("games.parquet", "rejects.parquet"):
        assert rows_of(tmp_path / "dask" / "work" / name) == rows_of(tmp_path / "fast" / "work" / name), name
    book = [(tmp_path / engine / "out" / "joseki.sgf").read_bytes() for engine in ("dask", "fast")]
    assert book[0] == book[1]


def test_duplicates_across_partitions_are_those_of_one_reading(tmp_path):
    """A game repeated in a later partition, and repeated twice there (the
    second names the first partition's game, as one reading names it), a
    game repeated within a partition, and the games kept numbered in
    order: the same games.parquet and rejects.parquet as the fast engine."""
    games = tmp_path / "games"
    _game(games / "a", "1.sgf", ";B[qk]")
    _game(games / "a", "2.sgf", ";B[ck]")
    _game(games / "b", "3.sgf", ";B[qk]", 2)  # repeats a/1
    _game(games / "b", "4.sgf", ";B[qk]", 3)  # repeats a/1 (and b/3)
    _game(games / "b", "5.sgf", ";B[kc]")
    _game(games / "b", "6.sgf", ";B[kc]")  # repeats b/5
    _game(games / "c", "7.sgf", ";B[ck]")  # repeats a/2
    paths = [games / "a", games / "b", games / "c"]
    mine(paths, tmp_path / "fast")
    mine(paths, tmp_path / "dask", "dask")
    assert manifest_run(tmp_path / "dask")["partitions"] == 3
    import pyarrow.parquet as pq

    rejects = pq.read_table(tmp_path / "dask" / "work" / "rejects.parquet").to_pylist()
    assert [(Path(r["source"]).name, r["detail"].rsplit("/", 1)[-1]) for r in rejects] == [
        ("3.sgf", "1.sgf"),
        ("4.sgf", "1.sgf"),
        ("6.sgf", "5.sgf"),
        ("7.sgf", "2.sgf"),
    ]
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


def test_duplicates_are_found_before_the_filters_on_every_engine(tmp_path):
    """One order for duplicates and filters: a game that repeats one the
    filters left out is a duplicate (named by where the first was read), in
    a partition or across partitions, so a filtered mine keeps exactly the
    games the same filter selects from an unfiltered one; every engine
    gives the same files."""
    import pyarrow.parquet as pq

    from joseki_miner.runs.inputs import Filters

    games = tmp_path / "games"
    year = {"1": 2002, "2": 2006, "3": 2006, "4": 2002, "5": 2006, "6": 2002, "7": 2002, "8": 2001, "9": 2007}
    tails = {
        "1": ";B[qk]",
        "2": ";B[ck]",
        "3": ";B[qk]",
        "4": ";B[ck]",
        "5": ";B[kc]",
        "6": ";B[ck]",
        "7": ";B[kc]",
        "8": ";B[jj]",
        "9": ";B[jj]",
    }
    folder = {"1": "a", "2": "a", "3": "b", "4": "b", "5": "b", "6": "b", "7": "c", "8": "c", "9": "c"}
    for n, tail in tails.items():
        (games / folder[n]).mkdir(parents=True, exist_ok=True)
        (games / folder[n] / f"{n}.sgf").write_text(
            SGF.replace("2010-01-0{d}", str(year[n])).format(b=n, w="w", tail=tail)
        )
    paths = [games / "a", games / "b", games / "c"]
    years = "filter.years=[2005,2010]"
    for engine in ("reference", "fast", "dask"):
        mine(paths, tmp_path / engine, engine, sets=[years])
    mine(paths, tmp_path / "all")
    assert manifest_run(tmp_path / "dask")["partitions"] == 3
    work = tmp_path / "fast" / "work"
    rejects = pq.read_table(work / "rejects.parquet").to_pylist()
    assert [(Path(r["source"]).name, r["detail"].rsplit("/", 1)[-1]) for r in rejects] == [
        ("3.sgf", "1.sgf"),
        ("4.sgf", "2.sgf"),
        ("6.sgf", "2.sgf"),
        ("7.sgf", "5.sgf"),
        ("9.sgf", "8.sgf"),
    ]
    kept = pq.read_table(work / "games.parquet", columns=["PB"]).column("PB").to_pylist()
    assert kept == ["2", "5"]  # 1 and 8 are filtered (2002, 2001); 3 and 9 repeat them
    figures = json.loads((work / "ingest.manifest.json").read_text())["figures"]
    assert (
        figures["games_read"]
        == 9
        == figures["games_accepted"] + sum(figures["games_rejected"].values()) + sum(figures["games_filtered"].values())
    )
    from joseki_miner.book.compare import side_games

    selected = side_games(tmp_path / "all" / "work" / "games.parquet", Filters.of(load(None, [years])))[0]
    assert int(selected.sum()) == len(kept)
    for engine in ("reference", "dask"):
        assert files_of(tmp_path / engine) == files_of(tmp_path / "fast"), engine


def test_a_folder_without_games_mines_as_on_the_fast_engine(tmp_path):
    """No partitions at all (an empty folder), or one of no games (a file
    that holds none): the same files as the fast engine, an empty tree, not
    an error."""
    games = tmp_path / "games"
    games.mkdir()
    fast = mine([games], tmp_path / "fast")
    dask = mine([games], tmp_path / "dask", "dask")
    assert dask["games_read"] == fast["games_read"] == 0
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")
    (games / "readme.txt").write_text("no games here")
    fast = mine([games], tmp_path / "fast")
    dask = mine([games], tmp_path / "dask", "dask")
    assert dask["games_read"] == fast["games_read"] == 0
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


def test_a_partition_never_spans_two_paths_and_takes_its_collections_indexes(tmp_path):
    (tmp_path / "tom").mkdir()
    (tmp_path / "tom" / "Kifu.index").write_text("")
    for name in ("2001-01", "2001-02"):
        (tmp_path / "tom" / name).write_text("x" * 1000)
    (tmp_path / "kgs").mkdir()
    (tmp_path / "kgs" / "a.sgf").write_text("(;)")
    settings = Settings((str(tmp_path / "tom"), str(tmp_path / "kgs")), Reading(table_memory=0), None, "k")
    parts = plan([tmp_path / "tom", tmp_path / "kgs"], settings, {}, target_bytes=1000)
    assert [[Path(f).name for f in p.files] for p in parts] == [["2001-01"], ["2001-02"], ["Kifu.index"], ["a.sgf"]]
    assert [[Path(f).name for f in p.indexes] for p in parts] == [["Kifu.index"], ["Kifu.index"], [], []]
    assert len({p.key for p in parts}) == 4


@pytest.mark.shared_data
def test_an_archive_larger_than_a_partition_is_mined_in_parts_of_its_members(real_subset, tmp_path):
    """One big archive is not one partition on one worker: a tar (or a zip
    of many members) larger than a partition is cut into parts of its
    members, each a partition of its own, and the files are still those of
    one reading: the ai tarball's index members, read by every part, serve
    the kifu of whichever part holds them; a zip of one member (a Tygem
    month) is cut in runs of its games."""
    settings = Settings((str(real_subset),), Reading(table_memory=0), None, "k")
    target = 50_000
    parts = plan([real_subset], settings, {}, target_bytes=target)
    split: dict[str, dict] = {"part": {}, "rows": {}}
    for p in parts:
        for how in split:
            if getattr(p, how)[1] > 1:
                split[how].setdefault(p.files, []).append(getattr(p, how))
    names = {how: {Path(files[0]).name for files in cut} for how, cut in split.items()}
    assert {"ai.tar.gz", "kifu.tar.gz", "KGS-2017_02.tar.gz"} <= names["part"] and names["rows"] == {"2011-09.zip"}
    for files, cut in [*split["part"].items(), *split["rows"].items()]:
        assert len(files) == 1 and cut == [(k, len(cut)) for k in range(len(cut))], (files, cut)
    assert len({p.key for p in parts}) == len(parts)
    fast = mine([real_subset], tmp_path / "fast")
    dask = mine([real_subset], tmp_path / "dask", "dask", cluster=Options(workers=2, partition_mb=target / 2**20))
    assert dask["games_accepted"] == fast["games_accepted"] > 2500
    assert manifest_run(tmp_path / "dask")["partitions"] == len(parts)
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


@pytest.mark.parametrize("container, parts", [("zip", 2), ("zip", 3), ("plain", 3)])
def test_a_kifu_month_larger_than_a_partition_is_mined_in_runs_of_its_games(tmp_path, container, parts):
    """A kifu month (most of a zip, beside a member that is no game, or a
    file of its own) larger than a partition is cut in runs of its lines,
    not by the zip's members (two parts of two members would leave the
    month whole): each part reads the month and replays its own games, and
    the games, the broken lines and the member skipped are said once, in
    the order of one reading."""
    from helpers import make_zip
    from test_readers_kifu import TOM_INDEX, TOM_KIFU

    lines = TOM_KIFU.splitlines(keepends=True)
    a = "abcdefghijklmnopqrs"
    month = "".join(f"{1001 + i}\t;B[{a[i % 19]}d];W[{a[i // 19]}q]\n" for i in range(60))
    month = (month + "".join(lines[2:])).encode()  # games, then a blank line, broken lines and games of no index
    games = tmp_path / "games"
    (games / "kifu").mkdir(parents=True)
    (games / "Kifu.index").write_text(TOM_INDEX, encoding="utf-8")
    if container == "zip":
        (games / "kifu" / "2003-09.zip").write_bytes(make_zip({"2003-09": month, "read me.txt": b"see the games"}))
    else:
        (games / "kifu" / "2003-09").write_bytes(month)
    size = sum(f.stat().st_size for f in (games / "kifu").iterdir())
    settings = Settings((str(games),), Reading(table_memory=0), None, "k")
    cut = plan([games], settings, {}, target_bytes=size // parts)
    assert [p.rows for p in cut if p.files[0].endswith(("2003-09", ".zip"))] == [(k, parts) for k in range(parts)]
    fast = mine([games], tmp_path / "fast")
    dask = mine([games], tmp_path / "dask", "dask", cluster=Options(workers=2, partition_mb=size / parts / 2**20))
    assert fast["games_accepted"] >= 60 and fast["games_rejected"]
    for figure in ("games_read", "games_rejected", "files_skipped"):
        assert dask[figure] == fast[figure], figure
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


def test_a_damaged_archive_in_parts_gives_each_member_and_its_error_once(tmp_path):
    """A tar cut short, in parts: each game, each member that is no game
    and the archive's damage are said once, by one part, as one reading
    says them; a game that repeats one of an earlier part is its duplicate."""
    import io
    import tarfile

    games = tmp_path / "games"
    games.mkdir()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for i in range(40):
            text = (
                b"see the games"
                if i == 7
                else SGF.format(
                    b=f"b{i % 30}", w="w", d=1 + i % 9, tail=f";B[{'abcdefghijklmnopqrs'[i % 19]}k]"
                ).encode()
            )
            info = tarfile.TarInfo(f"games/{i:03d}.{'txt' if i == 7 else 'sgf'}")
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text))
    data = buffer.getvalue()
    (games / "all.tar").write_bytes(data[: len(data) * 3 // 4 + 100])  # cut inside a member
    settings = Settings((str(games),), Reading(table_memory=0), None, "k")
    parts = plan([games], settings, {}, target_bytes=len(data) // 4)
    assert [p.part for p in parts] == [(k, 3) for k in range(3)]
    fast = mine([games], tmp_path / "fast")
    dask = mine([games], tmp_path / "dask", "dask", cluster=Options(workers=2, partition_mb=len(data) / 4 / 2**20))
    assert manifest_run(tmp_path / "dask")["partitions"] == 3
    assert fast["games_rejected"].get("duplicate") and fast["games_rejected"].get("unreadable archive member")
    assert (dask["games_read"], dask["games_rejected"]) == (fast["games_read"], fast["games_rejected"])
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


def test_a_zip_in_parts_says_each_member_and_its_damage_once(tmp_path):
    """A zip of many games, one member damaged (its bytes fail their CRC)
    and one no game, in parts: each part inflates its own members, and the
    games, the damaged member and the member that is no game are said once,
    as one reading says them."""
    import zipfile

    from helpers import make_zip

    members = {
        f"games/{i:03d}.{'txt' if i == 7 else 'sgf'}": b"see the games"
        if i == 7
        else SGF.format(b=f"b{i % 30}", w="w", d=1 + i % 9, tail=f";B[{'abcdefghijklmnopqrs'[i % 19]}k]").encode()
        for i in range(40)
    }
    data = bytearray(make_zip(members))
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("games/020.sgf")
    data[info.header_offset + 30 + len(info.filename) + len(info.extra) + 3] ^= 0xFF  # inside its deflated bytes
    games = tmp_path / "games"
    games.mkdir()
    (games / "all.zip").write_bytes(bytes(data))
    settings = Settings((str(games),), Reading(table_memory=0), None, "k")
    assert len(plan([games], settings, {}, target_bytes=len(data) // 3)) == 3
    fast = mine([games], tmp_path / "fast")
    dask = mine([games], tmp_path / "dask", "dask", cluster=Options(workers=2, partition_mb=len(data) / 3 / 2**20))
    assert manifest_run(tmp_path / "dask")["partitions"] == 3
    assert fast["games_rejected"].get("duplicate") and fast["games_rejected"].get("unreadable archive member") == 1
    assert (dask["games_read"], dask["games_rejected"]) == (fast["games_read"], fast["games_rejected"])
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


def _flagged(data: bytes, name: str, bits: int) -> bytes:
    """A zip with ``bits`` set among the flags of member ``name``, in its
    local header and in the central directory."""
    import struct
    import zipfile

    out = bytearray(data)
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(name)
    struct.pack_into("<H", out, info.header_offset + 6, info.flag_bits | bits)
    at = out.find(b"PK\x01\x02")
    while at >= 0:
        length = struct.unpack_from("<H", out, at + 28)[0]
        if out[at + 46 : at + 46 + length] == name.encode():
            struct.pack_into("<H", out, at + 8, info.flag_bits | bits)
        at = out.find(b"PK\x01\x02", at + 4)
    return bytes(out)


@pytest.mark.parametrize("case", ["a game member", "an index member before the part"])
def test_a_zip_member_zipfile_refuses_is_refused_in_parts_too(tmp_path, case):
    """A member flagged "compressed patched data" (0x20), which zipfile
    will not read: one reading rejects it (a zip without the .zip suffix
    is read by zipfile) or, for an index before a part's kifu games, never
    loads it; the parts of the zip do the same, whatever path reads them."""
    from helpers import make_zip
    from test_readers_kifu import TYGEM_INDEX, TYGEM_KIFU

    games = {
        f"g/{i:02d}.sgf": SGF.format(b=f"b{i}", w="w", d=1 + i % 9, tail=f";B[{'abcdefghij'[i % 10]}k]").encode()
        for i in range(12)
    }
    folder = tmp_path / "games"
    folder.mkdir()
    if case == "a game member":
        data = _flagged(make_zip(games), "g/09.sgf", 0x20)
        (folder / "games.dat").write_bytes(data)
    else:
        data = _flagged(
            make_zip({"t/index/Kifu2011.txt": TYGEM_INDEX.encode(), **games, "t/kifu/2011-01": TYGEM_KIFU}),
            "t/index/Kifu2011.txt",
            0x20,
        )
        (folder / "tygem.zip").write_bytes(data)
    fast = mine([folder], tmp_path / "fast")
    mine([folder], tmp_path / "dask", "dask", cluster=Options(workers=2, partition_mb=len(data) / 3 / 2**20))
    assert manifest_run(tmp_path / "dask")["partitions"] == 3
    if case == "a game member":
        assert fast["games_rejected"].get("unreadable archive member") == 1
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


def test_an_index_found_by_its_content_before_a_partition_names_its_players(tmp_path):
    """An index in Tygem's index folder without the .index suffix: one
    reading adds it as it meets it, before the kifu after it; a partition
    of those kifu, the index outside it, adds it too."""
    import pyarrow.parquet as pq
    from test_readers_kifu import TYGEM_INDEX, TYGEM_KIFU

    games = tmp_path / "games"
    for folder in ("index", "kifu", "sgf"):
        (games / folder).mkdir(parents=True)
    (games / "index" / "Kifu2011.txt").write_text(TYGEM_INDEX)
    (games / "kifu" / "2011-01").write_bytes(TYGEM_KIFU)
    for i in range(6):
        (games / "sgf" / f"{i}.sgf").write_text(SGF.format(b=f"b{i}", w="w", d=1 + i, tail=f";B[{'abcdef'[i]}k]"))
    mine([games], tmp_path / "fast")
    mine([games], tmp_path / "dask", "dask", cluster=Options(workers=2, partition_mb=200 / 2**20))
    assert manifest_run(tmp_path / "dask")["partitions"] > 2
    players = pq.read_table(tmp_path / "fast" / "work" / "games.parquet", columns=["PW"]).column(0).to_pylist()
    assert "흑돌이" in players
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


@pytest.mark.parametrize("container", ["tar.gz", "zip"])
def test_a_part_knows_the_kifu_indexes_of_the_members_before_it(tmp_path, container):
    """A whole reading of an archive learns kifu indexes as it meets them
    (here in a zip inside the tar or zip, in Tygem's layout, which the
    pre-pass does not open): a part that starts after them knows them too.
    A part of a zip inflates its own members, and of those before it only
    their first bytes unless they may hold an index."""
    import io
    import tarfile

    from helpers import make_zip
    from test_readers_kifu import TYGEM_INDEX, TYGEM_KIFU

    members = [("tygem/index/Kifu2011.zip", make_zip({"Kifu2011.index": TYGEM_INDEX.encode()}))]
    members += [
        (f"tygem/sgf/{i:02d}.sgf", SGF.format(b=f"b{i}", w="w", d=1 + i % 9, tail=f";B[{'abcdefghij'[i]}k]").encode())
        for i in range(10)
    ]
    members += [("tygem/kifu/2011-01", TYGEM_KIFU)]
    buffer = io.BytesIO()
    if container == "zip":
        buffer.write(make_zip(dict(members)))
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            for name, data in members:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    games = tmp_path / "games"
    games.mkdir()
    (games / f"tygem.{container}").write_bytes(buffer.getvalue())
    size = len(buffer.getvalue())
    settings = Settings((str(games),), Reading(table_memory=0), None, "k")
    assert [p.part for p in plan([games], settings, {}, target_bytes=size // 3)] == [(k, 3) for k in range(3)]
    fast = mine([games], tmp_path / "fast")
    mine([games], tmp_path / "dask", "dask", cluster=Options(workers=2, partition_mb=size / 3 / 2**20))
    assert manifest_run(tmp_path / "dask")["partitions"] == 3 and fast["games_accepted"] == 13
    import pyarrow.parquet as pq

    players = pq.read_table(tmp_path / "fast" / "work" / "games.parquet", columns=["PW"]).column(0).to_pylist()
    assert "흑돌이" in players  # the index served the kifu games
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


def test_a_partition_reads_the_indexes_around_it_in_the_reading_order(tmp_path):
    """Two kifu indexes of one scope name a game's players differently:
    one reading reads them in order and the last one read wins; a partition
    that holds the kifu and the later index, the earlier one lying outside
    it, reads the earlier one first too, and gives the same files."""
    import pyarrow.parquet as pq
    from test_readers_kifu import TYGEM_INDEX, TYGEM_KIFU

    kifu = tmp_path / "games" / "kifu"
    kifu.mkdir(parents=True)
    (kifu / "a.index").write_text(TYGEM_INDEX)
    (kifu / "m2011").write_bytes(TYGEM_KIFU)
    (kifu / "z.index").write_text(TYGEM_INDEX.replace("흑돌이", "later"))
    size = (kifu / "a.index").stat().st_size
    settings = Settings((str(tmp_path / "games"),), Reading(table_memory=0), None, "k")
    parts = plan([tmp_path / "games"], settings, {}, target_bytes=size)
    assert [([Path(f).name for f in p.files], [Path(f).name for f in p.indexes], p.indexes_before) for p in parts] == [
        (["a.index"], ["z.index"], 0),
        (["m2011", "z.index"], ["a.index"], 1),
    ]
    mine([tmp_path / "games"], tmp_path / "fast")
    mine([tmp_path / "games"], tmp_path / "dask", "dask", cluster=Options(workers=2, partition_mb=size / 2**20))
    assert pq.read_table(tmp_path / "fast" / "work" / "games.parquet", columns=["PW"]).column(0)[0].as_py() == "later"
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


@pytest.mark.shared_data
def test_dask_engine_gives_the_fast_engines_files_on_real_games(real_subset, tmp_path):
    """Thousands of real games of every collection (SGF in tars, kifu with
    Tom's and Tygem's indexes, the ai tarball), in partitions of a quarter
    MB on two worker processes: every file of the work and output folders
    the same bytes as one process gives."""
    fast = mine([real_subset], tmp_path / "fast")
    dask = mine([real_subset], tmp_path / "dask", "dask")
    assert dask["games_accepted"] == fast["games_accepted"] > 2500
    assert manifest_run(tmp_path / "dask")["partitions"] >= 4
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")
    # games.parquet and sequences.parquet: a part a partition, each written by a task of its own
    for name in ("games.parquet", "sequences.parquet"):
        parts = sorted(p.name for p in (tmp_path / "dask" / "work" / name).iterdir())
        assert parts == [f"part-{i:05d}.parquet" for i in range(manifest_run(tmp_path / "dask")["partitions"])]
    # the build counted the partitions while they were joined; counted from the joined files alone (the
    # parts read in turn), the same
    catalog = Catalog(work=tmp_path / "dask" / "work", out=tmp_path / "dask" / "out")
    run_stages(
        catalog,
        load(None, []),
        ["build"],
        [],
        Request(progress=False, engine="dask", force=True, cluster=Options(workers=2)),
    )
    again, fast = files_of(tmp_path / "dask"), files_of(tmp_path / "fast")
    assert {k: v for k, v in again.items() if k != "out/summary.json"} == {
        k: v for k, v in fast.items() if k != "out/summary.json"
    }  # the summary: of the stages up to build


@pytest.mark.shared_data
def test_dask_engine_gives_the_fast_engines_files_with_the_future_works_rules(real_subset, tmp_path):
    """Noise recognition, a start region of 5 lines and the pruning
    function on the partitions and the subtrees: the same bytes again."""
    sets = ("distance.noise=true", "corner.start=5", "prune.follow=0.6", "prune.min_share=0.01")
    fast = mine([real_subset], tmp_path / "fast", sets=sets)
    dask = mine([real_subset], tmp_path / "dask", "dask", sets=sets)
    assert dask["games_accepted"] == fast["games_accepted"] > 2500 and fast["joseki"] > 0
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


@pytest.mark.shared_data
def test_dask_engine_gives_the_fast_engines_files_with_move_orders_merged(real_subset, tmp_path):
    """One node a position: prune reads the whole trie (the shards' parts)
    in a task of its own, after games.parquet is committed (merging reads
    the games): the same bytes again, prune's manifest and figures among
    them."""
    sets = ("prune.merge_orders=true",)
    fast = mine([real_subset], tmp_path / "fast", sets=sets)
    dask = mine([real_subset], tmp_path / "dask", "dask", sets=sets)
    assert dask["games_accepted"] == fast["games_accepted"] > 2500 and fast["joseki"] > 0
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


def test_the_partitions_joined_are_the_rows_the_joins_write(tmp_path, monkeypatch):
    """What the build counts before the joins end (``Joined``): the games
    kept and their sequences, numbered as games.parquet and
    sequences.parquet number them; the first keys each partition recorded
    add up to at least those of the sequences kept."""
    from collections import Counter

    import pyarrow as pa
    import pyarrow.parquet as pq

    from joseki_miner.cluster import joins, partitions
    from joseki_miner.cluster.shards import count_subtrees, prefix_counts, write_run
    from joseki_miner.stages import build

    games = tmp_path / "games"
    for folder, name, tail, d in [
        ("a", "1.sgf", ";B[qk];W[qn]", 1),
        ("a", "2.sgf", ";B[ck]", 1),
        ("b", "3.sgf", ";B[qk];W[qn]", 2),
        ("b", "4.sgf", ";B[kc];W[ic]", 1),
        ("b", "5.sgf", ";B[kc];W[ic]", 2),
        ("bb", "7.sgf", ";B[ck]", 3),
        ("c", "6.sgf", ";B[cn]", 1),
    ]:
        _game(games / folder, name, tail, d)
    mine([games / "a", games / "b", games / "bb", games / "c"], tmp_path / "dask", "dask")
    catalog = Catalog(work=tmp_path / "dask" / "work", out=tmp_path / "dask" / "out")

    def first_source(key: str) -> str:
        return pq.read_table(catalog.partitions / key / "games.parquet", columns=["source"])["source"][0].as_py()

    keys = sorted((p.name for p in catalog.partitions.iterdir()), key=first_source)  # a, b, bb, c: the reading order
    assert len(keys) == 4
    res = joins.resolve(str(catalog.partitions), keys, True)
    # b/3 repeats a/1 (b/5, b/4: gone as b was read); bb/7, bb's one game, repeats a/2
    assert [int((~k).sum()) for k in res.keep] == [0, 1, 1, 0]
    joined = joins.Joined(str(catalog.partitions), tuple(keys), res)
    columns = ["winner", "year", "collection", "source", "location"]
    games_kept = pa.concat_tables(joined.games_of(p, columns) for p in range(len(keys)))
    assert games_kept.equals(pq.read_table(catalog.games, columns=columns))
    assert pa.Table.from_batches(list(joined.sequences(None, 3))).equals(pq.read_table(catalog.sequences))
    stored = build.Stored(catalog.sequences, catalog.games)
    assert prefix_counts(joined, None) == prefix_counts(stored, None)
    assert prefix_counts(joined) == prefix_counts(stored)
    recorded = sum(
        (
            Counter(
                {
                    int(k): n
                    for k, n in json.loads((catalog.partitions / k / partitions.DONE).read_text())["figures"][
                        "prefixes"
                    ].items()
                }
            )
            for k in keys
        ),
        Counter(),
    )
    every = prefix_counts(stored, None)  # the games kept: b/3's sequences are a/1's
    assert sum(recorded.values()) > sum(every.values()) and set(recorded) <= set(every)
    # each partition's sorted run: its sequences of the games kept, in trie order, numbered as joined
    from joseki_miner.fast import sortedrun
    from joseki_miner.fast.fasttrie import PAYLOAD, trie_order
    from joseki_miner.fast.fasttrie import deep_codes
    from joseki_miner.method.points import DEEP_END, DEEP_SHIFT, PREFIX

    def rows(part) -> list:
        offsets, keys, scores, a = part[:4]
        return [
            (
                int(a["game"][i]),
                int(a["sequence"][i]),
                keys[offsets[i] : offsets[i + 1]].tolist(),
                scores[offsets[i] : offsets[i + 1]].tolist(),
                int(a["start"][i]),
                int(a["transform"][i]),
                bool(a["swapped"][i]),
                int(a["shared"][i]),
                int(a["day"][i]),
            )
            for i in range(len(offsets) - 1)
        ]

    whole = (0, DEEP_END)
    runs = list(joined.parts(whole))
    assert len(runs) == len(keys) and all(ordered for *_, ordered in runs)
    # each sequence carries its game's winner, year, collection and day, numbered as the build numbers them
    # reading every game kept (bb, whose games are all repeats, is no collection of the tree): no game is read
    collections, per_game = stored.tallies()
    tallied, none = joined.tallies()
    assert none is None and (tallied.names, tallied.years()) == (collections.names, collections.years())
    assert len(collections.names) == 3 and collections.years()[0] > 0
    # and the games kept by year, the eras of the report's page of what changed: those of games.parquet
    year = pq.read_table(catalog.games, columns=["year"]).column("year").to_numpy()
    assert res.by_year == dict(zip(*(a.tolist() for a in np.unique(year, return_counts=True))))
    day = pq.read_table(catalog.games, columns=["day"]).column("day").to_numpy()
    for _, _, _, a, _ in runs:
        assert [a[name].tolist() for name in ("winner", "year", "source", "day")] == [
            values[a["game"]].tolist() for values in (*per_game, day)
        ]
    for offsets, keys, _, a, _ in runs:
        payload = np.zeros(len(a["game"]), PAYLOAD)
        payload["game"], payload["sequence"] = a["game"], a["sequence"]
        assert trie_order(offsets, keys, payload).tolist() == list(range(len(a["game"])))
    assert sorted(r for run in runs for r in rows(run)) == sorted(r for part in stored.parts(whole) for r in rows(part))
    for key, n in every.items():  # a range of openings: its sequences alone
        one = list(joined.parts((key, key + 1)))
        assert all(set(deep_codes(offsets, keys)) <= {key} for offsets, keys, *_ in one)
        assert sum(len(offsets) - 1 for offsets, *_ in one) == n
    firsts = sorted({(k >> DEEP_SHIFT) // PREFIX for k in every})  # each first key + 1
    for first in firsts:  # a first move's subtree cut below it, in the partitions as in the stage files
        cut = (first * PREFIX + PREFIX // 2) << DEEP_SHIFT
        for lo, hi in ((first * PREFIX << DEEP_SHIFT, cut), (cut, (first + 1) * PREFIX << DEEP_SHIFT)):
            assert sorted(r for part in joined.parts((lo, hi)) for r in rows(part)) == sorted(
                r for part in stored.parts((lo, hi)) for r in rows(part)
            )
    # written and read a sequence a block (a first key's sequences over many blocks), the same runs
    monkeypatch.setattr(sortedrun, "BLOCK_ROWS", 1)
    for k in joined.keys:
        folder = catalog.partitions / k
        write_run(
            folder / "sequences.parquet", folder / "sorted.run", partitions._game_fields(folder / "games.parquet")[0]
        )
    assert [rows(run) for run in joined.parts(whole)] == [rows(run) for run in runs]
    # a count of the partitions reads no game, and counts what a count of the stage files counts
    for source in (stored, joined):
        count_subtrees(whole, source, tmp_path / type(source).__name__, neutral=5, floor=1)
        monkeypatch.setattr(joins.Joined, "games_of", lambda *_: pytest.fail("a count read the games"))
    assert len(files_of(tmp_path / "Stored")) > 3 and files_of(tmp_path / "Joined") == files_of(tmp_path / "Stored")


@pytest.mark.shared_data
def test_a_folder_of_parts_commits_only_whole_with_this_runs_parts(tmp_path):
    """A part is written under a temporary name and renamed once whole,
    never by a task of a run that has ended (a stopped run's task left
    running), and the stage commits only a folder of exactly its run's
    parts: one missing or left over would renumber every row after it."""
    import pyarrow as pa

    from joseki_miner.cluster.joins import _write_part, check_parts
    from joseki_miner.runs import stop
    from joseki_miner.runs.catalog import part_name

    schema = pa.schema([("n", pa.int64())])
    into = tmp_path / "games.parquet.tmp"
    into.mkdir()
    assert _write_part(str(into), 0, schema, [pa.table({"n": [1, 2]}, schema), pa.table({"n": [3]}, schema)]) == 3
    check_parts(str(into), 1)
    stop.end("ended-run")
    with stop.task_of("ended-run"), pytest.raises(stop.Stopped):
        _write_part(str(into), 1, schema, [pa.table({"n": [4]}, schema)])
    assert sorted(p.name for p in into.iterdir()) == [part_name(0)]  # nor its temporary name left
    with pytest.raises(RuntimeError, match="holds 1 files, not the 2 parts"):
        check_parts(str(into), 2)
    (into / "part-00007.parquet").write_text("a stale part")
    with pytest.raises(RuntimeError, match="do the workers share"):
        check_parts(str(into), 1)
    empty = tmp_path / "sequences.parquet.tmp"
    empty.mkdir()
    with pytest.raises(RuntimeError):  # no partitions: still one part, of no rows
        check_parts(str(empty), 0)


def test_add_reads_only_the_new_games_and_gives_what_mining_all_at_once_gives(real_subset, tmp_path):
    folders = sorted(p for p in real_subset.iterdir())
    old, new = folders[:2], folders[2:]
    mine(old, tmp_path / "dask", "dask")
    before = manifest_run(tmp_path / "dask")["partitions"]
    mine(new, tmp_path / "dask", "dask", add=True)
    run = manifest_run(tmp_path / "dask")
    assert run["partitions_read"] == run["partitions"] - before > 0
    mine(folders, tmp_path / "fast")
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


def test_add_needs_games_mined_before(demo_games, tmp_path):
    from joseki_miner.runs.errors import UsageError

    for engine in ("dask", "fast", "reference"):
        with pytest.raises(UsageError, match="none are"):
            mine([demo_games], tmp_path / engine, engine, add=True)


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_add_on_every_engine_gives_what_mining_all_at_once_gives(demo_games, tmp_path, engine):
    """--add with the fast and reference engines: the dask engine's
    partitions mined in the process; the first --add after a plain run
    mines every partition once, the next reads only the new games; the
    files are those of mining every path at once."""
    import shutil

    old, new, newer = tmp_path / "old", tmp_path / "new", tmp_path / "newer"
    shutil.copytree(demo_games / "club", old / "club")
    shutil.copytree(demo_games / "pro", new / "pro")
    (newer / "more").mkdir(parents=True)
    for k, path in enumerate(sorted((demo_games / "pro").rglob("*.sgf"))[:40]):  # moved to another corner: new games
        (newer / "more" / f"{k}.sgf").write_text(
            path.read_text(encoding="utf-8").replace("[pd]", "[pc]"), encoding="utf-8"
        )
    mine([old], tmp_path / "added", engine)
    mine([new], tmp_path / "added", engine, add=True)
    partitions = manifest_run(tmp_path / "added")["partitions"]
    assert manifest_run(tmp_path / "added")["partitions_read"] == partitions
    mine([newer], tmp_path / "added", engine, add=True)
    run = manifest_run(tmp_path / "added")
    assert 0 < run["partitions_read"] == run["partitions"] - partitions
    mine([old, new, newer], tmp_path / "whole", engine)
    assert files_of(tmp_path / "added") == files_of(tmp_path / "whole")


def test_a_book_that_fails_beside_the_shards_leaves_the_build_and_its_files_as_a_clean_run(
    demo_games, tmp_path, monkeypatch
):
    """The book starts as soon as prune's files are written, while the
    shards' files still are; the build commits once they end, so a report
    that fails (here in the process: --add with the fast engine runs the
    dask runner's map in it) leaves the build done and nothing published,
    and the next run keeps the build and gives a clean run's files."""
    from joseki_miner.book import files as book_files

    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(demo_games / "club", old / "club")
    shutil.copytree(demo_games / "pro", new / "pro")
    mine([old], tmp_path / "added")
    published = files_of(tmp_path / "added" / "out")
    build = tmp_path / "added" / "work" / "build.manifest.json"
    before = json.loads(build.read_text())["key"]

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(book_files, "write", full)
        with pytest.raises(OSError, match="No space left"):
            mine([new], tmp_path / "added", add=True)
    built = build.read_bytes()
    assert json.loads(built)["key"] != before  # the new games' build, committed
    assert files_of(tmp_path / "added" / "out") == published  # nothing of the failed run's book
    mine([new], tmp_path / "added", add=True)
    assert build.read_bytes() == built  # kept: not counted again
    mine([old, new], tmp_path / "whole")
    assert files_of(tmp_path / "added" / "out") == files_of(tmp_path / "whole" / "out")


def _joins_last(patched, ended: list) -> None:
    """The partitions' joins put after every other task of their map (in
    the process, whose tasks run one at a time by priority): the build's
    shards are written before them; the phases as the tasks end go to
    ``ended``."""
    from joseki_miner.cluster import graph, runner

    patched.setitem(graph._LEVELS, graph.Phase.JOIN, -(2**39))
    was = runner._Commits.ended

    def ending(self, task, result):
        ended.append(task.phase)
        return was(self, task, result)

    patched.setattr(runner._Commits, "ended", ending)


def test_the_build_beside_the_joins_commits_after_them_when_its_shards_end_first(demo_games, tmp_path, monkeypatch):
    """The build commits once the joins have committed ingest and extract,
    even where its shards' files are all written before the joins end: its
    floor is checked against the games this run's ingest accepted (before,
    ingest's figures were looked for in the run's context, "stage ingest
    has not run"); the files are a clean run's."""
    from joseki_miner.cluster.graph import Phase

    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(demo_games / "club", old / "club")
    shutil.copytree(demo_games / "pro", new / "pro")
    sets = ["prune.merge_orders=true"]  # the build alone beside the joins: nothing else waits for them
    mine([old], tmp_path / "added", sets=sets)
    ended: list = []
    with monkeypatch.context() as patched:
        _joins_last(patched, ended)
        mine([new], tmp_path / "added", add=True, sets=sets)
    assert Phase.JOIN in ended and max(i for i, p in enumerate(ended) if p is Phase.SHARD) < ended.index(Phase.JOIN)
    mine([old, new], tmp_path / "whole", sets=sets)
    assert files_of(tmp_path / "added" / "out") == files_of(tmp_path / "whole" / "out")


def test_a_strict_reject_joined_after_the_shards_is_the_error_and_the_build_stays(demo_games, tmp_path, monkeypatch):
    """--strict: the rejects' join that fails after the build's shards
    are written raises the reject's StrictError, and the build, which
    follows ingest, is not committed."""
    from joseki_miner.runs.errors import StrictError

    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(demo_games / "club", old / "club")
    shutil.copytree(demo_games / "pro", new / "pro")
    shutil.copy(demo_games / "bad-9x9.sgf", new / "bad-9x9.sgf")
    sets = ["prune.merge_orders=true"]
    mine([old], tmp_path / "added", sets=sets)
    build = tmp_path / "added" / "work" / "build.manifest.json"
    before = build.read_bytes()
    with monkeypatch.context() as patched:
        _joins_last(patched, [])
        with pytest.raises(StrictError):
            mine([new], tmp_path / "added", add=True, sets=sets, strict=True)
    assert build.read_bytes() == before


@pytest.mark.shared_data
def test_a_worker_killed_mid_run_is_replaced_and_the_files_are_the_same(real_subset, tmp_path):
    from distributed import Client, LocalCluster

    mine([real_subset], tmp_path / "fast")
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        pids = list(client.run(os.getpid).values())
        partitions = tmp_path / "dask" / "work" / "partitions"
        result: dict = {}

        def run() -> None:
            try:
                result["summary"] = mine(
                    [real_subset],
                    tmp_path / "dask",
                    "dask",
                    cluster=Options(scheduler=cluster.scheduler_address, partition_mb=0.25),
                )
            except BaseException as exc:  # noqa: BLE001 - reported below
                result["error"] = exc

        thread = threading.Thread(target=run)
        thread.start()
        deadline = time.monotonic() + 120
        while not (partitions.is_dir() and any(p.name.endswith(".tmp") for p in partitions.iterdir())):
            assert time.monotonic() < deadline and thread.is_alive(), "no partition was started"
            time.sleep(0.01)
        os.kill(pids[0], signal.SIGKILL)  # a worker mid-partition: its task goes to the other, or to its successor
        thread.join(300)
        assert "error" not in result, result.get("error")
        assert pids[0] not in client.run(os.getpid).values()
    assert not any(p.name.endswith(".tmp") for p in partitions.iterdir())
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


@pytest.mark.shared_data
def test_games_read_over_http_through_fsspec_give_the_same_tree(real_subset, tmp_path):
    """The real subset served by a local HTTP server and mined from its
    URL: the same games (all but where they were read) and the same tree
    as mined from the folder; a second run fetches nothing."""
    import functools
    import http.server

    import pyarrow.parquet as pq

    pytest.importorskip("aiohttp", reason="fsspec's http needs aiohttp (make setup installs it)")
    served = tmp_path / "served"  # a server follows the subset's symlinked folder, which the walk does not enter
    shutil.copytree(real_subset, served)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        mine([url], tmp_path / "http", "dask")
        assert manifest_run(tmp_path / "http")["partitions_read"] >= 4
        messages: list[str] = []
        catalog = Catalog(work=tmp_path / "http" / "work", out=tmp_path / "http" / "out")
        run_stages(
            catalog,
            load(None, []),
            STAGES,
            [url],
            Request(progress=False, engine="dask", jobs=1, cluster=Options(workers=1, partition_mb=0.25)),
            log=messages.append,
        )
        assert any("0 of its" in m for m in messages) and any("ingest: up to date" in m for m in messages)
    finally:
        server.shutdown()
    mine([served], tmp_path / "local")
    here, there = tmp_path / "local", tmp_path / "http"
    for name in ("out/joseki.parquet", "out/node_years.parquet"):
        assert (here / name).read_bytes() == (there / name).read_bytes(), name
    for name in ("trie.parquet", "sorted_sequences.parquet", "sequences.parquet"):
        assert rows_of(here / "work" / name) == rows_of(there / "work" / name), name
    games = [pq.read_table(f / "work" / "games.parquet").drop_columns(["source", "collection"]) for f in (here, there)]
    assert games[0].num_rows > 2500 and games[0].equals(games[1])


def test_strict_stops_at_the_first_reject_as_the_fast_engine_does(demo_games, tmp_path):
    from joseki_miner.runs.errors import StrictError

    messages = []
    for engine in ("fast", "dask"):
        catalog = Catalog(work=tmp_path / engine / "work", out=tmp_path / engine / "out")
        with pytest.raises(StrictError) as caught:
            run_stages(
                catalog,
                load(None, []),
                STAGES,
                [demo_games],
                Request(progress=False, strict=True, engine=engine, jobs=1, cluster=Options(workers=1)),
            )
        messages.append(str(caught.value))
    assert messages[0] == messages[1] and messages[0]


def test_the_dask_options_go_with_the_dask_engine(demo_games, tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    for options in (["--workers", "2"], ["--partition-mb", "4"], ["--scheduler", "tcp://127.0.0.1:8786"]):
        result = CliRunner().invoke(app, ["mine", str(demo_games), "--out", str(tmp_path), *options])
        assert result.exit_code == 2 and "go with --engine dask" in result.output
    for options, says in (
        (["--partition-mb", "0"], "positive"),
        (["--workers", "-1"], "0 (one a core) or more"),
        (["--jobs", "3"], "--jobs sets the threads of the fast engine"),
        (["--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "has its own"),
    ):
        result = CliRunner().invoke(
            app, ["mine", str(demo_games), "--out", str(tmp_path), "--engine", "dask", *options]
        )
        assert result.exit_code == 2 and says in result.output, (options, result.output)


def test_a_task_starts_once_those_it_waits_for_have_ended(tmp_path):
    """``Cluster.map(after=...)``: the build's joins of the subtrees wait
    for the counts, beside the joins of the partitions; each task still
    goes to the first worker free, and a wait that can never end is an
    error, not a hang."""
    from joseki_miner.cluster.client import Cluster

    def timed(seconds: float) -> tuple[float, float]:
        begun = time.time()
        time.sleep(seconds)
        return begun, time.time()

    cluster = Cluster(Options(workers=2))
    try:
        # 0 and 1 (the counts) first; 2 waits for both, and goes ahead of 3 (a larger size: a higher priority)
        times = cluster.map(
            timed,
            [2.0, 0.3, 0.1, 0.4],
            names=[f"t{i}-{tmp_path.name}" for i in range(4)],
            sizes=[3, 3, 9, 1],
            after=[[], [], [0, 1], []],
        )
        assert times[2][0] >= max(times[0][1], times[1][1])
        assert times[3][0] >= times[1][1]  # no more at once than there are workers
        assert times[3][0] < times[0][1]  # the worker free takes the next task that can start: 2 cannot yet
        for after in ([[1], [0]], [[], [1]], [[2], []]):  # a cycle, an item after itself, after no item
            with pytest.raises(ValueError, match="never end"):  # before any task starts
                cluster.map(
                    timed,
                    [0.0, 0.0],
                    names=[f"c{i}-{tmp_path.name}" for i in range(2)],
                    after=after,
                    on_done=lambda i, result: pytest.fail("a task ran"),
                )
    finally:
        cluster.close()


def test_a_task_that_takes_results_is_given_those_it_waited_for_in_their_order(tmp_path):
    """``map(takes=...)`` on a cluster and in process: prune is given the
    joins' results and then the shards' candidates, the found task its
    searches', each in the order of the items it waited for, whatever
    order they ended in (the sizes run the last first)."""
    from joseki_miner.cluster.client import Cluster, InProcess

    def job(item, taken=None):
        return (item, taken)

    sizes = [1, 2, 3, 9, 0]  # item 3 (its results' taker) waits for 2, 0 and 1; item 4 for 3
    after = [[], [], [], [2, 0, 1], [3]]
    for cluster in (Cluster(Options(workers=2)), InProcess(Options())):
        try:
            results = cluster.map(
                job,
                ["a", "b", "c", "d", "e"],
                names=[f"k{i}-{type(cluster).__name__}-{tmp_path.name}" for i in range(5)],
                sizes=sizes,
                after=after,
                takes=[3, 4],
            )
        finally:
            cluster.close()
        assert results[3] == ("d", [("a", None), ("b", None), ("c", None)])
        assert results[4] == ("e", [results[3]])
        assert results[:3] == [("a", None), ("b", None), ("c", None)]


def test_a_map_takes_on_items_as_its_tasks_end(tmp_path):
    """``map(on_done=...)`` giving back items, on a cluster and in process: the book's tasks join
    the map of the partitions once what the shards found is written, each
    starting once the items it waits for have ended (not before the item
    that added it), their results after the others'; an item added that
    waits for one the map lacks is an error."""
    from joseki_miner.cluster.client import Cluster, InProcess, More

    def timed(item: tuple[str, float]) -> tuple[str, float, float]:
        begun = time.time()
        time.sleep(item[1])
        return item[0], begun, time.time()

    def more(i: int, result) -> list:  # once b ends: x after b and c, y after b alone
        return [More(("x", 0.0), f"x-{i}-{tmp_path.name}", 5, (i, 2)), More(("y", 0.0), f"y-{tmp_path.name}", 1, (i,))]

    for cluster in (Cluster(Options(workers=2)), InProcess(Options())):
        kind = type(cluster).__name__
        try:
            results = cluster.map(
                timed,
                [("a", 1.5), ("b", 0.1), ("c", 0.4)],
                names=[f"m{i}-{kind}-{tmp_path.name}" for i in range(3)],
                sizes=[3, 2, 1],
                on_done=lambda i, result: more(i, result) if result[0] == "b" else None,
            )
            with pytest.raises(ValueError, match="does not have"):
                cluster.map(
                    timed,
                    [("a", 0.0)],
                    names=[f"e-{kind}-{tmp_path.name}"],
                    on_done=lambda i, result: [More(("z", 0.0), f"z-{kind}-{tmp_path.name}", 0, (1,))],
                )
        finally:
            cluster.close()
        assert [r[0] for r in results] == ["a", "b", "c", "x", "y"], kind
        (_, _, a_ended), (_, _, b_ended), (_, _, c_ended), (_, x_begun, _), (_, y_begun, _) = results
        assert x_begun >= max(b_ended, c_ended) and y_begun >= b_ended, kind
        if kind == "Cluster":  # two workers: taken on while a runs, not after the map's own items
            assert x_begun < a_ended, kind


def test_a_failed_run_stops_its_tasks_on_a_cluster_of_ones_own_before_it_returns(tmp_path):
    """A cancelled future's task runs on to its end on its worker: on a
    cluster that outlives the run it would write into the folders the run
    cleans, or the next run's.  The run tells the workers it has ended, its
    tasks stop at their next check, and it returns once none runs; the
    cluster's next run is not stopped."""
    from distributed import LocalCluster

    from joseki_miner.cluster.client import Cluster

    def task(what: str) -> str:
        from joseki_miner.runs.stop import check

        if what == "fail":
            for _ in range(300):  # until the other task runs
                if Path(started).exists():
                    break
                time.sleep(0.1)
            raise RuntimeError("a task failed")
        Path(started).write_text("")
        try:
            for _ in range(600):  # a minute, unless the run ends
                check()
                time.sleep(0.1)
            return "ran to its end"
        finally:
            Path(what).write_text("stopped")

    stopped, started = tmp_path / "stopped", str(tmp_path / "started")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as local:
        cluster = Cluster(Options(scheduler=local.scheduler_address))
        try:
            begun = time.monotonic()
            with pytest.raises(RuntimeError, match="a task failed"):
                cluster.map(task, ["fail", str(stopped)], names=["fail", "long"])
            assert Path(started).exists() and stopped.exists()  # the long task had stopped when the run returned
            assert time.monotonic() - begun < 50
        finally:
            cluster.close()
        again = Cluster(Options(scheduler=local.scheduler_address))
        try:
            assert again.map(lambda _: "ran", [None], names=["again"]) == ["ran"]
        finally:
            again.close()


def test_workers_started_in_another_folder_read_the_relative_paths_the_driver_means(tmp_path, monkeypatch):
    """A cluster's workers run wherever they were started; paths given
    relative to the driver's folder still name the driver's files (and the
    games' sources are named as given: the fast engine's bytes).  A worker
    that cannot enter that folder says so in one line."""
    from distributed import LocalCluster

    from joseki_miner.runs.errors import UsageError

    games = tmp_path / "here" / "games"
    _game(games / "a", "1.sgf", ";B[qk]")
    _game(games / "b", "2.sgf", ";B[ck]")
    _game(games / "b", "3.sgf", ";B[qk]", 2)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "games").mkdir(parents=True)  # a folder of the same name there, empty: must not be read
    monkeypatch.chdir(elsewhere)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        monkeypatch.chdir(tmp_path / "here")
        paths = [Path("games/a"), Path("games/b")]
        mine(paths, tmp_path / "fast")
        dask = mine(paths, tmp_path / "dask", "dask", cluster=Options(scheduler=cluster.scheduler_address))
        assert dask["games_accepted"] == 2 and dask["games_rejected_total"] == 1
        assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")
        # the work and output folders relative too: prune, emit and extract alone run as single tasks
        mine(paths, Path("relative"), "dask", cluster=Options(scheduler=cluster.scheduler_address))
        assert files_of(tmp_path / "here" / "relative") == files_of(tmp_path / "fast")
        catalog = Catalog(work=Path("relative/work"), out=Path("relative/out"))
        run_stages(
            catalog,
            load(None, ["distance.maybe=6"]),
            ["extract", "build", "prune", "emit"],
            [],
            Request(progress=False, engine="dask", cluster=Options(scheduler=cluster.scheduler_address)),
        )
        assert not (elsewhere / "relative").exists()
        shutil.rmtree(tmp_path / "here" / "relative")
    # a worker of two threads: its tasks share the driver's folder, none goes back to its own under another
    monkeypatch.chdir(elsewhere)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
        monkeypatch.chdir(tmp_path / "here")
        mine(paths, Path("relative"), "dask", cluster=Options(scheduler=cluster.scheduler_address, partition_mb=1e-6))
        assert manifest_run(tmp_path / "here" / "relative")["partitions"] == 3
        assert files_of(tmp_path / "here" / "relative") == files_of(tmp_path / "fast")
        gone = tmp_path / "gone"
        gone.mkdir()
        monkeypatch.chdir(gone)
        gone.rmdir()  # the driver's folder exists nowhere now: no worker can enter it
        monkeypatch.setattr(os, "getcwd", lambda: str(gone))
        with pytest.raises(UsageError, match="cannot enter"):
            mine([games / "a"], tmp_path / "dask2", "dask", cluster=Options(scheduler=cluster.scheduler_address))


def test_games_at_a_url_give_the_same_bytes_on_both_engines_with_relative_folders(demo_games, tmp_path, monkeypatch):
    """The mirror of a URL lies in the work folder and names the games'
    sources and collections: a relative folder names them alike on both
    engines (each run in turn in the same folder)."""
    import functools
    import http.server

    pytest.importorskip("aiohttp", reason="fsspec's http needs aiohttp (make setup installs it)")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(demo_games))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.chdir(tmp_path)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        mine([url], Path("run"))
        fast = files_of(tmp_path / "run")
        shutil.rmtree(tmp_path / "run")
        mine([url], Path("run"), "dask")
    finally:
        server.shutdown()
    assert files_of(tmp_path / "run") == fast


def test_partitions_of_other_parameters_go_as_a_clean_run_would_leave_them(demo_games, tmp_path):
    """New distances: extract alone is mined by partitions (on the workers),
    whose folder then holds only the new parameters' partitions; a
    partition a stopped run left is removed by a run that keeps ingest and
    extract."""
    messages: list[str] = []

    def run(sets=()):
        catalog = Catalog(work=tmp_path / "dask" / "work", out=tmp_path / "dask" / "out")
        run_stages(
            catalog,
            load(None, list(sets)),
            STAGES,
            [demo_games],
            Request(progress=False, engine="dask", jobs=1, cluster=Options(workers=2, partition_mb=0.25)),
            log=messages.append,
        )
        return sorted(p.name for p in (tmp_path / "dask" / "work" / "partitions").iterdir())

    first = run()
    again = run(["distance.maybe=6"])
    assert any(m.startswith("extract: ") and "partitions" in m for m in messages)
    assert not set(first) & set(again)
    mine([demo_games], tmp_path / "fast", sets=["distance.maybe=6"])
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")
    stray = tmp_path / "dask" / "work" / "partitions" / first[0]
    shutil.copytree(tmp_path / "dask" / "work" / "partitions" / again[0], stray)  # as a stopped run leaves one
    assert run(["distance.maybe=6"]) == again


def test_a_run_with_every_stage_up_to_date_starts_no_cluster(demo_games, tmp_path, monkeypatch):
    """Mining again games mined already starts no cluster (its start would
    be most of the run); a stage that must run starts one: the build alone
    (a new influence parameter) counts the stage files on the workers and
    gives the fast engine's files."""
    from joseki_miner.cluster import client as cluster

    mine([demo_games], tmp_path / "dask", "dask")
    started, real = [], cluster.Cluster
    monkeypatch.setattr(cluster, "Cluster", lambda *args, **kwargs: started.append(1) or real(*args, **kwargs))

    def again(sets=()) -> list[str]:
        said: list[str] = []
        run_stages(
            Catalog(work=tmp_path / "dask" / "work", out=tmp_path / "dask" / "out"),
            load(None, list(sets)),
            STAGES,
            [demo_games],
            Request(progress=False, engine="dask", cluster=Options(workers=1)),
            log=said.append,
        )
        return said

    said = again()
    assert not started and [line for line in said if line.endswith("up to date, kept")]
    assert not any(line.startswith("dask:") for line in said)
    said = again(["prune.min_count=2"])
    assert started == [1] and any(line.startswith("prune: done") for line in said)
    said = again(["influence.neutral=3"])  # the build alone on the cluster, from the stage files
    assert started == [1, 1] and any(line.startswith("build: done") for line in said)
    assert not any(line.startswith(("ingest: done", "extract: ")) and "kept" not in line for line in said)
    mine([demo_games], tmp_path / "fast", sets=["influence.neutral=3"])
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


def test_symmetric_duplicates_across_partitions(demo_games, tmp_path):
    """dedupe.symmetric on the dask engine: a game of one partition turned,
    mirrored or with its colours swapped in another is a duplicate of the
    first, as the fast engine finds it; the same files."""
    import shutil

    from helpers import transform_record
    from test_ingest import sgf

    from joseki_miner.method.records import GameRecord
    from joseki_miner.readers import read_paths

    folder = tmp_path / "games"
    shutil.copytree(demo_games / "pro", folder / "pro")
    (folder / "turned").mkdir()
    records = [r for r in read_paths([demo_games / "pro"]) if isinstance(r, GameRecord)][:30]
    for n, record in enumerate(records):
        (folder / "turned" / f"{n}.sgf").write_text(sgf(transform_record(record, n % 8, n % 2 == 1)))
    sets = ["dedupe.symmetric=true"]
    summary = mine([folder], tmp_path / "dask", "dask", sets=sets)
    assert summary["games_rejected"].get("duplicate") == len(records)
    mine([folder], tmp_path / "fast", sets=sets)
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "fast")


def test_a_dask_run_on_games_another_engine_read_gives_that_engines_files(demo_games, tmp_path):
    """Ingest up to date from a run of the fast engine (games.parquet one
    file, not a part a partition), the dask engine mines the rest (another
    extract): its example games are read from that file, and its files
    are those the fast engine gives."""
    sets = ("max_length=25", "prune.min_count=1", "prune.min_games=1")
    mine([demo_games], tmp_path / "mixed")
    assert (tmp_path / "mixed" / "work" / "games.parquet").is_file()
    dask = mine([demo_games], tmp_path / "mixed", "dask", sets=sets, cluster=Options(workers=2, partition_mb=0.001))
    assert (tmp_path / "mixed" / "work" / "games.parquet").is_file()  # ingest kept: the fast engine's file
    fast = mine([demo_games], tmp_path / "fast", sets=sets)
    assert dask["games_accepted"] == fast["games_accepted"] and fast["joseki"] > 0
    assert files_of(tmp_path / "mixed") == files_of(tmp_path / "fast")


def test_a_partition_is_kept_only_where_its_files_read_back_as_written(demo_games, tmp_path, monkeypatch):
    """A worker does not sync a partition it mined (an fsync stalled both
    workers' tasks): a later run keeps the partition only where every file
    reads back with the size and SHA-256 its record holds.  A file a
    machine's crash left short, or its blocks never written (zeros at the
    same size), makes the partition mined again, to the same bytes."""
    from joseki_miner.cluster import partitions
    from joseki_miner.runs.context import RunOptions
    from joseki_miner.runs.keys import partition_key
    from joseki_miner.stages.params import phase1_params

    config = load(None, [])
    reading = Reading.of(config, RunOptions(table_bytes=64 << 20), exclude=())
    settings_ = Settings((str(demo_games),), reading, phase1_params(config), partition_key(config))
    first = plan([demo_games], settings_, {})[0]
    folder = tmp_path / "partitions"
    mined = partitions.mine(first, settings_, str(folder))
    out = folder / first.key
    written = {name: (out / name).read_bytes() for name in partitions.FILES}
    assert partitions.mine(first, settings_, str(folder)) == {**mined, partitions.KEPT: True}

    def damaged(name: str, data: bytes) -> None:
        (out / name).write_bytes(data)
        again = partitions.mine(first, settings_, str(folder))
        assert again == mined, name  # mined again, not kept
        assert {n: (out / n).read_bytes() for n in partitions.FILES} == written

    data = written["sequences.parquet"]
    damaged("sequences.parquet", data[: len(data) // 2] + bytes(len(data) - len(data) // 2))
    damaged("sorted.run", written["sorted.run"][:-1])
    record = json.loads((out / partitions.DONE).read_text())
    del record["files"]["trace.arrow"]  # a record of another version's files
    (out / partitions.DONE).write_text(json.dumps(record))
    assert partitions.mine(first, settings_, str(folder)) == mined

    # a file that could not be read back when written, nor when checked: its record proves nothing
    digest = partitions.digest_file
    monkeypatch.setattr(
        partitions, "digest_file", lambda p: "unreadable: EIO" if Path(p).name == "games.parquet" else digest(p)
    )
    shutil.rmtree(out)
    assert partitions.mine(first, settings_, str(folder)) == mined
    assert partitions.mine(first, settings_, str(folder)) == mined
