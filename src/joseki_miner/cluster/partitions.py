"""Partitions: the unit of work of the dask engine, and the steps that join
them into the very files the one-process engines write.

A partition is a run of consecutive input files (in the order every engine
reads them).  ``mine`` reads one, validates its games, finds their
sequences (the fast engine's one replay) and writes its games, rejects and
sequences, numbered within the partition, with a trace of each game's place
in the reading order and its fingerprint, to a folder of its own: pure in
its inputs (the files, their digests, the parameters), written under a
temporary name and renamed whole, so a partition done is kept (a later run,
``--add``, a retried task) and one half done is never trusted.

Joining is deterministic: a game is a duplicate of the first game with the
same moves in the reading order, wherever its partition (``resolve``, once
a run), and the games kept are numbered in that order.  ``write_rejects``
streams the partitions in order into one file, in the row groups the other
engines write: the same bytes, whatever the partitions and workers.
games.parquet and sequences.parquet are folders of a part a partition
(``write_games``, ``write_sequences``: a task each): their parts' rows,
end to end, are the other engines' files'."""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import os
import shutil
import uuid
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import joseki_miner
from joseki_miner.fast.arrow import column, numpy, strings
from joseki_miner.runs.inputs import HEX, Collections, digest_file
from joseki_miner.stages.params import Reading
from joseki_miner.readers import HEAD, KEPT_BYTES, archives, existing_files, index_scope, sniff
from joseki_miner.readers.dispatch import Share
from joseki_miner.method.gameinfo import date_span
from joseki_miner.method.records import bad_record, where_of
from joseki_miner.method.sequences import Phase1Params
from joseki_miner.runs.stop import check as check_stop
from joseki_miner.runs.store import remove_unfinished

from joseki_miner.cluster.client import PARTITION_MB
from joseki_miner.runs.errors import StrictError
from joseki_miner.fast.parquet import ROW_GROUP, TableSink
from joseki_miner.fast.tables import GAMES_SCHEMA, REJECTS_SCHEMA, SEQUENCES_SCHEMA
from joseki_miner.runs.catalog import part_name
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


# -- joining the partitions ------------------------------------------------------------


@dataclass
class Resolution:
    """Per partition: which of its games are kept (``keep``, by its number
    in games.parquet), the number of its first kept game in the joined
    files (``first``); which of its first games (``trace``: those no earlier
    game of the partition repeats, accepted or filtered) stay first games
    (``first_kept``), and for every one that repeats a first game of an
    earlier partition, that game's (partition, first-game number in it)
    (``repeats``: by the game's first-game number)."""

    keep: list[np.ndarray]
    first: list[int]
    first_kept: list[np.ndarray]
    repeats: list[dict[int, tuple[int, int]]]
    read: list[np.ndarray]  # per partition, each first game's number in its reading order
    kept: list[np.ndarray]  # per partition, each first game: did the filters keep it?
    filtered: list[pa.Table]  # per partition, its filtered.arrow: the first games the filters left out
    collections: list[str | None]  # the games kept's collections, numbered as first met (``build.Collections``)
    numbers: list[np.ndarray]  # per partition, the number of each of its collections among those (-1: none kept)
    by_year: dict[int, int]  # the games kept, by year (0: not known), in order

    @property
    def years(self) -> tuple[int, int]:
        """The games kept's first and last known year (0, 0: none known)."""
        known = [year for year in self.by_year if year > 0]
        return (known[0], known[-1]) if known else (0, 0)

    @property
    def accepted(self) -> int:
        """The games kept: those the joined games.parquet holds."""
        return sum(int(keep.sum()) for keep in self.keep)

    def joined_numbers(self, p: int) -> np.ndarray:
        """Per game of partition ``p``, its number in the joined files (a
        kept game's; a dropped game's is not used)."""
        return np.cumsum(self.keep[p]) - 1 + self.first[p]

    def unfiltered(self, p: int) -> Counter:
        """The games partition ``p``'s filters left out that repeat an
        earlier partition's game: duplicates, not filtered, by the filter's
        reason."""
        left = [g for g in sorted(self.repeats[p]) if not self.kept[p][g]]
        return Counter(self.left_out(p, left).column("reason").to_pylist() if left else [])

    def left_out(self, p: int, firsts: list[int]) -> pa.Table:
        """The rows of partition ``p``'s filtered.arrow of its first games
        ``firsts`` (each one the filters left out), in that order."""
        table = self.filtered[p]
        at = np.searchsorted(numpy(table.column("first")), np.asarray(firsts, np.int64))
        return table.take(column(at, np.int64))


