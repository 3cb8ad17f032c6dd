"""What a run's inputs are: the files it reads, and each one's content.

The ingest stage's cache key must change whenever an input's bytes change.
A file's size and modification time do not tell that: a file rewritten in
place within one tick of the file system's clock, at the same size, keeps
both.  So each file is known by a digest of its content (SHA-256: about
1.5 GB/s on this project's machine, 0.05 s for all of ../shared/data, next to
6 s of reading it).  Digests are cached by the file's stat identity (device,
inode, size, modification and change times), as git's index caches them, so
a run whose inputs have not changed reads none of them: a file whose
identity is unchanged keeps its digest, unless it changed so close to the
moment its digest was taken that a later change might not move its times
(git calls such entries "racy"); those are not cached, and hashed again.
The change time cannot be set by programs and moves with every write, so a
file edited in place is always hashed again.

Also how the games read are named by collection (``Collections``) and
which are left out as they are read (``Filters``).

Knows files and the names of collections; nothing of games' moves.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from . import stop
from .arrow import column, numpy, strings
from .readers import iter_files
from .store import staged, sync_folder

CHUNK = 1 << 20
RACY_NS = 2_000_000_000  # a change this close to the digest's moment may not move the file's times (FAT: 2 s)
CACHE_SCHEMA = pa.schema([
    ("path", pa.string()), ("dev", pa.int64()), ("ino", pa.int64()), ("size", pa.int64()),
    ("mtime_ns", pa.int64()), ("ctime_ns", pa.int64()), ("digest", pa.string()),
])


def digest_file(path: str | os.PathLike) -> str:
    """SHA-256 of a file's content (hex), or why it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while chunk := f.read(CHUNK):
                h.update(chunk)
    except OSError as exc:
        return f"unreadable: {exc.strerror or type(exc).__name__}"
    return h.hexdigest()


