"""Parquet helpers shared by the stages' work: a sink that writes row
groups in the background, row counts, string columns as bytes, and a
file read alike whether it is one file or a folder of parts (the dask
engine writes sequences.parquet as a part a partition)."""

from __future__ import annotations

import itertools
import os
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from joseki_miner.fast.arrow import column
from joseki_miner.runs import threads
from joseki_miner.runs.catalog import parts_of

ROW_GROUP = 50_000


def count_rows(path: Path) -> int:
    return sum(pq.read_metadata(p).num_rows for p in parts_of(path))


def iter_batches(path: Path, batch_size: int, columns: list[str] | None = None):
    """The rows of a file or of a folder of parts, in batches of at most
    ``batch_size`` (a batch ends with its part)."""
    for part in parts_of(path):
        yield from pq.ParquetFile(part).iter_batches(batch_size=batch_size, columns=columns)


def read_columns(path: Path, columns: list[str] | None = None, dictionary: list[str] | None = None) -> pa.Table:
    """``columns`` of every row of a file or a folder of parts (those of
    ``dictionary`` read as dictionaries: a part's each)."""
    return pa.concat_tables(
        [pq.ParquetFile(part, read_dictionary=dictionary).read(columns=columns) for part in parts_of(path)]
    )


class RowGroups:
    """The row groups of a file or a folder of parts, in order, each with
    its first row: rows read by their numbers (a game's number is its row
    of games.parquet), only the groups that hold them read.  A part is
    opened only to read its groups: a folder of thousands stays within
    the limit of open files."""

    def __init__(self, path: Path) -> None:
        parts = parts_of(path)
        footers = [pq.read_metadata(part) for part in parts]
        self.groups = [(part, i) for part, meta in zip(parts, footers) for i in range(meta.num_row_groups)]
        self.footers = [meta.row_group(i) for meta in footers for i in range(meta.num_row_groups)]
        sizes = [group.num_rows for group in self.footers]
        self.sizes = np.array(sizes, np.int64)
        self.starts = np.r_[0, np.cumsum(sizes)].astype(np.int64)
        self.schema = pq.read_schema(parts[0])

    def read(self, wanted: list[int], columns: list[str]) -> pa.Table:
        """``columns`` of the groups ``wanted`` (ascending), in order."""
        tables = []
        for part, group in itertools.groupby(wanted, key=lambda g: self.groups[g][0]):
            with pq.ParquetFile(part, memory_map=True) as f:  # (half the time of its buffered reads)
                tables.append(f.read_row_groups([self.groups[g][1] for g in group], columns))
        if not tables:  # (not empty_table(): that imports pandas)
            return pa.Table.from_batches([], pa.schema([self.schema.field(c) for c in columns]))
        return pa.concat_tables(tables)

    def rows_at(self, rows: np.ndarray, columns: list[str]) -> pa.Table:
        """Some rows, in the order asked."""
        rows = np.asarray(rows, np.int64)
        group = np.searchsorted(self.starts, rows, side="right") - 1
        wanted = sorted(set(group.tolist()))
        table = self.read(wanted, columns)
        if not wanted:
            return table
        base = np.zeros(len(self.sizes), np.int64)
        base[wanted] = np.r_[0, np.cumsum(self.sizes[wanted])][:-1] - self.starts[wanted]
        return table.take(column(rows + base[group], np.int64))  # (pa.array would import pandas)

    def picked(self, wanted: Callable[[int, int], bool], on: str | None = None) -> list[int]:
        """The groups whose column ``on``'s (the first's) least and
        greatest values ``wanted`` accepts (a group without statistics
        too), in order."""
        at = self.schema.get_field_index(on) if on is not None else 0
        stats = [group.column(at).statistics for group in self.footers]
        return [g for g, s in enumerate(stats) if s is None or not s.has_min_max or wanted(s.min, s.max)]

    def where(self, wanted: Callable[[int, int], bool], columns: list[str]) -> pa.Table:
        """The groups whose first column's least and greatest values
        ``wanted`` accepts (a group without statistics is read), in order."""
        return self.read(self.picked(wanted), columns)

    def row_range(self, lo: int, hi: int, columns: list[str]) -> pa.Table:
        """Rows lo..hi-1."""
        first = int(np.searchsorted(self.starts, lo, side="right")) - 1
        last = int(np.searchsorted(self.starts, hi - 1, side="right")) - 1
        if hi <= lo or first < 0:
            return self.read([], columns)
        return self.read(list(range(first, last + 1)), columns).slice(lo - int(self.starts[first]), hi - lo)


def rows_at(path: Path, rows: np.ndarray, columns: list[str], part_rows: list[int] | None = None) -> pa.Table:
    """Some rows of a file or a folder of parts, in the order asked,
    reading only the row groups that hold them.  Given each part's rows
    (``part_rows``, where the run knows them), only the parts that hold
    them are opened: of a folder of thousands, the others' footers are
    not read."""
    if part_rows is None:
        return RowGroups(path).rows_at(rows, columns)
    parts, rows = parts_of(path), np.asarray(rows, np.int64)
    if not len(rows):  # (a run of no partitions holds one part, empty)
        return RowGroups(parts[0]).read([], columns)
    if len(parts) != len(part_rows):
        raise RuntimeError(f"{path} holds {len(parts)} parts, not {len(part_rows)}")
    starts = np.r_[0, np.cumsum(np.asarray(part_rows, np.int64))]
    if rows.min() < 0 or rows.max() >= starts[-1]:
        raise RuntimeError(f"rows asked of {path} past its {starts[-1]}")
    part = np.searchsorted(starts, rows, side="right") - 1
    tables = []
    for p in np.unique(part).tolist():
        groups = RowGroups(parts[p])
        if groups.starts[-1] != part_rows[p]:
            raise RuntimeError(f"{parts[p]} holds {groups.starts[-1]} rows, not {part_rows[p]}")
        tables.append(groups.rows_at(rows[part == p] - starts[p], columns))
    at = np.empty(len(rows), np.int64)
    at[np.argsort(part, kind="stable")] = np.arange(len(rows))  # the tables hold the rows by part, in order
    return pa.concat_tables(tables).take(column(at, np.int64))