def resolve(folder: str, keys: list[str], dedupe: bool) -> Resolution:
    """Duplicates across partitions, resolved as one reading resolves them:
    the first game with the same moves in the reading order stays first,
    whether the filters kept it or not (``ingest``'s order), and a game
    that repeats it is a duplicate."""
    traces = [read_table(Path(folder) / k / "trace.arrow") for k in keys]
    counts = [t.num_rows for t in traces]
    starts = np.r_[0, np.cumsum(counts)].astype(np.int64)
    first_of = np.arange(starts[-1], dtype=np.int64)
    if dedupe and starts[-1]:
        h1 = np.concatenate([numpy(t.column("h1")) for t in traces])
        h2 = np.concatenate([numpy(t.column("h2")) for t in traces])
        order = np.lexsort((h2, h1))  # stable: the first of equal fingerprints comes first
        new = np.r_[True, (h1[order][1:] != h1[order][:-1]) | (h2[order][1:] != h2[order][:-1])]
        group = np.cumsum(new) - 1
        first_of[order] = order[np.flatnonzero(new)][group]
    stays = first_of == np.arange(starts[-1])
    kept_all = [numpy(t.column("kept")).astype(bool) for t in traces]  # 1: the filters kept it
    part_of = np.repeat(np.arange(len(keys)), counts)
    keep, first, first_kept, repeats = [], [], [], []
    kept_before = 0
    for p in range(len(keys)):
        lo, hi = starts[p], starts[p + 1]
        keep.append(stays[lo:hi][kept_all[p]])
        first.append(kept_before)
        kept_before += int(keep[-1].sum())
        first_kept.append(stays[lo:hi])
        dropped = np.flatnonzero(~stays[lo:hi])
        f = first_of[lo + dropped]
        repeats.append({int(k): (int(part_of[g]), int(g - starts[part_of[g]])) for k, g in zip(dropped, f)})
    return Resolution(
        keep,
        first,
        first_kept,
        repeats,
        [numpy(t.column("read")) for t in traces],
        kept_all,
        [read_table(Path(folder) / k / "filtered.arrow") for k in keys],
        *_tallies(traces, kept_all, keep),
    )


def _tallies(
    traces: list[pa.Table], kept_all: list[np.ndarray], keep: list[np.ndarray]
) -> tuple[list[str | None], list[np.ndarray], dict[int, int]]:
    """The games kept's collections, numbered as first met, each
    partition's numbers of its own, and their number by year: what the
    build's counter knows of the games (``build.Collections``) and the
    eras of the report's page of what changed, from the partitions'
    traces, so that no task reads a game."""
    index: dict[str | None, int] = {}
    by_year: Counter[int] = Counter()
    names_of = [json.loads(t.schema.metadata[COLLECTIONS.encode()]) for t in traces]
    for t, names, filters_kept, stays in zip(traces, names_of, kept_all, keep):
        code = numpy(t.column("collection"))[filters_kept][stays]
        year = numpy(t.column("year"))[filters_kept][stays]
        firsts, at = np.unique(code, return_index=True)
        for c in firsts[np.argsort(at)].tolist():
            index.setdefault(names[c], len(index))
        by_year.update(dict(zip(*(a.tolist() for a in np.unique(year, return_counts=True)))))
    numbers = [np.array([index.get(n, -1) for n in names], np.int16) for names in names_of]
    return list(index), numbers, dict(sorted(by_year.items()))


