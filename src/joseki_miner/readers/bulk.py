"""Bulk reading: the same games as ``read_paths``, as batches of flat arrays.

``read_batches`` walks paths, archives and index files exactly as
``read_paths`` does, but hands each text unit (a file or an archive member)
to the compiled scanners (``scan``) when it is plain, and turns it into one
``GameBatch``: per game its source, location, metadata and status, and the
moves and setup stones of all games as flat integer arrays.  A unit the
scanners do not fully understand is read by the Python readers and its
records are packed into the same batch form, so the result is the same
games, in the same order, with the same locations, metadata and rejects.

Knows file formats and arrays; nothing of the method.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from joseki_miner.runs import threads
from joseki_miner.fast.arrow import strings
from joseki_miner.method.records import GAME_INFO, GameRecord, Reject, handicap_of
from joseki_miner.readers import encoding
from joseki_miner.readers.dispatch import MEMBER_BYTES, Reader, Share, Taken, existing_files
from joseki_miner.runs.files import Walked
from joseki_miner.readers.kifu import STRIP, index_info, info_columns, kifu_line_record, line_location
from joseki_miner.fast.scan import (
    OK,
    ROOT_SLOTS,
    ROOT_TEXT,
    WHITESPACE,
    info_arrays,
    kifu_ids,
    scan_kifu,
    scan_sgf,
    sgf_info_spans,
)
from joseki_miner.readers.sgf import FIELD_BYTES, game_location, root_candidates, simple_text, to_utf8


@dataclass
class GameBatch:
    """Games of one text unit (or of a few records), in reading order."""

    source: list[str] = field(default_factory=list)
    location: list[str] = field(default_factory=list)
    # the game information games.parquet keeps, by GAME_INFO name: one
    # column of values ("" where missing), not a dict a game; a list, or an
    # Arrow string array where the values were read without strings (kifu)
    info: dict[str, list[str] | pa.StringArray] = field(default_factory=lambda: {m: [] for m in GAME_INFO})
    reject: list[tuple[str, str] | None] = field(default_factory=list)  # reader's (reason, detail)
    size: list[int] = field(default_factory=list)
    handicap: list[int] = field(default_factory=list)
    events: list[tuple] = field(default_factory=list)
    colours: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))
    points: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))
    move_offsets: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    # setup stones: each game's black ones (sorted) then its white ones (sorted)
    setup_colours: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))
    setup_points: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))
    setup_offsets: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))

    def __len__(self) -> int:
        return len(self.source)

    def info_of(self, k: int) -> dict[str, str]:
        """Game k's information, as a record's ``meta`` would hold it."""
        values = {m: column[k] if isinstance(column, list) else column[k].as_py() for m, column in self.info.items()}
        return {m: value for m, value in values.items() if value}

    def add_info(self, meta: dict) -> None:
        for m, column in self.info.items():
            column.append(meta.get(m, ""))

    def stones(self, lo: int, hi: int) -> tuple[np.ndarray, ...]:
        """The moves and setup stones of games lo..hi-1, offsets from 0, in
        the kernel's order: colours, points, move_offsets, setup_colours,
        setup_points, setup_offsets."""
        mo, so = self.move_offsets, self.setup_offsets
        return (
            self.colours[mo[lo] : mo[hi]],
            self.points[mo[lo] : mo[hi]],
            mo[lo : hi + 1] - mo[lo],
            self.setup_colours[so[lo] : so[hi]],
            self.setup_points[so[lo] : so[hi]],
            so[lo : hi + 1] - so[lo],
        )

    def part(self, lo: int, hi: int) -> GameBatch:
        """Games lo..hi-1, as a batch of their own."""
        out = GameBatch()
        for name in ("source", "location", "reject", "size", "handicap", "events"):
            setattr(out, name, getattr(self, name)[lo:hi])
        out.info = {m: column[lo:hi] for m, column in self.info.items()}
        (out.colours, out.points, out.move_offsets, out.setup_colours, out.setup_points, out.setup_offsets) = (
            self.stones(lo, hi)
        )
        return out


def batch_of_items(items: Iterable[GameRecord | Reject]) -> GameBatch:
    """Records and rejects from the Python readers, packed as a batch."""
    b = GameBatch()
    colours, points, moff = [], [], [0]
    scol, spts, soff = [], [], [0]
    for item in items:
        b.source.append(item.source)
        b.location.append(item.location)
        if isinstance(item, Reject):
            b.add_info({})
            b.reject.append((item.reason, item.detail))
            b.size.append(19)
            b.handicap.append(0)
            b.events.append(())
        else:
            b.add_info(item.meta)
            b.reject.append(None)
            b.size.append(item.size)
            b.handicap.append(item.handicap)
            b.events.append(item.setup_events)
            for m in item.moves:
                colours.append(m.colour)
                points.append(m.point)
            scol.extend([-1] * len(item.setup_black) + [1] * len(item.setup_white))
            spts.extend(item.setup_black + item.setup_white)
        moff.append(len(points))
        soff.append(len(spts))
    b.colours = np.array(colours, dtype=np.int8)
    b.points = np.array(points, dtype=np.int16)
    b.move_offsets = np.array(moff, dtype=np.int64)
    b.setup_colours = np.array(scol, dtype=np.int8)
    b.setup_points = np.array(spts, dtype=np.int16)
    b.setup_offsets = np.array(soff, dtype=np.int64)
    return b


@dataclass
class _SgfUnit:
    """An SGF text unit waiting to be scanned with its neighbours."""

    data: bytes
    source: str
    location: str


UNITS_A_SCAN = 2048  # SGF units scanned in one compiled call (one KGS game each)
# moves gathered into one batch at most (4,096 real games hold about a million): with a unit's own
# (within limits.member_mb) its move text, 3 bytes a move, stays below the 2 GiB of 32-bit offsets
MOVES_A_BATCH = 1 << 26


class _SgfScan(NamedTuple):
    """What scan.scan_sgf returns, by name."""

    unit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    size: np.ndarray
    handicap: np.ndarray
    status: np.ndarray
    move_offsets: np.ndarray
    setup_offsets: np.ndarray
    colours: np.ndarray
    points: np.ndarray
    setup_colours: np.ndarray
    setup_points: np.ndarray
    text: np.ndarray
    plain: np.ndarray


def _scanned(units: list[_SgfUnit], run: list[int], first: list[int], joined: bytes, scan: _SgfScan) -> GameBatch:
    """The batch of the scanned games of consecutive clean units ``run``."""
    moff, soff, ha = scan.move_offsets, scan.setup_offsets, scan.handicap
    lo, hi = int(first[run[0]]), int(first[run[-1] + 1])
    b = GameBatch()
    for u in run:
        n = int(first[u + 1] - first[u])
        item = units[u]
        b.source += [item.source] * n
        b.location += [item.location] if n == 1 else [game_location(item.location, k + 1) for k in range(n)]
    b.info = _infos(joined, scan.text[lo:hi], scan.plain[lo:hi])
    n = hi - lo
    b.reject = [None] * n
    b.size = scan.size[lo:hi].tolist()
    b.events = [()] * n
    b.colours, b.points = scan.colours[moff[lo] : moff[hi]], scan.points[moff[lo] : moff[hi]]
    b.move_offsets = moff[lo : hi + 1] - moff[lo]
    declared = ha[lo:hi].tolist()
    if soff[lo] == soff[hi]:  # no setup stones at all: the common case
        b.handicap = [handicap_of(h, 0, 0) for h in declared]
        b.setup_offsets = np.zeros(n + 1, np.int64)
        return b
    b.setup_colours, b.setup_points, black, white = _setup_stones(
        scan.setup_colours[soff[lo] : soff[hi]], scan.setup_points[soff[lo] : soff[hi]], soff[lo : hi + 1] - soff[lo]
    )
    b.setup_offsets = np.r_[0, np.cumsum(black + white)].astype(np.int64)
    b.handicap = [handicap_of(h, nb, nw) for h, nb, nw in zip(declared, black.tolist(), white.tolist())]
    return b


def _setup_stones(colours: np.ndarray, points: np.ndarray, offsets: np.ndarray):
    """Setup stones of games (game k: [offsets[k], offsets[k + 1])) as a
    record holds them: each game's black ones then its white ones, each
    sorted, repeats dropped.  Returns colours, points and each game's
    numbers of black and of white stones."""
    n = len(offsets) - 1
    game = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    # one sortable key a stone: game, then colour (black first), then point (int16, made non-negative)
    white = (np.asarray(colours) > 0).astype(np.int64)
    unique = np.unique((game << 17) | (white << 16) | (np.asarray(points, np.int64) + 32768))
    game, white, point = unique >> 17, (unique >> 16) & 1, (unique & 0xFFFF) - 32768
    black_counts = np.bincount(game[white == 0], minlength=n)
    white_counts = np.bincount(game[white == 1], minlength=n)
    return np.where(white == 1, 1, -1).astype(np.int8), point.astype(np.int16), black_counts, white_counts


def _trees_fill(joined: bytes, a: int, e: int, start: list[int], end: list[int]) -> bool:
    """Are the scanned trees start:end the unit joined[a:e] as the Python
    reader splits it: only blanks outside them, and nothing inside one that
    looks like a game start (the Python reader cuts a tree there)?"""
    if (
        joined[a : start[0]].strip()
        or joined[end[-1] : e].strip()
        or any(joined[end[k] : start[k + 1]].strip() for k in range(len(start) - 1))
    ):
        return False
    if len(start) == 1:  # one game a file, as most are
        return all(p == start[0] for p in root_candidates(joined, a, e))
    tree_starts = set(start)
    return all(p in tree_starts for p in root_candidates(joined, a, e))


def _infos(buf: bytes, text: np.ndarray, plain: np.ndarray) -> dict[str, pa.StringArray]:
    """The root information (GAME_INFO columns) of scanned games from their
    value spans: a plain value's bytes stripped (``scan.sgf_info_spans``),
    the others' text read in Python (``_info_values``), one Arrow column a
    name."""
    n = len(text)
    data = np.frombuffer(buf, np.uint8)
    spans = np.empty((n, len(ROOT_TEXT), 3), np.int64)
    python = sgf_info_spans(data, text, plain, STRIP, spans)
    return info_arrays(
        data,
        spans,
        ROOT_TEXT,
        ((g, _info_values(buf, text[g].tolist(), bool(plain[g]))) for g in np.flatnonzero(python).tolist()),
    )


def _info_values(buf: bytes, spans: list[list[int]], plain: bool) -> list[str]:
    """The root information of one scanned game, read in Python."""
    return [
        "" if a < 0 else buf[a:b].decode("utf-8", "replace").strip() if plain else simple_text(buf[a:b])
        for a, b in spans
    ]


def _line_info(data: bytes, a: int, e: int, line_of) -> tuple[str, ...]:
    """The GAME_INFO values of the plain kifu line data[a:e]: its index
    line's, if any (as kifu_line_record reads them)."""
    if line_of is None:
        return index_info(None)
    return index_info(line_of(data[a : data.index(b"\t", a, e)].decode("ascii")))