def row_range(path: Path, lo: int, hi: int, columns: list[str]) -> pa.Table:
    """Rows lo..hi-1 of a file or a folder of parts, reading only the row
    groups that hold them."""
    return RowGroups(path).row_range(lo, hi, columns)


def groups_where(path: Path, wanted: Callable[[int, int], bool], columns: list[str]) -> pa.Table:
    """The row groups of a file or a folder of parts whose first column's
    least and greatest values ``wanted`` accepts (a group without
    statistics is read), in order: ``columns`` of them."""
    return RowGroups(path).where(wanted, columns)


def string_bytes(column: pa.StringArray) -> tuple[np.ndarray, np.ndarray]:
    """The offsets (from 0) and the bytes of a string column, without copying
    it into Python strings."""
    offsets = np.frombuffer(column.buffers()[1], dtype=np.int32)[column.offset : column.offset + len(column) + 1]
    data = np.frombuffer(column.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    return offsets - offsets[0], data


class TableSink:
    """Write tables to Parquet in row groups of exactly ``rows`` rows, so the
    file does not depend on how the rows arrived (``options`` go to the
    ParquetWriter).  With ``background``, a thread of its own (at the
    workers' lower priority) encodes and writes, in order, while the caller
    goes on.  The file is whole once closed; a run that fails ``abort``s it
    (the runner gives a staged path and commits it: ``store``)."""

    def __init__(
        self, path: Path, schema: pa.Schema, rows: int = ROW_GROUP, background: bool = False, **options
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.schema, self.rows = schema, rows
        self.pending: list[pa.Table] = []
        self.count = self.written = 0
        self.writer = pq.ParquetWriter(path, schema, **{"compression": "zstd", **options})
        self.thread = threads.pool(1, "sink", yield_to_reader) if background else None
        self.queued: deque[Future] = deque()

    def add(self, table: pa.Table | Callable[[], pa.Table]) -> None:
        """Rows to write: a table, or what makes one (with ``background``,
        made in the sink's thread too)."""
        if self.thread is None:
            return self._add(table)
        self.queued.append(self.thread.submit(self._add, table))
        while len(self.queued) > 2 or (self.queued and self.queued[0].done()):
            self.queued.popleft().result()  # errors surface here

    def _add(self, table: pa.Table | Callable[[], pa.Table]) -> None:
        if callable(table):
            table = table()
        self.pending.append(table)
        self.count += table.num_rows
        if self.count - self.written >= self.rows:
            whole = pa.concat_tables(self.pending)
            cut = (whole.num_rows // self.rows) * self.rows
            for a in range(0, cut, self.rows):
                # one chunk a column: pages must not depend on how rows arrived
                self.writer.write_table(whole.slice(a, self.rows).combine_chunks(), row_group_size=self.rows)
            self.pending = [whole.slice(cut)]
            self.written += cut

    def close(self, finish: list[Callable[[], None]] | None = None) -> None:
        """Write what is left and close the file.  Given ``finish``, the
        caller goes on at once (with ``background``, the sink's thread does
        it) and ``finish`` gets the wait for it."""
        closing = self.closing()
        if finish is None:
            closing.result()
        else:
            finish.append(closing.result)

    def closing(self) -> Future:
        """Write what is left and close the file; with ``background``, in the
        sink's thread, so the caller can go on (the file is whole once the
        future is done)."""
        if self.thread is None:
            done: Future = Future()
            try:
                self._close()
                done.set_result(None)
            except BaseException as exc:
                done.set_exception(exc)
            return done
        future = self.thread.submit(self._close)
        self.thread.shutdown(wait=False)
        return future

    def _close(self) -> None:
        while self.queued and self.queued[0].done():
            self.queued.popleft().result()
        rest = pa.concat_tables(self.pending) if self.pending else None
        if rest is not None and rest.num_rows:
            self.writer.write_table(rest.combine_chunks(), row_group_size=self.rows)
        self.writer.close()

    def abort(self) -> None:
        """Stop (waiting for the thread's current write) and remove the file:
        the run failed."""
        if self.thread is not None:
            for future in self.queued:
                future.cancel()
            self.thread.shutdown(wait=True, cancel_futures=True)
        try:
            self.writer.close()
        except Exception:  # noqa: BLE001 - the file is removed whatever its state
            pass
        self.path.unlink(missing_ok=True)


def yield_to_reader() -> None:
    """Lower the calling worker thread's scheduling priority (Linux: a
    thread's own nice value): the reading thread is the one the others
    wait for, so it should have a core whenever it can run."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):  # not Linux, or not allowed: no matter
        pass