@dataclass(frozen=True)
class Joined:
    """The partitions as the joined files will hold them: the games kept,
    in order, and their sequences, numbered as joined, each with its game's
    winner, year, collection and day.  The joins write them; the build counts
    them (as ``build.Stored``) while the joins run."""

    folder: str
    keys: tuple[str, ...]
    resolution: Resolution

    def games_of(self, p: int, columns: list[str] | None = None) -> pa.Table:
        """Partition ``p``'s games kept (``columns`` of games.parquet), game
        numbers as in the partition."""
        table = pq.ParquetFile(Path(self.folder) / self.keys[p] / "games.parquet").read(columns=columns)
        keep = self.resolution.keep[p]
        return table if keep.all() else table.filter(column(keep))

    def parts(self, key_range: tuple[int, int]):
        """Per partition, its sequences whose ``fasttrie.deep_codes`` are in
        ``key_range`` of the games kept, numbered as joined, in trie order (the
        partitions' sorted runs, ``shards.write_run``): offsets, keys,
        scores, fields, True (in trie order)."""
        from joseki_miner.fast import sortedrun
        from joseki_miner.stages.build import select

        res = self.resolution
        for p, key in enumerate(self.keys):
            check_stop()
            part = sortedrun.read(Path(self.folder) / key / "sorted.run", key_range)
            if part is None:
                continue
            kept = res.keep[p][part[3]["game"]]
            if not kept.all():
                part = select(part, np.flatnonzero(kept))
            part[3]["game"] = res.joined_numbers(p)[part[3]["game"]]
            part[3]["source"] = res.numbers[p][part[3].pop("collection")]
            yield (*part, True)

    def tallies(self) -> tuple:
        """``build.Stored.tallies``: the games kept's collections and years
        (``Resolution``), and None: each sequence carries its game's
        winner, year and collection number (``parts``)."""
        from joseki_miner.stages import build

        return build.Collections.of(self.resolution.collections, self.resolution.years), None

    def sequences(self, columns: list[str] | None, batch_size: int):
        """The sequences of the games kept, in batches of at most
        ``batch_size``, numbered by their games' joined numbers."""
        for p in range(len(self.keys)):
            yield from self.sequences_of(p, columns, batch_size)

    def sequences_of(self, p: int, columns: list[str] | None, batch_size: int):
        """``sequences`` of partition ``p``'s games alone."""
        res = self.resolution
        read = columns if columns is None or "game" in columns else ["game", *columns]
        number = res.joined_numbers(p)
        for batch in pq.ParquetFile(Path(self.folder) / self.keys[p] / "sequences.parquet").iter_batches(
            batch_size, columns=read
        ):
            game = numpy(batch.column("game"))
            kept = res.keep[p][game]
            if not kept.all():
                batch = batch.filter(column(kept))
                game = game[kept]
            if read is not columns:
                yield pa.RecordBatch.from_arrays([batch.column(c) for c in columns], names=list(columns))
                continue
            arrays = list(batch.columns)
            arrays[batch.schema.get_field_index("game")] = column(number[game].astype(np.int64))
            yield pa.RecordBatch.from_arrays(arrays, schema=batch.schema)


def write_games(folder: str, keys: list[str], res: Resolution, p: int, into: str) -> dict:
    """Partition ``p``'s part of games.parquet (a folder of parts, ``into``):
    its games kept, numbered as joined (``res``: ``resolve``'s), in the
    row groups a file of its own would hold; what ``games_figures`` adds
    up.  A task of its own for each partition: no task reads or writes
    every game."""
    table = Joined(folder, tuple(keys), res).games_of(p)
    table = table.set_column(0, "game", column(np.arange(res.first[p], res.first[p] + table.num_rows, dtype=np.int64)))
    _write_part(into, p, GAMES_SCHEMA, [table])
    year, count = np.unique(numpy(table.column("year")), return_counts=True)
    return {
        "accepted": table.num_rows,
        "by_year": dict(zip(year.tolist(), count.tolist())),
        "by_collection": dict(Counter(table.column("collection").to_pylist())),
        "repeats_filtered": dict(res.unfiltered(p)),
        "dates": date_span(numpy(table.column("day")), [0, 0]),
    }