def _lines_info(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, rows_of) -> dict[str, pa.StringArray]:
    """``_line_info`` of many plain kifu lines (of the bytes ``data``) as
    columns, their index lines found together (``IndexStore.rows_for``) and
    read compiled."""
    if rows_of is None:
        return info_columns([], np.zeros(0, np.int64), np.full(len(starts), -1, np.int64))
    return info_columns(*rows_of(data, starts, kifu_ids(data, starts, ends)))


def info_concat(columns: list[list[str] | pa.StringArray]) -> list[str] | pa.StringArray:
    """One info column of several batches' (lists stay lists)."""
    if all(isinstance(c, list) for c in columns):
        return [x for c in columns for x in c]
    return pa.concat_arrays([c if isinstance(c, pa.Array) else strings(c) for c in columns])


class _UnitsScan(NamedTuple):
    """SGF units and their compiled scan (``_BulkReader._scan``)."""

    units: list[_SgfUnit]
    bufs: list[bytes | None]  # each unit's UTF-8 text, None if it does not decode
    starts: np.ndarray
    ends: np.ndarray
    joined: bytes
    scan: _SgfScan


class _BulkReader(Reader):
    def read_files(self, files: list) -> Iterator[GameBatch]:
        """The games of ``files`` as batches; SGF units (files or archive
        members) are gathered, across files too, for one scan.  The scan
        runs in a thread of its own (it releases the GIL) while the next
        units are read, so reading SGF keeps two cores busy."""
        units: list[_SgfUnit] = []
        scanning: Future | None = None  # the scan of the units before ``units``
        with threads.pool(1, "scan") as pool:
            for item in super().read_files(files):
                if isinstance(item, _SgfUnit):
                    units.append(item)
                    if len(units) >= UNITS_A_SCAN:
                        started = pool.submit(self._scan, units)
                        if scanning is not None:
                            yield from self._sgf_batches(scanning.result())
                        scanning, units = started, []
                    continue
                if scanning is not None:
                    yield from self._sgf_batches(scanning.result())
                    scanning = None
                if units:
                    yield from self._sgf_batches(self._scan(units))
                    units = []
                yield item if isinstance(item, GameBatch) else batch_of_items([item])
            if scanning is not None:
                yield from self._sgf_batches(scanning.result())
            if units:
                yield from self._sgf_batches(self._scan(units))

    def _read_text(self, kind, data, source, location, vpath):  # noqa: D102 - see Reader
        if kind == "sgf":  # a tuple, not a generator: a folder of small games makes one a file
            return (_SgfUnit(data, source, location),)
        batch = self._kifu_batch(data, source, location, vpath) if kind == "kifu" else None
        if batch is None:
            batch = batch_of_items(super()._read_text(kind, data, source, location, vpath))
        return (batch,)

    def _scan(self, units: list[_SgfUnit]) -> _UnitsScan:
        """One compiled scan of SGF units (as UTF-8)."""
        bufs: list[bytes | None] = []
        for u in units:
            if u.data.isascii():  # nothing to decode; the scanner refuses long identifiers
                bufs.append(u.data)
            else:
                buf, bad = to_utf8(u.data, fallback=self.fallback)
                bufs.append(None if bad else buf)
        sizes = np.array([len(b) if b is not None else 0 for b in bufs], dtype=np.int64)
        ends = np.cumsum(sizes)
        starts = ends - sizes
        joined = b"".join(b for b in bufs if b is not None)
        scan = _SgfScan(
            *scan_sgf(np.frombuffer(joined, dtype=np.uint8), starts, ends, WHITESPACE, ROOT_SLOTS, self.field_bytes)
        )
        return _UnitsScan(units, bufs, starts, ends, joined, scan)

    def _sgf_batches(self, scanned: _UnitsScan) -> Iterator[GameBatch]:
        """The games of scanned SGF units, in order; a unit that is not clean
        and plain is read in Python."""
        units, bufs, starts, ends, joined, scan = scanned
        first = np.searchsorted(scan.unit, np.arange(len(units) + 1))  # games of unit u: first[u]:first[u + 1]
        bad_games = np.r_[0, np.cumsum(scan.status != OK)].tolist()
        first, starts, ends = first.tolist(), starts.tolist(), ends.tolist()
        tree_start, tree_end = scan.start.tolist(), scan.end.tolist()
        run: list[int] = []  # consecutive clean units
        for u, item in enumerate(units):
            lo, hi = first[u], first[u + 1]
            if (
                bufs[u] is not None
                and hi > lo
                and bad_games[hi] == bad_games[lo]
                and _trees_fill(joined, starts[u], ends[u], tree_start[lo:hi], tree_end[lo:hi])
            ):
                run.append(u)
                continue
            if run:
                yield _scanned(units, run, first, joined, scan)
                run = []
            yield batch_of_items(super()._read_text("sgf", item.data, item.source, item.location, ""))
        if run:
            yield _scanned(units, run, first, joined, scan)

    @staticmethod
    def _plain_kifu(data, source, location, rows_of, scanned: tuple) -> GameBatch:
        """The batch of a kifu unit whose every line the scanner read
        (``scanned``: ``scan_kifu``'s arrays)."""
        l_start, l_end, l_number, _, l_moff, mcol, mpt = scanned
        b = GameBatch()
        n = len(l_start)
        b.info = _lines_info(np.frombuffer(data, np.uint8), l_start, l_end, rows_of)
        b.location = [line_location(location, number) for number in l_number.tolist()]
        b.source = [source] * n
        b.reject = [None] * n
        b.size = [19] * n
        b.handicap = [0] * n
        b.events = [()] * n
        b.colours, b.points, b.move_offsets = mcol.astype(np.int8), mpt.astype(np.int16), l_moff.astype(np.int64)
        b.setup_offsets = np.zeros(n + 1, dtype=np.int64)
        return b

    def _kifu_batch(self, data: bytes, source: str, location: str, vpath: str) -> GameBatch:
        data, _ = encoding.strip_bom(data)
        arr = np.frombuffer(data, dtype=np.uint8)
        scanned = scan_kifu(arr, 0, len(arr), WHITESPACE)
        l_start, l_end, l_number, l_status, l_moff, mcol, mpt = scanned
        if (l_status == OK).all():
            return self._plain_kifu(data, source, location, self.index.rows_for(vpath), scanned)
        line_of = self.index.line_for(vpath)
        meta_for = self.index.lookup_for(vpath)
        b = GameBatch()
        colours, points, moff = [], [], [0]
        for k in range(len(l_start)):
            where = line_location(location, int(l_number[k]))
            a, e = int(l_start[k]), int(l_end[k])
            if l_status[k] != OK:
                item = kifu_line_record(data[a:e], source, where, meta_for, self.field_bytes)
                one = batch_of_items([item])
                b.source.append(source)
                b.location.append(where)
                b.add_info(one.info_of(0))
                b.reject.append(one.reject[0])
                b.size.append(one.size[0])
                b.handicap.append(one.handicap[0])
                b.events.append(one.events[0])
                colours.append(one.colours)
                points.append(one.points)
                if len(one.setup_points):
                    return None  # setup stones in a kifu line: read the unit in Python
            else:
                b.source.append(source)
                b.location.append(where)
                b.add_info(dict(zip(GAME_INFO, _line_info(data, a, e, line_of))))
                b.reject.append(None)
                b.size.append(19)
                b.handicap.append(0)
                b.events.append(())
                colours.append(mcol[l_moff[k] : l_moff[k + 1]])
                points.append(mpt[l_moff[k] : l_moff[k + 1]])
            moff.append(moff[-1] + len(points[-1]))
        b.colours = np.concatenate(colours).astype(np.int8) if colours else np.zeros(0, np.int8)
        b.points = np.concatenate(points).astype(np.int16) if points else np.zeros(0, np.int16)
        b.move_offsets = np.array(moff, dtype=np.int64)
        b.setup_offsets = np.zeros(len(b) + 1, dtype=np.int64)
        return b


