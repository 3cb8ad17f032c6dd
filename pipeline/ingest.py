"""Stage 1, ingest: game collections -> games.parquet + rejects.parquet.

Every game read is either accepted (a row of games.parquet) or rejected with
a documented reason and its location (a row of rejects.parquet)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
from tqdm import tqdm

from joseki_miner.readers import read_paths
from joseki_miner.records import GameRecord, RecordError, Reject, encode_moves, encode_points
from joseki_miner.validate import check

from .parquet import BatchWriter

META = ("PB", "PW", "BR", "WR", "DT", "EV", "RE", "KM")
GAMES_SCHEMA = pa.schema(
    [("game", pa.int64()), ("source", pa.string()), ("location", pa.string())]
    + [(m, pa.string()) for m in META]
    + [
        ("handicap", pa.int16()),
        ("size", pa.int16()),
        ("move_count", pa.int32()),
        ("setup_black", pa.string()),
        ("setup_white", pa.string()),
        ("setup_events", pa.string()),
        ("moves", pa.string()),
    ]
)
REJECTS_SCHEMA = pa.schema(
    [("source", pa.string()), ("location", pa.string()), ("reason", pa.string()), ("detail", pa.string())]
)


class StrictError(RuntimeError):
    """--strict: the first bad record stops the run."""


def _fingerprint(record: GameRecord) -> str:
    """Same setup and moves -> same game, wherever it was found."""
    text = encode_points(record.setup_black) + "|" + encode_points(record.setup_white) + "|" + encode_moves(record.moves)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def run(
    paths: Sequence[str | Path],
    games_path: Path,
    rejects_path: Path,
    *,
    include_handicap: bool,
    dedupe: bool,
    strict: bool = False,
    progress: bool = True,
) -> dict:
    """Read, validate and store every game; return the stage's figures."""
    games = BatchWriter(games_path, GAMES_SCHEMA)
    rejects = BatchWriter(rejects_path, REJECTS_SCHEMA)
    reasons: Counter[str] = Counter()
    seen: dict[str, str] = {}
    read = 0
    try:
        for item in tqdm(read_paths(paths), desc="ingest", unit=" games", disable=not progress):
            read += 1
            if isinstance(item, GameRecord):
                try:
                    check(item, include_handicap)
                    if dedupe:
                        key = _fingerprint(item)
                        if key in seen:
                            raise RecordError("duplicate", f"same moves as {seen[key]}")
                        seen[key] = item.where
                except RecordError as exc:
                    item = Reject(item.source, item.location, exc.reason, exc.detail)
            if isinstance(item, Reject):
                if strict:
                    raise StrictError(f"{item.source}:{item.location}: {item.reason}: {item.detail}".replace("::", ":"))
                reasons[item.reason] += 1
                rejects.add({"source": item.source, "location": item.location, "reason": item.reason, "detail": item.detail})
                continue
            row = {m: item.meta.get(m, "") for m in META}
            row.update(
                game=games.rows,
                source=item.source,
                location=item.location,
                handicap=item.handicap,
                size=item.size,
                move_count=len(item.moves),
                setup_black=encode_points(item.setup_black),
                setup_white=encode_points(item.setup_white),
                setup_events=json.dumps(item.setup_events) if item.setup_events else "",
                moves=encode_moves(item.moves),
            )
            games.add(row)
    finally:
        games.close()
        rejects.close()
    return {
        "games_read": read,
        "games_accepted": games.rows,
        "games_rejected": dict(sorted(reasons.items())),
    }
