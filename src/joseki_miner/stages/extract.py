"""Extract (stage 2): games.parquet ->
sequences.parquet.

Phase 1 of the thesis for every game: its corner sequences in normal form,
with the influence scores each move saw (section 8), one row a sequence.
Two engines give identical files: ``fast`` (the compiled kernel, over
``jobs`` threads) and ``reference`` (the plain Python modules)."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from pathlib import Path

import numpy as np
import pyarrow as pa

from joseki_miner.runs.context import Context
from joseki_miner.runs.store import staged
from joseki_miner.stages.params import phase1_params
from joseki_miner.fast import kernel
from joseki_miner.runs import threads
from joseki_miner.fast.arrow import column
from joseki_miner.fast.tables import SEQUENCES_SCHEMA, numbered
from joseki_miner.fast.fasttrie import classes_of, shared_prefixes, sort_sequences
from joseki_miner.method.points import keys_to_sgf_bytes, sgf_bytes_to_points
from joseki_miner.method.records import GameRecord, decode_moves, decode_points
from joseki_miner.method.sequences import Phase1Params, extract
from joseki_miner.runs.stop import check as check_stop

from joseki_miner.fast.sorting import SortedRuns
from joseki_miner.stages.build import Collections, game_columns, payload_of
from joseki_miner.fast.parquet import TableSink, count_rows, iter_batches, string_bytes, yield_to_reader
from joseki_miner.runs.progress import bar as progress_bar

NUMBER_MAX = kernel.NUMBER_MAX  # a move number past it is stored as it (int16)
GAME_COLUMNS = ["game", "source", "location", "handicap", "setup_black", "setup_white", "setup_events", "moves"]
BATCH = 20_000  # games read at a time
SEQUENCE_ROWS = 100_000  # sequences a row group


def record_of(row: dict) -> GameRecord:
    """The GameRecord of one games.parquet row."""
    events = tuple(tuple(e) for e in json.loads(row["setup_events"])) if row["setup_events"] else ()
    return GameRecord(
        source=row["source"],
        location=row["location"],
        handicap=row["handicap"],
        setup_black=decode_points(row["setup_black"]),
        setup_white=decode_points(row["setup_white"]),
        setup_events=events,
        moves=decode_moves(row["moves"]),
    )


def _bytes_column(offsets: np.ndarray, width: int, values: np.ndarray, dtype: str) -> pa.Array:
    """A binary column of ``width`` bytes a key, a row each sequence."""
    return pa.Array.from_buffers(
        pa.binary(),
        len(offsets) - 1,
        [None, pa.py_buffer((width * offsets).astype(np.int32)), pa.py_buffer(np.ascontiguousarray(values, dtype))],
    )


def sequence_table(a: dict) -> pa.Table:
    """The sequences.parquet rows of sequence arrays: game, sequence,
    transform, swapped, start, shared, offsets (into keys), keys, scores
    (n, 4), numbers and near (a key each)."""
    offsets = np.asarray(a["offsets"], dtype=np.int64)
    lengths = np.diff(offsets)
    game = np.asarray(a["game"], dtype=np.int64)
    moves = pa.StringArray.from_buffers(
        len(game), pa.py_buffer((2 * offsets).astype(np.int32)), pa.py_buffer(keys_to_sgf_bytes(a["keys"]))
    )
    return pa.Table.from_arrays(
        [
            column(game),
            column(a["sequence"], np.int32),
            column(a["transform"], np.int8),
            column(a["swapped"], np.bool_),
            column(a["start"], np.int32),
            column(a["shared"], np.int16),
            column(lengths, np.int16),
            moves,
            _bytes_column(offsets, 8, a["scores"], "<i2"),
            _bytes_column(offsets, 2, a["numbers"], "<i2"),
            _bytes_column(offsets, 1, a["near"], "u1"),
        ],
        schema=SEQUENCES_SCHEMA,
    )


def joined_parts(parts: list[tuple[int, dict]]) -> dict:
    """The kernel's sequences of consecutive parts of a batch, each given
    with its first game, as one: games numbered within the batch."""
    lengths = np.concatenate([np.diff(s["offsets"]) for _, s in parts])
    return {
        "game": np.concatenate([s["game"] + lo for lo, s in parts]),
        "transform": np.concatenate([s["transform"] for _, s in parts]),
        "swapped": np.concatenate([s["swapped"] for _, s in parts]),
        "start": np.concatenate([s["start"] for _, s in parts]),
        "offsets": np.r_[0, np.cumsum(lengths)].astype(np.int64),
        "keys": np.concatenate([s["keys"] for _, s in parts]),
        "scores": np.concatenate([s["scores"] for _, s in parts]),
        "numbers": np.concatenate([s["numbers"] for _, s in parts]),
        "near": np.concatenate([s["near"] for _, s in parts]),
    }


def of_games(sequences: dict, n_games: int, games: np.ndarray, first_id: int) -> dict:
    """Of the sequences of a batch of ``n_games`` games, those of the games
    ``games`` (indices in the batch, ascending), which are renumbered
    ``first_id``, ``first_id`` + 1, ... in that order."""
    rank = np.full(n_games, -1, dtype=np.int64)
    rank[games] = np.arange(len(games))
    number = rank[sequences["game"]]
    keep = number >= 0
    if keep.all():  # the common case: no game with sequences was rejected
        game = number + first_id
        return {**sequences, "game": game, "sequence": numbered(game)}
    lengths = np.diff(sequences["offsets"])[keep]
    key_keep = np.repeat(keep, np.diff(sequences["offsets"]))
    game = number[keep] + first_id
    rows = np.ascontiguousarray(sequences["scores"], dtype=np.int16).view(np.int64).ravel()  # a key's 4 scores as one
    return {
        "game": game,
        "sequence": numbered(game),
        "transform": sequences["transform"][keep],
        "swapped": sequences["swapped"][keep],
        "start": sequences["start"][keep],
        "offsets": np.r_[0, np.cumsum(lengths)].astype(np.int64),
        "keys": sequences["keys"][key_keep],
        "scores": rows[key_keep].view(np.int16).reshape(-1, 4),
        "numbers": sequences["numbers"][key_keep],
        "near": sequences["near"][key_keep],
    }


def _reference_batch(rows: list[dict], params: Phase1Params) -> dict:
    game, transform, swapped, start, offsets, keys, scores = [], [], [], [], [0], [], []
    numbers: list[int] = []
    near: list[int] = []
    for row in rows:
        for seq in extract(record_of(row), params):
            game.append(row["game"])
            transform.append(seq.transform)
            swapped.append(seq.swapped)
            start.append(seq.start)
            keys.extend(seq.keys)
            scores.extend(seq.scores)
            numbers.extend(seq.numbers)
            near.extend(seq.near)
            offsets.append(len(keys))
    game_arr = np.array(game, dtype=np.int64)
    return {
        "game": game_arr,
        "sequence": numbered(game_arr),
        "transform": transform,
        "swapped": swapped,
        "start": np.array(start, dtype=np.int32),
        "offsets": offsets,
        "keys": np.array(keys, dtype=np.int16),
        "scores": np.array(scores, dtype=np.int16).reshape(-1, 4),
        "numbers": np.minimum(np.array(numbers, dtype=np.int64), NUMBER_MAX).astype(np.int16),
        "near": np.array(near, dtype=np.uint8),
    }


def _decode_batch(batch: pa.RecordBatch) -> dict:
    """Flat move and setup arrays of a batch of games.parquet rows."""
    offsets, data = string_bytes(batch.column("moves"))
    triples = data.reshape(-1, 3)
    colours = np.where(triples[:, 0] == ord("B"), -1, 1).astype(np.int8)
    points = sgf_bytes_to_points(np.ascontiguousarray(triples[:, 1:]).reshape(-1))
    setup_colours, setup_points, setup_offsets = [], [], [0]
    for black, white in zip(batch.column("setup_black").to_pylist(), batch.column("setup_white").to_pylist()):
        for colour, text in ((-1, black), (1, white)):
            if text:
                pts = decode_points(text)
                setup_points.extend(pts)
                setup_colours.extend([colour] * len(pts))
        setup_offsets.append(len(setup_points))
    return {
        "colours": colours,
        "points": points,
        "move_offsets": (offsets // 3).astype(np.int64),
        "setup_colours": np.array(setup_colours, dtype=np.int8),
        "setup_points": np.array(setup_points, dtype=np.int16),
        "setup_offsets": np.array(setup_offsets, dtype=np.int64),
        "handicap": np.asarray(batch.column("handicap"), dtype=np.int64),
    }


def _slice(d: dict, lo: int, hi: int) -> dict:
    mo, so = d["move_offsets"], d["setup_offsets"]
    return {
        "colours": d["colours"][mo[lo] : mo[hi]],
        "points": d["points"][mo[lo] : mo[hi]],
        "move_offsets": mo[lo : hi + 1] - mo[lo],
        "setup_colours": d["setup_colours"][so[lo] : so[hi]],
        "setup_points": d["setup_points"][so[lo] : so[hi]],
        "setup_offsets": so[lo : hi + 1] - so[lo],
        "handicap": d["handicap"][lo:hi],
    }


def fast_batch(batch: pa.RecordBatch, params: Phase1Params, pool: Executor | None, jobs: int) -> dict:
    """The kernel over a batch, split over ``jobs`` threads (no game with
    setup stones after the root is among them: ingest rejects it)."""
    n = batch.num_rows
    decoded = _decode_batch(batch)
    ids = np.asarray(batch.column("game"), dtype=np.int64)
    bounds = np.linspace(0, n, max(1, jobs) + 1).astype(int)
    parts = [_slice(decoded, lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:])]
    run = lambda part: kernel.extract_batch(**part, params=params)  # noqa: E731
    results = list(pool.map(run, parts)) if pool and len(parts) > 1 else [run(p) for p in parts]
    joined = joined_parts(list(zip(bounds[:-1], results)))
    a = {
        "game": ids[joined["game"]],
        "transform": joined["transform"],
        "swapped": joined["swapped"],
        "start": joined["start"],
        "lengths": np.diff(joined["offsets"]),
        "keys": joined["keys"],
        "scores": joined["scores"],
        "numbers": joined["numbers"],
        "near": joined["near"],
    }
    offsets = np.r_[0, np.cumsum(a["lengths"])].astype(np.int64)
    return {
        "game": a["game"],
        "sequence": numbered(a["game"]),
        "transform": a["transform"],
        "swapped": a["swapped"],
        "start": a["start"],
        "offsets": offsets,
        "keys": a["keys"],
        "scores": a["scores"],
        "numbers": a["numbers"],
        "near": a["near"],
    }


class Phase1Stream:
    """Phase 1 of games tables as they come (``add``), in a background thread
    so reading can go on; the sequences go to sequences.parquet in fixed row
    groups (the file does not depend on how games were batched) and are kept
    for the build stage in ``runs`` (sorted runs of offsets, keys and
    packed influence classes) when given, with ``neutral``; ``compression``:
    the file's codec."""

    def __init__(
        self,
        sequences_path: Path,
        params: Phase1Params,
        *,
        engine: str = "fast",
        jobs: int = 1,
        neutral: int | None = None,
        runs: SortedRuns | None = None,
        compression: str = "zstd",
    ) -> None:
        self.params, self.engine, self.jobs, self.neutral = params, engine, max(1, jobs), neutral
        self.runs = runs
        self.collections = Collections()  # of the games counted (``runs``): their numbers and years
        self.sink = TableSink(
            sequences_path,
            SEQUENCES_SCHEMA,
            SEQUENCE_ROWS,
            background=True,
            use_dictionary=False,
            compression=compression,
        )
        self.pool = threads.pool(self.jobs)
        self.worker = threads.pool(1, initializer=yield_to_reader)  # one: batches stay in order
        self.pending: deque[Future] = deque()
        self.sequences = 0

    def add(self, batch: pa.RecordBatch | pa.Table, sequences: dict | None = None) -> None:
        """Queue a batch of games.parquet rows (with their sequences, as
        ``fast_batch`` gives them, when already found); waits while two are
        queued."""
        if isinstance(batch, pa.Table):
            batch = batch.combine_chunks().to_batches()[0] if batch.num_rows else None
        if batch is None:
            return
        self.pending.append(self.worker.submit(self._phase1, batch, sequences))
        while len(self.pending) > 2:
            self.pending.popleft().result()

    def _phase1(self, batch: pa.RecordBatch, arrays: dict | None) -> None:
        if arrays is None and self.engine == "reference":
            arrays = _reference_batch(batch.to_pylist(), self.params)
        elif arrays is None:
            arrays = fast_batch(batch, self.params, self.pool, self.jobs)
        arrays["shared"] = shared_prefixes(arrays["game"], arrays["offsets"], arrays["keys"])
        table = sequence_table(arrays)
        self.sink.add(table)
        self.sequences += table.num_rows
        if self.runs is not None:
            first = int(batch.column("game")[0].as_py()) if batch.num_rows else 0
            payload = payload_of(arrays, *game_columns(batch, self.collections), first_game=first)
            classes = classes_of(arrays["scores"], self.neutral)
            self.runs.add(*sort_sequences(arrays["offsets"], arrays["keys"], classes, payload))

    def close(self, finish: list[Callable[[], None]] | None = None) -> dict:
        """Wait for every batch; close the file; the stage's figures.  Given
        ``finish``, the last row group of the file is written in the sink's
        thread, and ``finish`` gets the wait for it (``runs`` are whole)."""
        try:
            while self.pending:
                self.pending.popleft().result()
        finally:
            self.worker.shutdown()
            self.pool.shutdown()
        self.sink.close(finish)
        return {"sequences": self.sequences, **(self.runs.figures if self.runs is not None else {})}

    def abort(self) -> None:
        """The run failed: drop the queued batches, wait for the running
        one, remove the file."""
        for future in self.pending:
            future.cancel()
        self.worker.shutdown(wait=True, cancel_futures=True)
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.pending.clear()
        self.sink.abort()


def from_games(
    games_path: Path,
    sequences_path: Path,
    params: Phase1Params,
    *,
    engine: str = "fast",
    jobs: int = 1,
    progress: bool = True,
) -> dict:
    stream = Phase1Stream(sequences_path, params, engine=engine, jobs=jobs)
    try:
        with progress_bar(progress, total=count_rows(games_path), desc="extract", unit=" games") as bar:
            for batch in iter_batches(games_path, BATCH, GAME_COLUMNS):
                check_stop()
                stream.add(batch)
                bar.update(batch.num_rows)
        check_stop()
    except BaseException:
        stream.abort()
        raise
    return stream.close()


def run(context: Context) -> dict:
    """The extract stage: phase 1 on every game of games.parquet."""
    o = context.options
    return from_games(
        context.catalog.games,
        staged(context.catalog.sequences),
        phase1_params(context.settings),
        engine=o.engine,
        jobs=o.jobs,
        progress=o.progress,
    )
