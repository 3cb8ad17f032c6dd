"""Partitions: the unit of work of the dask engine.

A partition is a run of consecutive input files (in the order every engine
reads them).  ``mine`` reads one, validates its games, finds their
sequences (the fast engine's one replay) and writes its games, rejects and
sequences, numbered within the partition, with a trace of each game's place
in the reading order and its fingerprint, to a folder of its own: pure in
its inputs (the files, their digests, the parameters), written under a
temporary name and renamed whole, so a partition done is kept (a later run,
``--add``, a retried task) and one half done is never trusted.
``cluster.joins`` joins them into the one-process engines' files."""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import os
import shutil
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import joseki_miner
from joseki_miner.fast.arrow import column, numpy
from joseki_miner.runs.inputs import HEX, Collections, digest_file
from joseki_miner.stages.params import Reading
from joseki_miner.readers import HEAD, KEPT_BYTES, archives, existing_files, index_scope, sniff
from joseki_miner.readers.dispatch import Share
from joseki_miner.method.sequences import Phase1Params
from joseki_miner.runs.store import remove_unfinished

from joseki_miner.cluster.client import PARTITION_MB
from joseki_miner.method.points import DEEP_END

# The compiled engine (build, extract, ingest) is imported by the functions
# that run on the workers: the driver plans the partitions and the subtrees
# without loading numba.

FILES = (
    "games.parquet",
    "rejects.parquet",
    "sequences.parquet",
    "sorted.run",
    "trace.arrow",
    "filtered.arrow",
    "reject-trace.arrow",
)
# what a partition's folder holds, in its key: a partition mined by a
# version that wrote other files (or read its indexes in another order) is
# mined again, never half trusted (12: sequences.parquet holds each move's number and nearness)
FORMAT = 12
KEPT = "kept"  # in what ``mine`` returns of a partition kept from an earlier run
# a partition's sequences are read by every count of the build and by the
# join: lz4 decodes in half zstd's time (all data: 0.48 s against 0.89 s a
# reading, written in 0.54 s against 0.83 s) for 79 MiB against 46 MiB
SEQUENCES_CODEC = "lz4"
# written last, with each file's size and SHA-256: a partition's folder is
# whole once it holds it and its files read back the same (``_done``)
DONE = "figures.json"


@dataclass(frozen=True)
class Settings:
    """What mining a partition needs besides its files: the paths given to
    the run (collections are named from them), the parameters of ingest and
    extract, and ``key``, a digest of all of them.  Paths may be relative
    to the driver's folder: a dask task runs there (``cluster.in_folder``)."""

    named_from: tuple[str, ...]
    reading: Reading  # ingest's (on a worker: one thread, no bars)
    phase1: Phase1Params
    key: str


@dataclass(frozen=True)
class Partition:
    """Consecutive input files (``files``, read in this order), the kifu
    index files elsewhere in their collections they need (``indexes``),
    their bytes, and ``key``: a digest of the files' contents and names,
    the collections they fall in and the settings.  An archive larger than
    a partition is cut in parts: a partition then holds that one file, and
    ``part`` (k, K) says it reads the k-th of K runs of its members; a zip
    most of whose bytes are one member (a kifu month) or a kifu file is
    cut in runs of its games instead, ``rows`` (k, K).
    ``indexes`` are in the reading order, the first ``indexes_before`` of
    them before the partition's files (within a scope the index read last
    wins: the partition reads them in the order one reading does)."""

    number: int
    files: tuple[str, ...]
    indexes: tuple[str, ...]
    size: int
    key: str
    part: tuple[int, int] = (0, 1)
    indexes_before: int = 0
    rows: tuple[int, int] = (0, 1)


def _is_index(path: Path) -> bool:
    """A kifu index kept beside the games it describes: a ``.index`` file,
    or a file in a folder named ``index`` (Tom's and Tygem's layouts)."""
    return path.name.lower().endswith(".index") or path.parent.name.lower() == "index"


MAX_PARTS = 8  # of one archive: a part of a compressed tar inflates it from its start (see ``_parts``)