def _stat_key(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _text(path: str) -> str:
    """A path as text that any encoder takes (names that are not UTF-8 keep
    their bytes as escapes)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def load_cache(path: Path | None) -> dict[str, tuple]:
    """The digests cached at ``path``: by file path, (stat key, digest)."""
    if path is None:
        return {}
    try:
        table = pq.ParquetFile(path).read()  # not read_table: that imports pandas
        if table.schema != CACHE_SCHEMA:
            return {}
    except Exception:  # noqa: BLE001 - a cache that cannot be read is no cache: every file is hashed
        return {}
    numbers = [numpy(table.column(name)).tolist() for name in ("dev", "ino", "size", "mtime_ns", "ctime_ns")]
    return {p: (key, digest) for p, digest, *key in
            zip(table.column("path").to_pylist(), table.column("digest").to_pylist(), *numbers)}


def _save_cache(path: Path, entries: dict[str, tuple]) -> None:
    rows = sorted(entries.items())
    keys = np.array([key for _, (key, _) in rows], dtype=np.int64).reshape(-1, 5)
    arrays = [strings([p for p, _ in rows]), *(column(keys[:, i]) for i in range(5)),
              strings([digest for _, (_, digest) in rows])]
    tmp = staged(path)
    pq.write_table(pa.Table.from_arrays(arrays, schema=CACHE_SCHEMA), tmp, compression="zstd")
    os.replace(tmp, path)
    sync_folder(path.parent)


def inputs_key(paths: Iterable[str | os.PathLike], *, cache: Path | None = None,
               exclude: Iterable[str | os.PathLike] = (), jobs: int = 2,
               digests: dict[str, str] | None = None) -> tuple[str, dict]:
    """A key that changes whenever the inputs do: every file read (its path
    as given and as resolved, its content's digest) and everything skipped
    without reading (a FIFO...).  Digests are cached in ``cache`` (a Parquet
    file); ``exclude`` as ``iter_files``.  Returns the key and figures
    (files, bytes, files hashed); ``digests``, when given, gets each file's
    digest by its path as ``iter_files`` gives it."""
    skipped: list[tuple[str, str]] = []
    files = [str(f) for f in iter_files(paths, lambda s, loc, why: skipped.append((_text(s), why)), exclude)]
    known = load_cache(cache)
    now = time.time_ns()
    entries: dict[str, tuple] = {}
    todo: list[tuple[int, str]] = []
    rows: list[list] = []
    for f in files:
        real = os.path.realpath(f)
        try:
            st = os.stat(f)
        except OSError as exc:
            rows.append([_text(f), _text(real), -1, f"unreadable: {exc.strerror}"])
            continue
        key = _stat_key(st)
        rows.append([_text(f), _text(real), st.st_size, None])
        cached = known.get(_text(real))
        if cached is not None and tuple(cached[0]) == key:
            rows[-1][3] = cached[1]
            entries[_text(real)] = cached
        else:
            todo.append((len(rows) - 1, f))
        if max(st.st_mtime_ns, st.st_ctime_ns) >= now - RACY_NS:
            entries.pop(_text(real), None)  # racy: its times may not move at its next change
    if todo:
        with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="digest") as pool:
            for (row, f), digest in zip(todo, pool.map(digest_file, [f for _, f in todo])):
                stop.check()
                rows[row][3] = digest
                try:
                    st = os.stat(f)
                except OSError:
                    continue
                if (not digest.startswith("unreadable") and rows[row][2] == st.st_size
                        and max(st.st_mtime_ns, st.st_ctime_ns) < now - RACY_NS):
                    entries[_text(os.path.realpath(f))] = (_stat_key(st), digest)
    if cache is not None and (todo or len(entries) != len(known)):
        try:
            _save_cache(cache, entries)
        except OSError:  # a cache not written only costs hashing again
            pass
    if digests is not None:
        digests.update((row[0], row[3]) for row in rows)
    text = json.dumps({"files": rows, "skipped": skipped}, sort_keys=True)
    figures = {"input_files": len(files), "input_bytes": sum(max(r[2], 0) for r in rows), "files_hashed": len(todo)}
    return hashlib.sha256(text.encode()).hexdigest()[:16], figures


class Collections:
    """The collection each game comes from, named by where it was read:
    the path given on the command line, or with ``depth`` 1 (2...) the
    folder one (two...) levels inside a folder given (files less deep stay
    with the folder above them).  Named as given, with ``/`` between parts."""

    def __init__(self, paths: Iterable[str | os.PathLike], depth: int = 1) -> None:
        # as the readers write sources: a path given, normalized (``Path``), and the files under it
        self.given = sorted({str(Path(p)) for p in paths}, key=len, reverse=True)  # the longest first
        self.depth = depth
        self.known: dict[str, str] = {}

    def of(self, source: str) -> str:
        """The collection of a game read from ``source`` (a file as the
        readers name it: a path given, or one under a folder given)."""
        name = self.known.get(source)
        if name is None:
            name = self.known[source] = self._name(source)
        return name

    def _name(self, source: str) -> str:
        for given in self.given:
            if source == given:
                return _text(given.rstrip("/") or given)
            prefix = given.rstrip(os.sep) + os.sep
            if source.startswith(prefix):
                parts = source[len(prefix):].split(os.sep)[:-1]  # the folders between, not the file
                return _text("/".join([given.rstrip(os.sep) or given, *parts[: self.depth]]))
        return _text(source)

    def selected(self, name: str, wanted: Iterable[str]) -> bool:
        """Is the collection ``name`` one of ``wanted`` (a name, or the last
        part of one)?"""
        return any(name == w or name.rsplit("/", 1)[-1] == w.rstrip("/") for w in wanted)


@dataclass(frozen=True)
class Filters:
    """Games left out as they are read (config ``filter.*``), each counted
    with its reason: a year outside ``years`` (from, to; a game without a
    date too), a collection not in ``sources``, a result naming no winner
    when ``result_known``.  A game that cannot be mined is rejected first;
    a game left out is not looked for among the duplicates."""

    years: tuple[int, int] | None = None
    sources: tuple[str, ...] | None = None
    result_known: bool = False

    def reasons(self, year: np.ndarray, winner: np.ndarray, collection: list[str],
                collections: Collections) -> list[str | None]:
        """Per game, why it is left out (the first reason), or None."""
        out: list[str | None] = [None] * len(year)
        if self.years is not None:
            low, high = self.years
            for k in np.flatnonzero((year < low) | (year > high)).tolist():
                out[k] = f"year not in {low}-{high}" if year[k] else "no date"
        if self.sources is not None:
            for k, name in enumerate(collection):
                if out[k] is None and not collections.selected(name, self.sources):
                    out[k] = "collection not selected"
        if self.result_known:
            for k in np.flatnonzero(winner == 0).tolist():
                out[k] = out[k] or "result names no winner"
        return out

    @property
    def active(self) -> bool:
        return self.years is not None or self.sources is not None or self.result_known
