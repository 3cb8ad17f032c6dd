"""Stage 2, extract: games.parquet -> sequences.parquet.

Phase 1 of the thesis for every game: its corner sequences in normal form,
with the influence scores each move saw (section 8), one row a sequence."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
from tqdm import tqdm

from joseki_miner.points import to_sgf
from joseki_miner.records import GameRecord, decode_moves, decode_points
from joseki_miner.sequences import Phase1Params, extract

from .parquet import BatchWriter, count_rows, iter_batches

SEQUENCES_SCHEMA = pa.schema(
    [
        ("game", pa.int64()),
        ("sequence", pa.int32()),
        ("transform", pa.int8()),
        ("swapped", pa.bool_()),
        ("length", pa.int16()),
        # normalized SGF points, 2 characters a move, "--" for a tenuki
        ("moves", pa.string()),
        # influence scores, 4 a move: up, right, down, left (normalized)
        ("scores", pa.list_(pa.int16())),
    ]
)
GAME_COLUMNS = ["game", "source", "location", "handicap", "setup_black", "setup_white", "setup_events", "moves"]


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


def encode_keys(keys) -> str:
    return "".join(to_sgf(k) or "--" for k in keys)


def run(games_path: Path, sequences_path: Path, params: Phase1Params, *, progress: bool = True) -> dict:
    writer = BatchWriter(sequences_path, SEQUENCES_SCHEMA)
    bar = tqdm(total=count_rows(games_path), desc="extract", unit=" games", disable=not progress)
    try:
        for batch in iter_batches(games_path, GAME_COLUMNS):
            for row in (dict(zip(batch, values)) for values in zip(*batch.values())):
                for i, seq in enumerate(extract(record_of(row), params)):
                    writer.add(
                        {
                            "game": row["game"],
                            "sequence": i,
                            "transform": seq.transform,
                            "swapped": seq.swapped,
                            "length": len(seq.keys),
                            "moves": encode_keys(seq.keys),
                            "scores": [s for four in seq.scores for s in four],
                        }
                    )
                bar.update()
    finally:
        bar.close()
        writer.close()
    return {"sequences": writer.rows}