def games_figures(parts: list[dict]) -> dict:
    """The figures that count the games kept (accepted, by year, by
    collection, their first and last date, and the repeats the filters
    left out), of the parts of
    games.parquet (``write_games``' of each, in order)."""
    by_year: Counter[int] = Counter()
    by_collection: Counter[str] = Counter()
    repeats: Counter[str] = Counter()
    dates = [0, 0]
    for part in parts:
        dates = date_span(np.array(part["dates"], np.int64), dates)
        by_year.update(part["by_year"])
        by_collection.update(part["by_collection"])
        repeats.update(part["repeats_filtered"])
    return {
        "games_accepted": sum(part["accepted"] for part in parts),
        "games_by_year": {str(y): n for y, n in sorted(by_year.items()) if y},
        "games_by_collection": dict(sorted(by_collection.items())),
        "games_dates": dates,
        "repeats_filtered": dict(repeats),
    }


def _read_at(folder: str, key: str, res: Resolution, p: int, firsts: list[int]) -> dict[int, tuple[str, str]]:
    """Where each of partition ``p``'s first games ``firsts`` was read
    (source, location): one the filters left out, as its filtered.arrow
    row says; an accepted one, as its row of games.parquet does."""
    kept = res.kept[p]
    left = [g for g in firsts if not kept[g]]
    rows = res.left_out(p, left).select(["source", "location"]).to_pylist() if left else []
    found = {g: (r["source"], r["location"]) for g, r in zip(left, rows)}
    accepted = [g for g in firsts if kept[g]]
    if accepted:
        row = np.cumsum(kept) - 1  # an accepted first game's row in games.parquet
        table = pq.ParquetFile(Path(folder) / key / "games.parquet").read(columns=["source", "location"])
        picked = table.take(column([int(row[g]) for g in accepted], np.int64)).to_pylist()
        found.update({g: (r["source"], r["location"]) for g, r in zip(accepted, picked)})
    return found


def write_rejects(folder: str, keys: list[str], res: Resolution, path: str, strict: bool = False) -> dict:
    """rejects.parquet of the partitions joined, in the reading order: each
    partition's own, and its first games that repeat a first game of an
    earlier one (named, as a duplicate's first game always is, by where the
    first was read); the figure of the games rejected by reason.
    ``strict``: the first bad record fails the run (a game the settings
    leave out, ``records.LEFT_OUT``, does not)."""
    wanted: dict[int, set[int]] = {}  # the first games named, by partition
    traces = [read_table(Path(folder) / k / "reject-trace.arrow") for k in keys]
    for p in range(len(keys)):
        for q, g in res.repeats[p].values():
            wanted.setdefault(q, set()).add(g)
        for g in numpy(traces[p].column("first")).tolist():
            if g >= 0 and not res.first_kept[p][g]:
                q, h = res.repeats[p][g]
                wanted.setdefault(q, set()).add(h)
    where = {
        q: {g: where_of(*at) for g, at in _read_at(folder, keys[q], res, q, sorted(games)).items()}
        for q, games in wanted.items()
    }
    sink = TableSink(Path(path), REJECTS_SCHEMA)
    reasons: Counter[str] = Counter()
    try:
        for p, key in enumerate(keys):
            own = pq.ParquetFile(Path(folder) / key / "rejects.parquet").read()
            first = numpy(traces[p].column("first"))
            detail = own.column("detail").to_pylist()
            for i in np.flatnonzero(first >= 0).tolist():  # a duplicate of a game that repeats an earlier partition's
                g = int(first[i])
                if not res.first_kept[p][g]:
                    q, h = res.repeats[p][g]
                    detail[i] = f"same moves as {where[q][h]}"
            own = own.set_column(3, "detail", strings(detail))
            read = numpy(traces[p].column("read"))
            if res.repeats[p]:
                games = sorted(res.repeats[p])
                at = _read_at(folder, key, res, p, games)
                details = [f"same moves as {where[q][h]}" for q, h in (res.repeats[p][g] for g in games)]
                more = pa.Table.from_arrays(
                    [
                        strings([at[g][0] for g in games]),
                        strings([at[g][1] for g in games]),
                        strings(["duplicate"] * len(games)),
                        strings(details),
                    ],
                    schema=REJECTS_SCHEMA,
                )
                own = pa.concat_tables([own, more])
                read = np.r_[read, res.read[p][games]]
                own = own.take(column(np.argsort(read, kind="stable"), np.int64))
            if strict and own.num_rows:  # the first bad record (not a game the settings leave out)
                bad = [i for i, reason in enumerate(own.column("reason").to_pylist()) if bad_record(reason)]
                if bad:
                    raise StrictError.of(**own.slice(bad[0], 1).to_pylist()[0])
            reasons.update(own.column("reason").to_pylist())
            if own.num_rows:
                sink.add(own)
        sink.close()
    except BaseException:
        sink.abort()
        raise
    return {"games_rejected": dict(sorted(reasons.items()))}


