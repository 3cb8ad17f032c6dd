"""Small shared helpers for the method tests (symmetry, influence, phase 1,
trie, prune): hand-made games, the 16 symmetry x colour maps, mining."""

from __future__ import annotations

import io
import sys
import tarfile
import zipfile
from collections.abc import Iterable, Sequence

import numpy as np
import pytest

from joseki_miner.method.influence import classify
from joseki_miner.method.points import BLACK, PASS, WHITE, from_sgf, point
from joseki_miner.method.records import GameRecord, Move
from joseki_miner.method.sequences import Phase1Params, extract
from joseki_miner.method.symmetry import POINT_MAP
from joseki_miner.method.trie import Trie, build  # noqa: F401 - build is re-exported for the tests

# every (board transform, colour swap): the 16 maps of thesis Diagram 7
MAPS = tuple((t, swap) for t in range(8) for swap in (False, True))


def rc(s: str) -> tuple[int, int]:
    """(row, col) of SGF coordinates "dc" -> (2, 3)."""
    p = from_sgf(s)
    return divmod(p, 19)


def moves(text: str) -> tuple[Move, ...]:
    """Moves from a compact text: "B dd W pp B tt W --" (SGF points; "tt"
    or "--" is a pass).  Colours are given explicitly."""
    out = []
    for colour, where in zip(*[iter(text.split())] * 2):
        c = BLACK if colour.upper() == "B" else WHITE
        out.append(Move(c, PASS if where in ("tt", "--") else from_sgf(where)))
    return tuple(out)


def game(text: str = "", *, rcs: Sequence[tuple[int, int, int]] = (), **kw) -> GameRecord:
    """A GameRecord from ``moves(text)`` or from (colour, row, col) triples."""
    ms = moves(text) if text else tuple(Move(c, point(r, k)) for c, r, k in rcs)
    return GameRecord(source="test", moves=ms, **kw)


def alternate(points: Iterable[int], first: int = BLACK) -> GameRecord:
    """A game playing ``points`` with alternating colours."""
    ms = []
    colour = first
    for p in points:
        ms.append(Move(colour, p))
        colour = -colour
    return GameRecord(source="test", moves=tuple(ms))


def transform_record(record: GameRecord, t: int, swap: bool) -> GameRecord:
    """The game under board transform t and, when ``swap``, a colour swap."""
    pm = POINT_MAP[t]
    sign = -1 if swap else 1

    def mp(p: int) -> int:
        return p if p == PASS else pm[p]

    black = tuple(mp(p) for p in record.setup_black)
    white = tuple(mp(p) for p in record.setup_white)
    if swap:
        black, white = white, black
    return GameRecord(
        source=record.source,
        location=record.location,
        setup_black=black,
        setup_white=white,
        moves=tuple(Move(sign * m.colour, mp(m.point)) for m in record.moves),
        setup_events=tuple((i, sign * c, mp(p)) for i, c, p in record.setup_events),
    )


def classes_of(scores: Sequence[Sequence[int]], neutral: int = 5) -> list[list[int]]:
    return [[classify(s, neutral) for s in four] for four in scores]


def mine(records: Iterable[GameRecord], params: Phase1Params = Phase1Params(), neutral: int = 5) -> Trie:
    """Phase 1 over a collection: the counted trie of all normal sequences."""
    trie = Trie()
    for record in records:
        for seq in extract(record, params):
            trie.insert(seq.keys, classes_of(seq.scores, neutral))
    return trie


def path_table(table) -> dict[tuple[str, ...], tuple]:
    """A node table keyed by the path of moves from the root (ids ignored):
    path -> (count, twelve counters)."""
    from joseki_miner.method.trie import COUNTER_COLUMNS

    rows = table.to_dict("records")
    by_id = {r["node"]: r for r in rows}
    path: dict[int, tuple[str, ...]] = {}
    out = {}
    for r in rows:  # parents before children
        p = () if r["parent"] < 0 else path[r["parent"]] + (r["move"] or "--",)
        path[r["node"]] = p
        out[p] = (r["count"], tuple(r[c] for c in COUNTER_COLUMNS))
    assert len(by_id) == len(rows)
    return out


def make_zip(members: dict[str, bytes], method=zipfile.ZIP_DEFLATED) -> bytes:
    """A zip archive of ``members`` (name -> bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def make_tar(members: dict[str, bytes], mode: str = "w") -> bytes:
    """A tar archive of ``members``; mode "w:gz" compresses it."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/smaps (Linux)")