def _said_elsewhere(*_) -> None:
    """A file skipped, in a run of rows after the first (``Share.rows``)."""


def _rows_of(batches: Iterable[GameBatch], k: int, parts: int) -> Iterator[GameBatch]:
    """``batches``, or of all their rows (games and rejects, in order)
    the k-th of ``parts`` equal runs: a partition's share of a file too
    large for one and not cut by its members (it reads the whole file,
    and replays, checks and writes its own run alone)."""
    if parts == 1:
        yield from batches
        return
    every = [b for b in batches if len(b)]
    if every:
        whole = concat(every)
        yield whole.part(len(whole) * k // parts, len(whole) * (k + 1) // parts)


def concat(batches: list[GameBatch]) -> GameBatch:
    """One batch of several, games in the same order."""
    if len(batches) == 1:
        return batches[0]
    out = GameBatch()
    for name in ("source", "location", "reject", "size", "handicap", "events"):
        setattr(out, name, [x for b in batches for x in getattr(b, name)])
    out.info = {m: info_concat([b.info[m] for b in batches]) for m in GAME_INFO}
    for name in ("colours", "points", "setup_colours", "setup_points"):
        setattr(out, name, np.concatenate([getattr(b, name) for b in batches]))
    for name in ("move_offsets", "setup_offsets"):
        parts, base = [np.zeros(1, np.int64)], 0
        for b in batches:
            offsets = getattr(b, name)
            parts.append(offsets[1:] + base)
            base += int(offsets[-1])
        setattr(out, name, np.concatenate(parts).astype(np.int64))
    return out


def read_batches(
    paths: Iterable[str | os.PathLike],
    *,
    games: int = 4096,
    exclude: Iterable[str | os.PathLike] = (),
    member_bytes: int = MEMBER_BYTES,
    field_bytes: int = FIELD_BYTES,
    share: Share = Share(),
    walked: Walked | None = None,
    taken: Taken = Taken(),
) -> Iterator[GameBatch]:
    """Every game under ``paths`` as ``read_paths`` gives them (with the
    same limits and ``exclude``), in batches of about ``games`` games: small
    files are gathered together, and a large one (a month of a kifu dump) is
    cut into parts, so the threads that replay a batch start on the first
    part while the next is cut, and have little left when reading ends.
    The kifu indexes are those of the files read and of a partition's
    ``share``.  Given ``walked`` (``readers.walked`` of the same paths), its
    files are read without walking the paths again."""
    on_skip, indexes, indexes_before = taken.on_skip, share.indexes, share.before
    if share.rows[0] > 0:  # what is said of the files, their first run of rows says
        on_skip = _said_elsewhere
    files = walked.replay(on_skip) if walked is not None else existing_files(paths, on_skip, exclude)
    reader = _BulkReader(True, on_skip, taken.arena, member_bytes, field_bytes, share.part, taken.digests)
    others = [Path(i) for i in indexes]
    reader.load_indexes([*others[:indexes_before], *files, *(i for i in others[indexes_before:] if i not in files)])
    reader.load_found_by_content(others[:indexes_before])
    pending: list[GameBatch] = []
    count = moves = 0
    for batch in _rows_of(reader.read_files(files), *share.rows):
        if len(batch) >= games and not pending:
            parts = max(1, round(len(batch) / games))
            bounds = np.linspace(0, len(batch), parts + 1).astype(int).tolist()
            for lo, hi in zip(bounds[:-1], bounds[1:]):
                yield batch.part(lo, hi) if parts > 1 else batch
            continue
        pending.append(batch)
        count += len(batch)
        moves += len(batch.points)
        if count >= games or moves >= MOVES_A_BATCH:  # a few games of millions of moves are a batch too
            yield concat(pending)
            pending, count, moves = [], 0, 0
    if pending:
        yield concat(pending)


def events_json(events: tuple) -> str:
    """games.parquet's setup_events text of a game's setup events."""
    return json.dumps(events) if events else ""
