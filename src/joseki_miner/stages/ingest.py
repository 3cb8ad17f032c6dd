"""Ingest (stage 1): game collections ->
games.parquet + rejects.parquet.

Every game read is either accepted (a row of games.parquet) or rejected with
a documented reason and its location (a row of rejects.parquet).  The
``reference`` engine reads record by record (``read_paths`` and
``validate.check``); the ``fast`` engine reads batches of flat arrays
(``read_batches``) and validates them compiled; within ``mine`` that same
replay also finds each game's sequences for the extract stage (one replay
a game, not two).  Both engines write identical files."""

from __future__ import annotations

import bisect
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from joseki_miner.fast import kernel
from joseki_miner.runs import threads
from joseki_miner.fast.arrow import column, numpy, strings
from joseki_miner.fast.fingerprints import FingerprintTable
from joseki_miner.method.gameinfo import date_span, day_of, days, winner, winners
from joseki_miner.runs.inputs import Collections, Filters
from joseki_miner.fast.mapped import Arena
from joseki_miner.method.points import PASS, SIZE
from joseki_miner.method.symmetry import POINT_MAP
from joseki_miner.readers import Walked, read_paths
from joseki_miner.readers.bulk import GameBatch, events_json, read_batches
from joseki_miner.readers.dispatch import Share, Taken
from joseki_miner.fast.scan import moves_text
from joseki_miner.method.records import (
    GAME_INFO,
    MAX_HANDICAP,
    GameRecord,
    Move,
    RecordError,
    Reject,
    bad_record,
    encode_moves,
    encode_points,
    where_of,
)
from joseki_miner.method.sequences import Phase1Params
from joseki_miner.runs.stop import check as check_stop
from joseki_miner.method.validate import check, setup_after_root, setup_stones

from joseki_miner.runs.context import Context
from joseki_miner.stages.params import Reading
from joseki_miner.runs.errors import StrictError
from joseki_miner.runs.store import staged
from joseki_miner.stages.extract import joined_parts, of_games
from joseki_miner.fast.parquet import TableSink, yield_to_reader
from joseki_miner.fast.tables import GAMES_SCHEMA, REJECTS_SCHEMA
from joseki_miner.runs.progress import bar as progress_bar

META = GAME_INFO


def _fingerprint(record: GameRecord, symmetric: bool = False) -> str:
    """Same setup and moves -> same game, wherever it was found; with
    ``symmetric``, under any of the 16 maps too (8 symmetries, colours
    swapped or not: the least of the images' texts, each colour's setup
    stones sorted)."""
    if not symmetric:
        text = (
            encode_points(record.setup_black)
            + "|"
            + encode_points(record.setup_white)
            + "|"
            + encode_moves(record.moves)
        )
    else:
        images = []
        for t in range(8):
            to = POINT_MAP[t]
            for swap in (False, True):
                black, white = (
                    (record.setup_white, record.setup_black) if swap else (record.setup_black, record.setup_white)
                )
                moves = [
                    Move(-m.colour if swap else m.colour, to[m.point] if m.point != PASS else PASS)
                    for m in record.moves
                ]
                images.append(
                    encode_points(sorted(to[p] for p in black))
                    + "|"
                    + encode_points(sorted(to[p] for p in white))
                    + "|"
                    + encode_moves(moves)
                )
        text = min(images)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