def _parts(path: Path, size: int, target_bytes: int) -> tuple[int, bool]:
    """In how many parts an input file is mined, and whether by runs of its
    games rather than of its members: an archive of many members about one
    a ``target_bytes``, at most ``MAX_PARTS``; a zip most of whose bytes
    are one member (a kifu month, maybe beside an index or a note) or a
    kifu file by its games (each part reads the whole file, a fifth of
    mining it or less, and replays its own games); any other file whole.
    Each part of a tar inflates it (its index pre-pass does already; the
    tar is then kept in memory and walked again): K parts cost K
    inflations, a tenth of mining it or less each, hence the cap; a part
    of a zip inflates its own members but reads the zip's directory.  A
    tar too large to be kept in memory (``KEPT_BYTES``; of a compressed
    one, only gzip says its size) would be streamed three times a part:
    whole."""
    parts = min(MAX_PARTS, round(size / target_bytes)) if target_bytes > 0 else 1
    if parts < 2:
        return 1, False
    try:
        with open(path, "rb") as fh:
            kind = sniff(path.name, fh.read(HEAD))
            fh.seek(0)
            if kind == "zip":
                members = [info.compress_size for info in zipfile.ZipFile(fh).infolist() if not info.is_dir()]
                if 2 * max(members, default=0) > size:
                    return parts, True
                return max(1, min(parts, len(members))), False
            if kind == "kifu":
                return parts, True
            if kind == "tar" and size <= KEPT_BYTES:
                return parts, False
            if kind == "gzip" and archives.compressed_holds_tar(kind, fh, path.name):
                fh.seek(-4, os.SEEK_END)
                inflated = int.from_bytes(fh.read(4), "little")  # ISIZE: the size inflated, modulo 4 GiB
                return (parts, False) if size <= inflated <= KEPT_BYTES else (1, False)
    except (OSError, *archives.READ_ERRORS):
        pass
    return 1, False


def plan(
    paths, settings: Settings, digests: dict[str, str], *, target_bytes: int = int(PARTITION_MB * 2**20), on_skip=None
) -> list[Partition]:
    """The run's partitions: the input files in reading order, cut once a
    partition holds ``target_bytes`` and where a path given starts, an
    archive larger than that in parts of its members (``_parts``); each
    with the index files of its collections that lie outside it.
    ``digests`` are the files' content digests by path
    (``inputs.inputs_key``); the walk reports what it skips to ``on_skip``
    as a one-process run would."""
    files: list[Path] = []
    starts: set[int] = set()  # a partition never spans two paths given: adding one leaves the others' partitions
    seen: set[str] = set()
    for given in paths:
        starts.add(len(files))
        for f in existing_files([given], on_skip, settings.reading.exclude):
            if os.path.abspath(f) not in seen:  # a file met twice is read once, as ``iter_files`` reads it
                seen.add(os.path.abspath(f))
                files.append(f)
    sizes = []
    for f in files:
        try:
            sizes.append(os.stat(f).st_size)
        except OSError:
            sizes.append(0)
    groups: list[list[int]] = [[]]
    cut: dict[int, tuple[int, bool]] = {}  # the groups that are a file in parts: ``_parts``, by group
    held = 0
    for i, size in enumerate(sizes):
        parts, by_rows = _parts(files[i], size, target_bytes)
        if groups[-1] and (held >= target_bytes or i in starts or parts > 1):
            groups.append([])
            held = 0
        groups[-1].append(i)
        held += size
        if parts > 1:
            cut[len(groups) - 1] = parts, by_rows
            held = target_bytes  # the next file starts a partition of its own
    indexes = [(i, index_scope(f)) for i, f in enumerate(files) if _is_index(f)]
    names = Collections(settings.named_from, settings.reading.collections_depth)
    partitions: list[Partition] = []
    for g, group in enumerate(groups):
        if not group:
            continue
        mine_ = set(group)
        folders = {os.path.abspath(files[i].parent).replace(os.sep, "/") for i in group}  # as scopes are written
        needed = [
            i
            for i, scope in indexes
            if i not in mine_ and any(f == scope or f.startswith(scope + "/") for f in folders)
        ]
        identity = [[str(files[i]), digests.get(str(files[i]), ""), names.of(str(files[i]))] for i in group]
        identity += [["index", str(files[i]), digests.get(str(files[i]), "")] for i in needed]
        size = sum(sizes[i] for i in group)
        parts, by_rows = cut.get(g, (1, False))
        for k in range(parts):
            whole = [joseki_miner.__version__, FORMAT, settings.key, identity]
            whole += [["rows" if by_rows else "part", k, parts]] if parts > 1 else []
            key = hashlib.sha256(json.dumps(whole).encode()).hexdigest()[:20]
            # the parts of a file cost about the same: each its share of the members or games to mine
            partitions.append(
                Partition(
                    len(partitions),
                    tuple(str(files[i]) for i in group),
                    tuple(str(files[i]) for i in needed),
                    size // parts,
                    key,
                    (0, 1) if by_rows else (k, parts),
                    sum(1 for i in needed if i < group[0]),
                    (k, parts) if by_rows else (0, 1),
                )
            )
    return partitions