def write_sequences(folder: str, keys: list[str], res: Resolution, p: int, into: str) -> dict:
    """Partition ``p``'s part of sequences.parquet (a folder of parts,
    ``into``): the sequences of its games kept, numbered as the joined
    games.parquet numbers them, each part in the row groups a file of
    its own would hold.  A task of its own for each partition: no task
    reads or writes every sequence."""
    from joseki_miner.stages.extract import SEQUENCE_ROWS

    batches = Joined(folder, tuple(keys), res).sequences_of(p, None, SEQUENCE_ROWS)
    tables = (pa.Table.from_batches([batch]) for batch in batches)
    return {"sequences": _write_part(into, p, SEQUENCES_SCHEMA, tables, SEQUENCE_ROWS, use_dictionary=False)}


def _write_part(into: str, p: int, schema: pa.Schema, tables, rows: int = ROW_GROUP, **options) -> int:
    """Part ``p`` of a folder of parts, of ``tables``: written under a
    temporary name, renamed once whole unless the run has stopped (a task
    of a stopped run puts no part in the next run's folder); its rows."""
    path = Path(into) / part_name(p)
    writing = path.with_name(path.name + ".tmp")
    sink = TableSink(writing, schema, rows, **options)
    count = 0
    try:
        for table in tables:
            check_stop()
            count += table.num_rows
            sink.add(table)
        sink.close()
        check_stop()
        os.replace(writing, path)
    except BaseException:
        sink.abort()
        raise
    return count


def check_parts(into: str, count: int) -> None:
    """That a folder of parts holds a part for each of ``count`` partitions (at
    least one) and nothing else, before its stage commits: a part missing
    or left over would renumber every row after it."""
    found = sorted(os.listdir(into))
    if found != [part_name(p) for p in range(max(1, count))]:
        raise RuntimeError(
            f"{into} holds {len(found)} files, not the {max(1, count)} parts this run wrote "
            "(do the workers share the driver's work folder?)"
        )


def no_partitions(games: str | None, sequences: str) -> None:
    """games.parquet (where given) and sequences.parquet of no partitions:
    a part each, of no rows."""
    if games is not None:
        TableSink(Path(games) / part_name(0), GAMES_SCHEMA).close()
    TableSink(Path(sequences) / part_name(0), SEQUENCES_SCHEMA, use_dictionary=False).close()


def ingest_figures(parts: list[dict], games: dict, rejects: dict, skipped: Counter) -> dict:
    """The ingest stage's figures of the partitions joined, in the order a
    one-process run gives them."""

    def summed(name: str) -> dict:
        total: Counter = Counter()
        for f in parts:
            total.update(f.get(name, {}))
        return dict(sorted(total.items()))

    files_skipped = Counter(summed("files_skipped"))
    files_skipped.update(skipped)
    filtered = Counter(summed("games_filtered"))
    filtered.subtract(games.get("repeats_filtered", {}))  # duplicates of an earlier partition's games
    filtered = +filtered
    return {
        "games_read": sum(f["games_read"] for f in parts),
        "games_accepted": games["games_accepted"],
        "games_rejected": rejects["games_rejected"],
        "games_filtered": dict(sorted(filtered.items())),
        "files_skipped": dict(sorted(files_skipped.items())),
        "games_by_year": games["games_by_year"],
        "games_by_collection": games["games_by_collection"],
        "games_dates": games["games_dates"],
    }