class _Wheres:
    """Where each first game was read (source, location), for naming the
    first game of a duplicate found later (a first game is one no earlier
    game repeats, kept or left out by the filters): appended a table of
    games at a time to a file beside games.parquet (Arrow IPC), so it does
    not grow in memory with the games; ``of`` reads back the table that
    holds a game (the last one read is kept).  The file is removed on
    ``close``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = open(path, "w+b")
        self.index: list[tuple[int, int, int]] = []  # per table: first game, offset, size
        self.bytes = 0
        self._last: tuple[int, pa.Table] | None = None

    def add(self, first: int, source: list[str], location: list[str]) -> None:
        sink = pa.BufferOutputStream()
        columns = pa.Table.from_arrays(
            [strings(source).dictionary_encode(), strings(location)], names=["source", "location"]
        )
        with pa.ipc.new_stream(sink, columns.schema) as writer:
            writer.write_table(columns)
        data = sink.getvalue()
        self.file.seek(self.bytes)
        self.file.write(data)
        self.index.append((first, self.bytes, data.size))
        self.bytes += data.size

    def of(self, game: int) -> str:
        """Where the first game ``game`` was read (as ``GameRecord.where``)."""
        at = bisect.bisect_right(self.index, game, key=lambda w: w[0]) - 1
        if self._last is None or self._last[0] != at:
            _, offset, size = self.index[at]
            self.file.seek(offset)
            self._last = (at, pa.ipc.open_stream(self.file.read(size)).read_all())
        first, table = self.index[at][0], self._last[1]
        return where_of(table.column("source")[game - first].as_py(), table.column("location")[game - first].as_py())

    def close(self) -> None:
        self.file.close()
        self.path.unlink(missing_ok=True)


@dataclass
class Trace:
    """What joining partitions needs of one partition's reading (the dask
    engine, ``partitions``): per first game (one no earlier game of the
    partition repeats: accepted, or left out by the filters), its number in
    the reading order, its fingerprint, and for one left out, the filter's
    reason and where it was read ("" for an accepted game, which
    games.parquet holds); per reject, its number in the reading order and,
    for a duplicate, the partition's first game it repeats (-1 otherwise)."""

    read: list[np.ndarray] = field(default_factory=list)
    h1: list[np.ndarray] = field(default_factory=list)
    h2: list[np.ndarray] = field(default_factory=list)
    filtered: list[str] = field(default_factory=list)
    source: list[str] = field(default_factory=list)
    location: list[str] = field(default_factory=list)
    reject_read: list[np.ndarray] = field(default_factory=list)
    reject_first: list[np.ndarray] = field(default_factory=list)

    def tables(self) -> tuple[pa.Table, pa.Table, pa.Table]:
        """A partition's trace (per first game: read, h1, h2, kept), the
        first games its filters left out (each one's number among the first
        games, reason, source, location) and its rejects' trace (read, first)."""

        def joined(parts: list[np.ndarray], kind) -> pa.Array:
            return column(np.concatenate(parts).astype(kind) if parts else np.zeros(0, kind))

        left = [i for i, reason in enumerate(self.filtered) if reason]
        firsts = pa.Table.from_arrays(
            [
                joined(self.read, np.int64),
                joined(self.h1, np.uint64),
                joined(self.h2, np.uint64),
                column(np.array([not reason for reason in self.filtered], np.int8)),
            ],
            names=["read", "h1", "h2", "kept"],
        )
        filtered = pa.Table.from_arrays(
            [
                column(np.array(left, np.int64)),
                strings([self.filtered[i] for i in left]),
                strings([self.source[i] for i in left]),
                strings([self.location[i] for i in left]),
            ],
            names=["first", "reason", "source", "location"],
        )
        rejects = pa.Table.from_arrays(
            [joined(self.reject_read, np.int64), joined(self.reject_first, np.int64)], names=["read", "first"]
        )
        return firsts, filtered, rejects