# The build's counts: one a RANGE_LEAST sequences, so a count holds about as
# many whatever the games (cut below the first keys where the sequences crowd,
# ``fasttrie.deep_codes``), and at least one a worker; at most RANGES (each
# count opens every partition's sorted run: past that, counts grow instead),
# and none of more than RANGE_MOST.
RANGES = 4096
RANGE_LEAST = 20_000
RANGE_MOST = 2_000_000


def ranges_for(sequences: int, workers: int) -> int:
    """How many ranges the build counts apart, for ``sequences``."""
    return max(workers, min(RANGES, -(-sequences // RANGE_LEAST)), -(-sequences // RANGE_MOST))


def subtrees(counts: dict[int, int], parts: int) -> list[tuple[int, int]]:
    """At most ``parts`` ranges (lo, hi) of keys, in key order, the largest
    as small as can be (``counts``: sequences by key, ``fasttrie.deep_codes``:
    their first keys and the next ones): a range is the subtrees of its
    keys, counted apart from the others'.  A key is never split, so the
    largest range holds at least the most common key's sequences.  The ranges cover every key
    (0 to ``DEEP_END``): ``counts`` may be a sample (``shards.sampled``)."""
    keys = sorted(counts)
    if not keys:
        return [(0, DEEP_END)]
    held = list(itertools.accumulate((counts[k] for k in keys), initial=0))  # before each key

    def packed(most: int) -> list[int]:
        """Where the ranges start (greedy: each as full as ``most`` lets
        it), stopping past ``parts``."""
        starts = [0]
        while len(starts) <= parts:
            end = max(starts[-1] + 1, bisect.bisect_right(held, held[starts[-1]] + most) - 1)
            if end >= len(keys):
                break
            starts.append(end)
        return starts

    low, high = max(counts.values()), held[-1]
    while low < high:  # the smallest largest range that ``parts`` ranges allow
        middle = (low + high) // 2
        low, high = (low, middle) if len(packed(middle)) <= parts else (middle + 1, high)
    starts = packed(low)
    cuts = [0, *(keys[a] for a in starts[1:]), DEEP_END]  # every opening in a range, sampled or not
    return list(zip(cuts[:-1], cuts[1:]))


# -- mining one partition ----------------------------------------------------------


def _done(folder: Path) -> dict | None:
    """The figures of a partition mined whole into ``folder``, or None.
    Its files are checked against their sizes and SHA-256s, not trusted to
    have reached the disk: ``mine`` does not wait for them to (an fsync can
    hold a task for seconds), so a machine's crash may leave a folder
    renamed into place whose files were not all written, and that
    partition is mined again.  A file not read back when written
    (``digest_file``'s "unreadable") proves nothing."""
    try:
        record = json.loads((folder / DONE).read_text())
        files = record["files"]
        if set(files) == set(FILES) and all(
            len(digest) == HEX and (folder / name).stat().st_size == size and digest_file(folder / name) == digest
            for name, (size, digest) in files.items()
        ):
            return record["figures"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def mine(partition: Partition, settings: Settings, folder: str) -> dict:
    """Mine one partition into ``folder``/its key (kept from an earlier run
    when whole: then the figures say ``KEPT``); the ingest figures of its
    files."""
    out = Path(folder) / partition.key
    figures = _done(out)
    if figures is not None:
        return {**figures, KEPT: True}
    if out.exists():  # not whole: written by another version, or damaged
        shutil.rmtree(out, ignore_errors=True)
    from joseki_miner.cluster.shards import write_run
    from joseki_miner.stages import ingest
    from joseki_miner.stages.extract import Phase1Stream

    tmp = Path(folder) / f"{partition.key}-{uuid.uuid4().hex[:8]}.tmp"
    tmp.mkdir(parents=True)
    try:
        trace = ingest.Trace()
        stream = Phase1Stream(tmp / "sequences.parquet", settings.phase1, jobs=1, compression=SEQUENCES_CODEC)
        try:
            figures = ingest.read(
                list(partition.files),
                tmp / "games.parquet",
                tmp / "rejects.parquet",
                settings.reading,
                partition=ingest.InPartition(
                    Share(partition.indexes, partition.indexes_before, partition.part, partition.rows),
                    named_from=settings.named_from,
                    trace=trace,
                ),
                hooks=ingest.Hooks(on_games=stream.add, phase1=settings.phase1),
            )
        except BaseException:
            stream.abort()
            raise
        figures["sequences"] = stream.close()["sequences"]
        # the sequences in trie order too: each count of the build reads its range's alone
        games, names = _game_fields(tmp / "games.parquet")
        figures["prefixes"] = {
            str(k): n for k, n in write_run(tmp / "sequences.parquet", tmp / "sorted.run", games).items()
        }
        firsts, *others = trace.tables()
        for name, table in zip(FILES[4:], [_with_games(firsts, games[1:3], names), *others]):
            write_table(table, tmp / name)
        files = {name: [(tmp / name).stat().st_size, digest_file(tmp / name)] for name in FILES}
        (tmp / DONE).write_text(json.dumps({"figures": figures, "files": files}))
        try:
            os.rename(tmp, out)
        except OSError:  # another attempt at the same partition got there first
            if _done(out) is None:
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return figures


def _game_fields(games_path: Path) -> tuple[tuple[np.ndarray, ...], list[str | None]]:
    """A partition's games' winner, year, collection (a number of its
    own: the names' index) and day, and the names of its collections."""
    from joseki_miner.stages.build import first_met

    table = pq.ParquetFile(games_path).read(columns=["winner", "year", "collection", "day"])
    code, names = first_met(table.column("collection"))
    winner, year = numpy(table.column("winner")).astype(np.int8), numpy(table.column("year")).astype(np.int16)
    return (winner, year, code.astype(np.int32), numpy(table.column("day")).astype(np.int32)), names


def _with_games(firsts: pa.Table, games: tuple[np.ndarray, ...], names: list[str | None]) -> pa.Table:
    """trace.arrow with each first game's year and collection (of those
    the filters kept, games.parquet's rows; 0 and -1 for the others), and
    the collections' names: what ``resolve`` numbers the collections and
    years by, as the build numbers them reading every game kept."""
    kept = numpy(firsts.column("kept")).astype(bool)
    year, collection = np.zeros(len(kept), np.int16), np.full(len(kept), -1, np.int32)
    year[kept], collection[kept] = games
    table = firsts.append_column("year", column(year)).append_column("collection", column(collection))
    return table.replace_schema_metadata({COLLECTIONS: json.dumps(names)})


COLLECTIONS = "collections"  # trace.arrow's metadata: the partition's collections, by their numbers in it


def write_table(table: pa.Table, path: Path) -> None:
    """A partition's small table (its trace, the games its filters left
    out, its rejects' trace) as an Arrow file: resolve and the rejects' join
    read one a partition, where a Parquet file's footer and pages cost a
    tenth of a second a hundred partitions."""
    with pa.ipc.new_file(str(path), table.schema) as writer:
        writer.write_table(table)


def read_table(path: Path) -> pa.Table:
    """A table ``write_table`` wrote, read whole into memory (not mapped:
    the resolution that holds it outlives its partition's folder)."""
    return pa.ipc.open_file(pa.py_buffer(path.read_bytes())).read_all()


def clean(folder: Path, keep: set[str] | None = None) -> None:
    """Remove half-written partitions (a stopped run's, a killed worker's)
    and, given ``keep``, every partition not in it."""
    remove_unfinished(folder, keep)
