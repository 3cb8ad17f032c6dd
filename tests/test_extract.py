"""The extract stage's rows (stages/extract.py): both engines' arrays give
the same sequences.parquet rows, each entry's move number and nearness
stored as raw bytes beside its influence scores."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa

from joseki_miner.fast.fasttrie import shared_prefixes
from joseki_miner.fast.tables import SEQUENCES_SCHEMA
from joseki_miner.method.points import BLACK, PASS, WHITE, point
from joseki_miner.method.records import GameRecord, Move, encode_moves, encode_points
from joseki_miner.method.sequences import Phase1Params, extract
from joseki_miner.stages.extract import (
    GAME_COLUMNS,
    NUMBER_MAX,
    _reference_batch,
    fast_batch,
    of_games,
    sequence_table,
)

B, W = BLACK, WHITE


def _moves(*rcs) -> tuple[Move, ...]:
    return tuple(Move(c, PASS if r is None else point(r, k)) for c, r, k in rcs)


GAMES = [
    GameRecord(source="a", moves=_moves((B, 3, 3), (W, 3, 13), (B, 15, 15), (W, 3, 8), (B, 4, 2))),
    GameRecord(source="b", moves=_moves((B, 3, 3), (W, None, None), (B, 15, 15), (W, 4, 5), (B, 15, 3))),
    GameRecord(source="c", moves=_moves((B, 3, 15), (W, 15, 3), (B, 3, 10), (W, 16, 5))),
    GameRecord(source="d", moves=_moves((W, 2, 16), (B, 3, 16), (W, 2, 15)), setup_black=(point(15, 15),)),
]


def _batch(records: list[GameRecord]) -> pa.RecordBatch:
    rows = {
        "game": [10 + i for i in range(len(records))],
        "source": [r.source for r in records],
        "location": [""] * len(records),
        "handicap": [r.handicap for r in records],
        "setup_black": [encode_points(r.setup_black) for r in records],
        "setup_white": [encode_points(r.setup_white) for r in records],
        "setup_events": [json.dumps([list(e) for e in r.setup_events]) if r.setup_events else "" for r in records],
        "moves": [encode_moves(r.moves) for r in records],
    }
    types = {"game": pa.int64(), "handicap": pa.int16()}
    return pa.RecordBatch.from_arrays(
        [pa.array(rows[c], types.get(c, pa.string())) for c in GAME_COLUMNS], names=GAME_COLUMNS
    )


def _table(arrays: dict) -> pa.Table:
    arrays = {**arrays, "shared": shared_prefixes(arrays["game"], arrays["offsets"], arrays["keys"])}
    return sequence_table(arrays)


def test_the_columns_after_scores_are_each_entrys_number_and_nearness():
    assert SEQUENCES_SCHEMA.names[-3:] == ["scores", "numbers", "near"]
    assert SEQUENCES_SCHEMA.field("numbers").type == SEQUENCES_SCHEMA.field("near").type == pa.binary()


def test_both_engines_give_the_same_rows_numbers_and_nearness_as_the_reference_says():
    params = Phase1Params()
    batch = _batch(GAMES)
    fast = _table(fast_batch(batch, params, None, 1))
    reference = _table(_reference_batch(batch.to_pylist(), params))
    assert fast.equals(reference)
    rows = fast.to_pylist()
    expected = [(10 + g, s) for g, record in enumerate(GAMES) for s in extract(record, params)]
    assert len(rows) == len(expected)
    for row, (game, seq) in zip(rows, expected):
        assert row["game"] == game
        assert len(row["numbers"]) == 2 * row["length"] and len(row["near"]) == row["length"]
        assert tuple(np.frombuffer(row["numbers"], "<i2").tolist()) == seq.numbers
        assert tuple(np.frombuffer(row["near"], np.uint8).tolist()) == seq.near
    first = rows[:3]  # the first game: (3, 8) is near the 4-4 point's sequence and (3, 13)'s
    assert [np.frombuffer(r["numbers"], "<i2").tolist() for r in first] == [[1, 4, 5], [2, 4, 4], [3]]
    assert [np.frombuffer(r["near"], np.uint8).tolist() for r in first] == [[0, 1, 0], [0, 0, 1], [0]]


def test_rows_of_games_kept_keep_their_numbers_and_nearness():
    """``of_games`` (ingest's fused replay) drops a rejected game's
    sequences with their numbers and nearness."""
    params = Phase1Params()
    batch = _batch([GAMES[0], GAMES[1], GAMES[3]])
    arrays = fast_batch(batch, params, None, 1)
    arrays = {**arrays, "game": arrays["game"] - 10}
    kept = _table(of_games(arrays, 3, np.array([0, 2]), 10))
    alone = _table(fast_batch(_batch([GAMES[0], GAMES[3]]), params, None, 1))
    assert kept.equals(alone)


def test_a_move_number_past_an_int16_is_stored_as_the_largest():
    """A record of 40,000 passes, then moves: the numbers saturate at
    NUMBER_MAX in both engines (the sequence's start keeps the true one)."""
    moves = _moves(*([(B, None, None), (W, None, None)] * 20_000), (B, 3, 3), (W, 3, 5))
    batch = _batch([GameRecord(source="long", moves=moves)])
    params = Phase1Params()
    fast = _table(fast_batch(batch, params, None, 1))
    assert fast.equals(_table(_reference_batch(batch.to_pylist(), params)))
    (row,) = fast.to_pylist()
    assert row["start"] == 40_001 and np.frombuffer(row["numbers"], "<i2").tolist() == [NUMBER_MAX, NUMBER_MAX]