class _Ledger:
    """Counts, duplicates and the two output files, shared by both engines.

    Duplicates are found before the filters (config ``filter``), so that a
    filtered run keeps the games a filter of an unfiltered run selects: a
    game that repeats one the filters left out is a duplicate still.  The
    reference engine asks ``duplicate_of`` game by game (a dict of digests,
    as plainly as it can be said); the fast engine asks ``first_games`` a
    batch at a time (the kernel's fingerprints in a compact table), numbering
    the first games (``firsts``: accepted or filtered) apart from the games
    stored, and finds where a first game was read in the log of them
    (``_Wheres``, on disk)."""

    def __init__(
        self,
        games_path: Path,
        rejects_path: Path,
        dedupe: bool,
        strict: bool,
        on_games: Callable[[pa.Table, dict | None], None] | None = None,
        arena: Arena | None = None,
    ) -> None:
        self.games = TableSink(games_path, GAMES_SCHEMA, background=True)
        self.on_games = on_games
        self.rejects = TableSink(rejects_path, REJECTS_SCHEMA)
        self.dedupe, self.strict = dedupe, strict
        self.seen: dict = {}
        self.arena = arena if arena is not None else Arena()
        self.fingerprints = FingerprintTable(arena=self.arena)
        self.wheres = _Wheres(games_path.with_name(games_path.name + ".wheres")) if dedupe else None
        self.reasons: Counter[str] = Counter()
        self.filtered: Counter[str] = Counter()
        self.read = 0
        self.accepted = 0
        self.firsts = 0  # games no earlier game repeats, accepted or filtered: the fingerprints' ids
        self.skipped: Counter[str] = Counter()
        self.collections = Collections([])
        self.filters = Filters()
        self.symmetric = False  # duplicates under the 16 maps too (config dedupe.symmetric)
        self.by_year: Counter[int] = Counter()  # games accepted, by year (0: unknown)
        self.by_collection: Counter[str] = Counter()
        self.dates = [0, 0]  # the first and last date (YYYYMMDD) of the games accepted; 0: none known
        self.trace: Trace | None = None

    def skip(self, source: str, location: str, why: str) -> None:
        """A file or member that holds no game (an index file, a README)."""
        self.skipped[why] += 1

    def duplicate_of(self, key, where: str) -> str | None:
        if not self.dedupe:
            return None
        first = self.seen.get(key)
        if first is None:
            self.seen[key] = where
        return first

    def first_games(self, h1: np.ndarray, h2: np.ndarray) -> np.ndarray:
        """Per candidate game of a batch (fingerprint h1, h2), in order: the
        number of the first game with the same moves, or -1; the games with
        -1 are first games, numbered from ``firsts`` in order, and must be
        logged so (``add_firsts``).  Nothing is a duplicate without
        ``dedupe``."""
        if not self.dedupe:
            return np.full(len(h1), -1, np.int64)
        return self.fingerprints.first_ids(h1, h2, self.firsts)

    def add_firsts(self, source: list[str], location: list[str]) -> None:
        """The first games of a batch, in order: where each was read."""
        if self.wheres is not None and source:
            self.wheres.add(self.firsts, source, location)
        self.firsts += len(source)

    def where(self, game: int) -> str:
        """Where the first game ``game`` was read (as ``GameRecord.where``)."""
        return self.wheres.of(game)

    def add_games(self, table: pa.Table, sequences: dict | None = None) -> None:
        """Accepted games, numbered from ``self.accepted`` (and their
        sequences, when phase 1 ran with validation)."""
        self.games.add(table)
        self.accepted += table.num_rows
        self.dates = date_span(numpy(table.column("day")), self.dates)
        year = numpy(table.column("year"))
        self.by_year.update(dict(zip(*[a.tolist() for a in np.unique(year, return_counts=True)])))
        names = table.column("collection").combine_chunks().dictionary_encode()
        counts = np.bincount(numpy(names.indices), minlength=len(names.dictionary)).tolist()
        self.by_collection.update(dict(zip(names.dictionary.to_pylist(), counts)))
        if self.on_games is not None:
            self.on_games(table, sequences)

    def reject_rows(self, rows: list[tuple[str, str, str, str]]) -> None:
        if not rows:
            return
        if self.strict and (bad := [row for row in rows if bad_record(row[2])]):
            raise StrictError.of(*bad[0])
        for row in rows:
            self.reasons[row[2]] += 1
        self.rejects.add(pa.Table.from_arrays([strings(list(c)) for c in zip(*rows)], schema=REJECTS_SCHEMA))

    def close(self, finish: list[Callable[[], None]] | None = None) -> dict:
        """Close the files (given ``finish``, games.parquet's last row group
        is written in the sink's thread, and ``finish`` gets the wait for
        it: ``TableSink.close``); the stage's figures."""
        try:
            self.games.close(finish)
            self.rejects.close()
        finally:
            if self.wheres is not None:
                self.wheres.close()
        figures = {
            "games_read": self.read,
            "games_accepted": self.accepted,
            "games_rejected": dict(sorted(self.reasons.items())),
            "games_filtered": dict(sorted(self.filtered.items())),
            "files_skipped": dict(sorted(self.skipped.items())),
            "games_by_year": {str(y): n for y, n in sorted(self.by_year.items()) if y},
            "games_by_collection": dict(sorted(self.by_collection.items())),
            "games_dates": self.dates,
        }
        # what grows with the games: the fingerprints (where each was read is on disk)
        if self.dedupe and self.accepted:
            figures["dedupe_bytes"] = self.fingerprints.nbytes
            figures["wheres_spilled_bytes"] = self.wheres.bytes
        figures.update(self.arena.figures())  # fingerprints and index lines past the table memory
        return figures

    def abort(self) -> None:
        """The run failed: stop writing, remove the files."""
        try:
            self.games.abort()
            self.rejects.abort()
        finally:
            if self.wheres is not None:
                self.wheres.close()