def resident(array: np.ndarray) -> int:
    """Bytes of ``array``'s mapping resident now (/proc/self/smaps)."""
    address = array.__array_interface__["data"][0]
    inside = False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = lo <= address < hi
            elif inside and head == "Rss:":
                return int(line.split()[1]) * 1024
    raise AssertionError("no mapping holds the array")


def mine_into(paths, folder, *sets: str):
    """Every stage of ``paths`` mined into ``folder`` (its work folder
    inside), with the default config and ``sets``: the folder's catalog."""
    from joseki_miner.runs.catalog import STAGES, Catalog
    from joseki_miner.runs.config import load
    from pipeline.run import Request, run_stages

    catalog = Catalog(work=folder / "interim", out=folder)
    run_stages(catalog, load(None, list(sets)), STAGES, paths, Request(progress=False), log=lambda s: None)
    return catalog


def joseki_cli(*args):
    """``joseki ARGS`` as its own process, from the project's folder."""
    import subprocess
    from pathlib import Path

    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )


def as_parts(path, cuts: Sequence[int], rows: int = 500) -> None:
    """Turn the Parquet file ``path`` into a folder of parts, as the dask
    engine writes sequences.parquet: its rows cut before each of ``cuts``
    (an empty part where two cuts meet), in row groups of ``rows``."""
    import pyarrow.parquet as pq

    from joseki_miner.runs.catalog import part_name

    table = pq.read_table(path)
    path.unlink()
    path.mkdir()
    bounds = [0, *cuts, table.num_rows]
    for i, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        pq.write_table(table.slice(lo, hi - lo), path / part_name(i), row_group_size=rows)


def files_of(folder) -> dict[str, bytes]:
    """What a run leaves (as the crash harness compares it), without the
    dask engine's own partitions, and the stage files the dask engine
    writes as folders of parts (``Catalog.datasets``) by their rows: how
    many parts depends on the partitions and counts, their rows do not
    (the crash harness compares games.parquet's and sequences.parquet's
    parts by their bytes, run against run of one engine, and the trie's
    folders by their rows: their cut follows the build's counts)."""
    from crashtest import outputs

    found = {k: v for k, v in outputs(folder).items() if "partitions/" not in k}
    for path in [p for name in DATASETS for p in folder.rglob(name)]:
        name = str(path.relative_to(folder))
        if "partitions" in path.parts:
            continue
        for part in [k for k in found if k.startswith(name + "/")]:
            del found[part]
        found[name] = rows_of(path)
    return found


def rows_of(path) -> bytes:
    """A Parquet file's (or folder of parts') schema and rows, as bytes."""
    from crashtest import dataset_rows

    return dataset_rows(path)


DATASETS = (
    "games.parquet",
    "sequences.parquet",
    "trie.parquet",
    "trie_years.parquet",
    "trie_sources.parquet",
    "trie_positions.parquet",
    "sorted_sequences.parquet",
)


def setup_games(folder):
    """Games whose setup stones are a handicap's, or are not (then each is
    left out with its reason), beside an even game; in one file, as a
    collection, too."""
    opening = ";B[pd];W[dp];B[qp];W[dd];B[fq];W[cn];B[jp];W[pj]"
    games = {
        "even.sgf": f"(;GM[1]FF[4]SZ[19]{opening})",
        "passes.sgf": f"(;GM[1]FF[4]SZ[19]AB[tt]AW[]{opening};B[qj])",  # pass-like setup points: no stones
        "handicap.sgf": "(;GM[1]FF[4]SZ[19]HA[2]AB[pd][dp];W[dd];B[qp];W[fq];B[cn];W[jp])",
        "position.sgf": "(;GM[1]FF[4]SZ[19]AB[pd][qp]AW[dd][dq];B[pc];W[cp];B[qq];W[cc])",
        "white.sgf": "(;GM[1]FF[4]SZ[19]AW[dd];B[pd];W[dp];B[qp];W[cc])",
        "later.sgf": f"(;GM[1]FF[4]SZ[19]{opening};AB[cc];W[qq])",
        "handicap-white.sgf": "(;GM[1]FF[4]SZ[19]HA[2]AB[pd][dp]AW[dd];W[qp];B[cn];W[fq])",
        "collection.sgf": "(;GM[1]SZ[19]AW[qq];B[dd];W[pp])\n(;GM[1]SZ[19];B[cd];W[pp];AE[pp];B[qc])",
    }
    folder.mkdir()
    for name, text in games.items():
        (folder / name).write_text(text)
    return folder