def _games_table(first_id: int, columns: dict) -> pa.Table:
    n = len(columns["source"])
    arrays = [column(np.arange(first_id, first_id + n, dtype=np.int64))]
    for name in GAMES_SCHEMA.names[1:]:
        value = columns[name]
        kind = GAMES_SCHEMA.field(name).type
        if isinstance(value, (pa.Array, pa.ChunkedArray)):
            arrays.append(value)
        elif kind == pa.string():
            arrays.append(strings(value))
        else:
            arrays.append(column(value, kind))
    return pa.Table.from_arrays(arrays, schema=GAMES_SCHEMA)


# -- reference engine -----------------------------------------------------------


def _run_reference(paths, ledger: _Ledger, include_handicap: bool, bar, exclude=(), limits: dict | None = None) -> None:
    columns: dict[str, list] = {n: [] for n in GAMES_SCHEMA.names[1:]}
    rejects: list[tuple[str, str, str, str]] = []

    def flush() -> None:
        ledger.reject_rows(rejects)
        rejects.clear()
        if columns["source"]:
            ledger.add_games(_games_table(ledger.accepted, columns))
            for c in columns.values():
                c.clear()

    for item in read_paths(paths, on_skip=ledger.skip, arena=ledger.arena, exclude=exclude, **(limits or {})):
        check_stop()
        ledger.read += 1
        bar.update()
        if isinstance(item, GameRecord):
            day = day_of(item.meta.get("DT", ""))
            info = (day // 10000, winner(item.meta.get("RE", "")), ledger.collections.of(item.source), day)
            meta = item.meta
            if ledger.collections.rank_of(info[2]):  # the collection's declared rank where the record has none
                meta = {**meta, **{k: meta.get(k) or ledger.collections.rank_of(info[2]) for k in ("BR", "WR")}}
            try:
                check(item, include_handicap)
                first = ledger.duplicate_of(_fingerprint(item, ledger.symmetric), item.where)
                if first is not None:
                    raise RecordError("duplicate", f"same moves as {first}")
                people = {k: [meta.get(k, "")] for k in Filters.PEOPLE} if ledger.filters.by_people else None
                why = (
                    ledger.filters.reasons(
                        np.array([info[0]]),
                        np.array([info[1]]),
                        [info[2]],
                        ledger.collections,
                        people,
                        np.array([item.handicap]),
                        [encode_moves(item.moves)] if ledger.filters.sample is not None else None,
                    )[0]
                    if ledger.filters.active
                    else None
                )
                if why is not None:  # left out as asked: after the checks and the duplicates
                    ledger.filtered[why] += 1
                    continue
            except RecordError as exc:
                item = Reject(item.source, item.location, exc.reason, exc.detail)
        if isinstance(item, Reject):
            rejects.append((item.source, item.location, item.reason, item.detail))
            if ledger.strict and bad_record(item.reason):
                flush()
            continue
        for m in META:
            columns[m].append(meta.get(m, ""))
        columns["source"].append(item.source)
        columns["location"].append(item.location)
        columns["day"].append(info[3])
        columns["year"].append(info[0])
        columns["winner"].append(info[1])
        columns["collection"].append(info[2])
        columns["handicap"].append(item.handicap)
        columns["size"].append(item.size)
        columns["move_count"].append(len(item.moves))
        columns["setup_black"].append(encode_points(item.setup_black))
        columns["setup_white"].append(encode_points(item.setup_white))
        columns["setup_events"].append(json.dumps(item.setup_events) if item.setup_events else "")
        columns["moves"].append(encode_moves(item.moves))
        if len(columns["source"]) >= 10_000:
            flush()
    flush()


# -- fast engine ----------------------------------------------------------------


def _moves_strings(b: GameBatch, games: np.ndarray) -> pa.Array:
    """encode_moves of the games ``games`` of a batch, at once."""
    text, offsets = moves_text(b.colours, b.points, b.move_offsets, games)
    return pa.StringArray.from_buffers(len(games), pa.py_buffer(offsets), pa.py_buffer(text))


def _replay(b: GameBatch, pool: Executor, jobs: int, phase1: Phase1Params | None, include_handicap: bool):
    """The kernel's validation over ``jobs`` threads (it releases the GIL);
    given ``phase1``, phase 1 too, in the same replay, for the games the
    reader, board size and handicap do not already reject.  Returns the
    futures of its parts, to be joined by ``_joined``."""
    n = len(b)
    bounds = np.linspace(0, n, max(1, min(jobs, n)) + 1).astype(int)
    if phase1 is not None:
        todo = np.array([r is None for r in b.reject], dtype=bool) & (np.array(b.size) == SIZE)
        handicap = np.array(b.handicap)
        todo &= (handicap == 0) if not include_handicap else (handicap <= MAX_HANDICAP)
    else:
        handicap = None

    def part(lo: int, hi: int):
        args = b.stones(lo, hi)
        if phase1 is None:
            return kernel.validate_batch(*args), None
        return kernel.validate_and_extract(args, params=phase1, todo=todo[lo:hi], handicap=handicap[lo:hi])

    return [(lo, pool.submit(part, lo, hi)) for lo, hi in zip(bounds[:-1], bounds[1:])]


def _joined(futures) -> tuple[list[np.ndarray], dict | None]:
    """The parts' validation arrays, and their sequences (game = index in
    the batch) when phase 1 ran."""
    results = [(lo, f.result()) for lo, f in futures]
    checks = [np.concatenate([r[0][i] for _, r in results]) for i in range(4)]
    if results[0][1][1] is None:
        return checks, None
    return checks, joined_parts([(lo, r[1]) for lo, r in results])


def _verdicts(
    b: GameBatch, include_handicap: bool, played: np.ndarray, occupied: np.ndarray
) -> dict[int, tuple[str, str]]:
    """(reason, detail) of every game of the batch that is not valid, by
    game, first reason first (``validate.check``'s order): the reader's,
    board size, handicap (or a bad one), setup stones that are not a
    handicap's, setup after the root, no moves, an occupied point."""
    verdicts = {k: r for k, r in enumerate(b.reject) if r is not None}
    open_ = np.ones(len(b), dtype=bool)
    open_[list(verdicts)] = False
    size = np.asarray(b.size)
    for k in np.flatnonzero(open_ & (size != SIZE)).tolist():
        verdicts[k] = ("not 19x19", f"board size {b.size[k]}")
    open_ &= size == SIZE
    handicap = np.asarray(b.handicap)
    if not include_handicap:
        for k in np.flatnonzero(open_ & (handicap != 0)).tolist():
            verdicts[k] = ("handicap", f"handicap {b.handicap[k]}")
        open_ &= handicap == 0
    for k in np.flatnonzero(open_ & (handicap > MAX_HANDICAP)).tolist():
        verdicts[k] = ("bad handicap", f"handicap {b.handicap[k]}: more than {MAX_HANDICAP} stones")
    open_ &= handicap <= MAX_HANDICAP
    black, white = _setup_counts(b)
    setup = (white > 0) | ((black > 0) & (handicap == 0))
    for k in np.flatnonzero(open_ & setup).tolist():
        verdicts[k] = ("setup stones", setup_stones(int(black[k]), int(white[k]), b.handicap[k]))
    open_ &= ~setup
    events = np.array([bool(e) for e in b.events], dtype=bool)
    for k in np.flatnonzero(open_ & events).tolist():
        verdicts[k] = ("setup stones after the root", setup_after_root(b.events[k]))
    open_ &= ~events
    for k in np.flatnonzero(open_ & (played == 0)).tolist():
        verdicts[k] = ("no moves", "")
    open_ &= played != 0
    for k in np.flatnonzero(open_ & (occupied >= 0)).tolist():
        verdicts[k] = ("move on an occupied point", f"move {occupied[k] + 1}")
    return verdicts


def _setup_counts(b: GameBatch) -> tuple[np.ndarray, np.ndarray]:
    """Each game's numbers of black and of white setup stones (before its first move)."""
    n = len(b)
    game = np.repeat(np.arange(n, dtype=np.int64), np.diff(b.setup_offsets))
    colours = np.asarray(b.setup_colours)
    return np.bincount(game[colours < 0], minlength=n), np.bincount(game[colours > 0], minlength=n)


def _take(values: list | pa.Array, idx: list[int]) -> list | pa.Array:
    if len(idx) == len(values):
        return values
    return [values[k] for k in idx] if isinstance(values, list) else values.take(column(idx, np.int64))


def _info_list(values: list[str] | pa.StringArray) -> list[str]:
    """A batch's column of game information as strings ("" where none)."""
    return values if isinstance(values, list) else [v or "" for v in values.to_pylist()]


def _setup_strings(b: GameBatch, accepted: list[int]) -> tuple[list[str], list[str]]:
    """games.parquet's setup_black and setup_white of the accepted games."""
    black, white = [""] * len(accepted), [""] * len(accepted)
    so = b.setup_offsets
    for i, k in enumerate(accepted):
        if so[k + 1] > so[k]:
            c, pts = b.setup_colours[so[k] : so[k + 1]], b.setup_points[so[k] : so[k + 1]]
            black[i], white[i] = encode_points(pts[c < 0].tolist()), encode_points(pts[c > 0].tolist())
    return black, white


def _fast_batch(b: GameBatch, ledger: _Ledger, include_handicap: bool, futures) -> None:
    (occupied, played, h1, h2), sequences = _joined(futures)
    day, won = days(b.info["DT"]), winners(b.info["RE"])
    year = (day // 10000).astype(np.int16)
    collection = [ledger.collections.of(source) for source in b.source]
    if ledger.collections.ranks:  # a collection's declared rank where its records carry none
        b.info = {**b.info, **{k: ledger.collections.declared(_info_list(b.info[k]), collection) for k in ("BR", "WR")}}
    verdicts = _verdicts(b, include_handicap, played, occupied)
    candidates = np.ones(len(b), dtype=bool)
    candidates[list(verdicts)] = False
    candidates = np.flatnonzero(candidates)
    if ledger.symmetric and ledger.dedupe and len(candidates):  # the games equal under the 16 maps: one fingerprint
        h1, h2 = h1.copy(), h2.copy()
        h1[candidates], h2[candidates] = kernel.symmetric_fingerprints(
            b.colours, b.points, b.move_offsets, b.setup_colours, b.setup_points, b.setup_offsets, candidates
        )
    firsts = ledger.first_games(h1[candidates], h2[candidates])
    new = candidates[firsts < 0].tolist()  # first games, numbered from ledger.firsts
    duplicates = {int(k): int(first) for k, first in zip(candidates[firsts >= 0], firsts[firsts >= 0])}
    reasons: list = [None] * len(b)
    if ledger.filters.active:  # left out as asked: after the checks and the duplicates
        people = {k: _info_list(b.info[k]) for k in Filters.PEOPLE} if ledger.filters.by_people else None
        moves = None
        if ledger.filters.sample is not None:  # the games a sample may take: the first games
            moves = [""] * len(b)
            for k, text in zip(new, _moves_strings(b, np.array(new, dtype=np.int64)).to_pylist()):
                moves[k] = text
        reasons = ledger.filters.reasons(
            year, won, collection, ledger.collections, people, np.asarray(b.handicap, dtype=np.int64), moves
        )
        ledger.filtered.update(reasons[k] for k in new if reasons[k] is not None)
    accepted = [k for k in new if reasons[k] is None]
    base = ledger.read
    ledger.read += len(b)
    if accepted:
        idx = np.array(accepted, dtype=np.int64)
        columns: dict = {m: _take(b.info[m], accepted) for m in META}
        columns["source"] = _take(b.source, accepted)
        columns["location"] = _take(b.location, accepted)
        columns["collection"] = _take(collection, accepted)
        columns["day"] = day[idx]
        columns["year"] = year[idx]
        columns["winner"] = won[idx]
        # the batch's rejected games may hold any number: narrowed once taken
        columns["handicap"] = np.asarray(b.handicap, dtype=np.int64)[idx].astype(np.int16)
        columns["size"] = np.asarray(b.size, dtype=np.int64)[idx].astype(np.int16)
        columns["move_count"] = np.diff(b.move_offsets)[idx].astype(np.int32)
        columns["setup_black"], columns["setup_white"] = _setup_strings(b, accepted)
        columns["setup_events"] = [events_json(b.events[k]) for k in accepted]
        columns["moves"] = _moves_strings(b, idx)
        if sequences is not None:  # (no game with setup after the root is accepted: phase 1 saw each as stored)
            sequences = of_games(sequences, len(b), idx, ledger.accepted)
        table = _games_table(ledger.accepted, columns)

    def where(first: int) -> str:  # the first game numbered ``first``, maybe from this very batch
        if first < ledger.firsts:
            return ledger.where(first)
        k = new[first - ledger.firsts]
        return where_of(b.source[k], b.location[k])

    rejects = {k: (b.source[k], b.location[k], *v) for k, v in verdicts.items()}
    for k, first in duplicates.items():
        rejects[k] = (b.source[k], b.location[k], "duplicate", f"same moves as {where(first)}")
    ledger.reject_rows([rejects[k] for k in sorted(rejects)])  # --strict: raises at the first
    ledger.add_firsts([b.source[k] for k in new], [b.location[k] for k in new])
    if ledger.trace is not None:
        idx = np.array(new, dtype=np.int64)
        ledger.trace.read.append(base + idx)
        ledger.trace.h1.append(h1[idx])
        ledger.trace.h2.append(h2[idx])
        left = [reasons[k] is not None for k in new]
        ledger.trace.filtered += [reasons[k] or "" for k in new]
        ledger.trace.source += [b.source[k] if out else "" for k, out in zip(new, left)]
        ledger.trace.location += [b.location[k] if out else "" for k, out in zip(new, left)]
        order = sorted(rejects)
        ledger.trace.reject_read.append(base + np.array(order, dtype=np.int64))
        ledger.trace.reject_first.append(np.array([duplicates.get(k, -1) for k in order], dtype=np.int64))
    if accepted:
        ledger.add_games(table, sequences)


@dataclass(frozen=True)
class InPartition:
    """How a partition (``cluster.partitions``) reads its own files: its
    ``share`` of its collections (``bulk.Share``: the kifu indexes kept
    elsewhere, its part of an archive), collections named from the paths
    given to the run (``named_from``), and a ``trace`` kept for joining it
    with the others (fast engine)."""

    share: Share = Share()
    named_from: tuple[str | Path, ...] | None = None
    trace: Trace | None = None


@dataclass(frozen=True)
class Hooks:
    """What the caller hears and gives as ingest reads.  ``on_games(table,
    sequences)`` hears every table of accepted games as it is stored; given
    ``phase1`` (fast engine), the replay that validates a game also finds
    its sequences, and ``sequences`` holds them (as ``extract.fast_batch``
    gives them; None where that replay cannot serve).  Given ``finish``,
    ``read`` returns while the last row group of games.parquet is still
    being written, and ``finish`` gets the wait for it.  ``walked``: the
    inputs walked once already (``readers.walked``), read without walking
    them again; ``digests``: gets each file's content digest, taken as it
    is read (the fast engine), for the ingest stage's key
    (``inputs.Scan.learn``)."""

    on_games: Callable[[pa.Table, dict | None], None] | None = None
    phase1: Phase1Params | None = None
    finish: list[Callable[[], None]] | None = None
    walked: Walked | None = None
    digests: dict | None = None


def run(context: Context) -> dict:
    """The ingest stage: every game of the inputs read, checked and stored."""
    catalog = context.catalog
    return read(
        context.paths,
        staged(catalog.games),
        staged(catalog.rejects),
        Reading.of(context.settings, context.options, context.own),
        hooks=Hooks(walked=context.walked, digests=context.digests),
    )


def read(
    paths: Sequence[str | Path],
    games_path: Path,
    rejects_path: Path,
    reading: Reading = Reading(),
    *,
    partition: InPartition = InPartition(),
    hooks: Hooks = Hooks(),
) -> dict:
    """Read, validate and store every game; return the stage's figures
    (``Reading``, ``InPartition``, ``Hooks``).  A run that fails (or is
    stopped: ``stop``) removes what it wrote."""
    r, p, h = reading, partition, hooks
    limits = {"member_bytes": r.member_bytes, "field_bytes": r.field_bytes}
    arena = Arena(games_path.parent, budget=r.table_memory)
    ledger = _Ledger(games_path, rejects_path, r.dedupe, r.strict, h.on_games, arena)
    ledger.collections = Collections(paths if p.named_from is None else p.named_from, r.collections_depth, r.ranks)
    ledger.filters = r.filters
    ledger.symmetric = r.symmetric
    ledger.trace = p.trace
    try:
        with progress_bar(r.progress, desc="ingest", unit=" games") as bar:
            if r.engine == "reference":
                _run_reference(paths, ledger, r.include_handicap, bar, r.exclude, limits)
            else:
                # validation of one batch runs in threads while the next is read
                with threads.pool(max(1, r.jobs), initializer=yield_to_reader) as pool:
                    pending = None
                    for batch in read_batches(
                        paths,
                        exclude=r.exclude,
                        share=p.share,
                        walked=h.walked,
                        taken=Taken(ledger.skip, ledger.arena, h.digests),
                        **limits,
                    ):
                        check_stop()  # between batches: a stop never looks like the end of the input
                        if len(batch) == 0:
                            continue
                        started = (batch, _replay(batch, pool, r.jobs, h.phase1, r.include_handicap))
                        if pending is not None:
                            _fast_batch(pending[0], ledger, r.include_handicap, pending[1])
                            bar.update(len(pending[0]))
                        pending = started
                    check_stop()
                    if pending is not None:
                        _fast_batch(pending[0], ledger, r.include_handicap, pending[1])
                        bar.update(len(pending[0]))
    except BaseException:
        ledger.abort()
        raise
    return ledger.close(h.finish)
