"""The saved tables' layouts, in one place: each stage file's schema and
how it is written (games.parquet, sequences.parquet, the trie's files,
sorted_sequences.parquet, the pruned tree's tables), the tables made of
arrays (``sorted_table``, ``years_table``...), and the node table (the
``trie.parquet``/``joseki.parquet`` layout) as Arrow columns, from a
trie's node arrays: what every engine writes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from joseki_miner.fast.arrow import column, strings
from joseki_miner.method.kinds import KINDS
from joseki_miner.method.points import TENUKI
from joseki_miner.method.records import GAME_INFO
from joseki_miner.method.trie import COLOR_NAMES, COUNTER_COLUMNS, MOVE_NAMES, STAT_COLUMNS, Trie

if TYPE_CHECKING:
    import pandas as pd

_BLOCK = 1 << 16


def numbered(ids: np.ndarray) -> np.ndarray:
    """0, 1, 2... within each run of equal ids: a row's place in its game
    (the sequences) or its node (the example games)."""
    if not len(ids):
        return np.zeros(0, dtype=np.int32)
    starts = np.r_[0, np.flatnonzero(np.diff(ids)) + 1]
    run_start = np.repeat(starts, np.diff(np.r_[starts, len(ids)]))
    return (np.arange(len(ids)) - run_start).astype(np.int32)


def node_table(a: dict[str, np.ndarray]) -> pa.Table:
    """The node table (trie.parquet / joseki.parquet layout) of node arrays;
    both the reference and the fast path write through here.  With a
    "kind" array (codes of ``kinds.KINDS``) the table says each node's kind
    after its move; with "tenuki" (``prune.tenuki_counts``), how often its
    line went on elsewhere, after its count."""
    depth = np.asarray(a["depth"], dtype=np.int64)
    keys = np.where(depth == 0, TENUKI, np.asarray(a["key"], dtype=np.int64))
    columns = {
        "node": column(a["node"], np.int64),
        "parent": column(a["parent"], np.int64),
        "depth": column(depth),
        "color": strings(list(COLOR_NAMES)).take(column(np.where(depth == 0, 0, 2 - depth % 2))),
        "move": strings(list(MOVE_NAMES)).take(column(keys)),
    }
    if "kind" in a:
        columns["kind"] = strings(list(KINDS)).take(column(a["kind"], np.int8))
    columns["count"] = column(a["count"], np.int64)
    if "tenuki" in a:
        columns["tenuki"] = column(a["tenuki"], np.int64)
    if "through" in a:  # where move orders are merged: what of the count came from the parent's position
        columns["through"] = column(a["through"], np.int64)
    counters = np.asarray(a["counters"]).reshape(-1, 12)
    by_column = np.empty((12, len(counters)), dtype=np.int64)
    for start in range(0, len(counters), _BLOCK):  # in blocks that stay in cache: a column-by-column
        by_column[:, start : start + _BLOCK] = counters[start : start + _BLOCK].T  # copy is 5x slower
    for i, name in enumerate(COUNTER_COLUMNS):
        columns[name] = column(by_column[i])
    for name in STAT_COLUMNS:
        columns[name] = column(a[name], np.int16 if name.endswith("_year") else np.int64)
    return pa.Table.from_arrays(list(columns.values()), names=list(columns))


def trie_table(trie: Trie) -> pd.DataFrame:
    """The trie as a table in canonical order (node ids renumbered)."""
    return node_table(trie.to_arrays()).to_pandas()


# -- the stage files: ingest's, extract's ---------------------------------------------

# games.parquet: a row a game kept, in the reading order
GAMES_SCHEMA = pa.schema(
    [("game", pa.int64()), ("source", pa.string()), ("location", pa.string()), ("collection", pa.string())]
    + [(m, pa.string()) for m in GAME_INFO]
    + [
        # what the statistics read: the first date of DT as YYYYMMDD (0
        # unknown; a missing month or day 00), its year, the winner RE names
        # (-1 black, +1 white, 0 none: gameinfo)
        ("day", pa.int32()),
        ("year", pa.int16()),
        ("winner", pa.int8()),
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

# sequences.parquet: a row a corner sequence in normal form, by game
SEQUENCES_SCHEMA = pa.schema(
    [
        ("game", pa.int64()),
        ("sequence", pa.int32()),
        ("transform", pa.int8()),
        ("swapped", pa.bool_()),
        # the move number (from 1, passes counted) of its first move in the game
        ("start", pa.int32()),
        # the most moves it shares from the start with an earlier-started
        # sequence of its game (-1 for the game's first): a node counts the
        # game once, by its earliest sequence through it
        ("shared", pa.int16()),
        ("length", pa.int16()),
        # normalized SGF points, 2 characters a move, "--" for a tenuki
        ("moves", pa.string()),
        # influence scores, 4 a move (up, right, down, left, normalized) as
        # little-endian int16, 8 bytes a move: np.frombuffer(b, "<i2").reshape(-1, 4).
        # Raw bytes, not a list column: Parquet writes and reads nested lists
        # several times slower, and this is the stage's largest column
        ("scores", pa.binary()),
        # each move's move number in the game (from 1, passes counted, at most
        # kernel.NUMBER_MAX; a tenuki: the number of the move that comes back, a
        # handicap stone: 0) as little-endian int16, 2 bytes a move:
        # np.frombuffer(b, "<i2")
        ("numbers", pa.binary()),
        # 1 where a move was played within distance.maybe of two or more
        # sequences (another sequence's stone near it), 0 otherwise and for a
        # tenuki or a handicap stone; uint8, a byte a move: np.frombuffer(b, np.uint8)
        ("near", pa.binary()),
    ]
)


# -- the build's: the trie's files and the sequences in trie order ----------------------

# How trie.parquet is encoded.  Columns of few values take a dictionary; the
# numbers (node, parent, counts) are delta-encoded and bit-packed, which
# holds them about as small as zstd does, so a fast codec (lz4) is enough:
# all data's trie writes in 0.12 s instead of 0.19 s and reads in 0.03 s
# instead of 0.16 s, for 6.1 MB instead of 4.7 MB.
DICTIONARY = ["depth", "color", "move", "kind"]
TRIE_FILE = {
    "compression": "lz4",
    "use_dictionary": [*DICTIONARY, "first_year", "last_year"],
    "column_encoding": {
        name: "DELTA_BINARY_PACKED"
        for name in ("node", "parent", "count", *COUNTER_COLUMNS, "first", "games", "black_wins", "white_wins")
    },
}

# sorted_sequences.parquet: every sequence in trie order (its keys, then its
# game and number in it), so that a node's sequences are the ``count`` rows from
# its ``first``: the game, the sequence's number in it (its moves are in
# sequences.parquet), the move number where it starts and its orientation
# (transform + 8 when colours were swapped).  Only the payload is written:
# putting the keys in order too cost more than the count itself
SORTED_SCHEMA = pa.schema(
    [("game", pa.int64()), ("sequence", pa.int32()), ("start", pa.int32()), ("orientation", pa.int8())]
)
SORTED_ROWS = 1 << 17
SORTED_FILE = {"compression": "lz4"}  # written beside the count: cheap to encode
# trie_years.parquet and trie_sources.parquet: node numbers and games as
# deltas (rows come by node), years and collections as dictionaries, lz4:
# a fifth of the time zstd took for them on all data (1.5 and 1.1 M rows)
ROWS_FILE = {
    "compression": "lz4",
    "use_dictionary": ["year", "source"],
    "row_group_size": 1 << 16,
    "column_encoding": {"node": "DELTA_BINARY_PACKED", "games": "DELTA_BINARY_PACKED"},
}
YEARS_SCHEMA = pa.schema([("node", pa.int64()), ("year", pa.int16()), ("games", pa.int32())])
# the collections as a dictionary: a long path a row would be gigabytes of a large trie's rows
SOURCES_SCHEMA = pa.schema(
    [("node", pa.int64()), ("source", pa.dictionary(pa.int16(), pa.string())), ("games", pa.int32())]
)

# trie_positions.parquet: sorted by key, in row groups whose statistics let a
# search read the one group that holds a key
POSITIONS_FILE = {
    "compression": "lz4",
    "row_group_size": 1 << 15,
    "write_statistics": ["hi"],
    "column_encoding": {"node": "DELTA_BINARY_PACKED"},
    "use_dictionary": False,
}


def sorted_table(payload: np.ndarray, order: np.ndarray | None = None) -> pa.Table:
    """sorted_sequences.parquet's rows of sequences in trie order (their
    payload rows, taken in ``order`` when given)."""
    fields = [payload[name] for name in SORTED_SCHEMA.names]
    if order is not None:
        fields = [f[order] for f in fields]
    return pa.Table.from_arrays([column(f) for f in fields], schema=SORTED_SCHEMA)


def positions_table(index: dict[str, np.ndarray]) -> pa.Table:
    """trie_positions.parquet of a ``position_index``."""
    return pa.table(
        {
            "hi": column(index["hi"]),
            "lo": column(index["lo"]),
            "node": column(index["node"]),
            "transform": column(index["transform"], np.int8),
        }
    )


def years_table(rows: dict[str, np.ndarray]) -> pa.Table:
    """trie_years.parquet (node_years.parquet) of rows (columns node, index:
    the year, games)."""
    return pa.Table.from_arrays(
        [column(rows["node"], np.int64), column(rows["index"], np.int16), column(rows["games"], np.int32)],
        schema=YEARS_SCHEMA,
    )


def sources_table(rows: dict[str, np.ndarray], names: list[str]) -> pa.Table:
    """trie_sources.parquet (node_sources.parquet) of rows (columns node,
    index: the collection's number, games): by node, then by collection in
    the order the games met them (the order of the paths given, then of
    their folders)."""
    source = pa.DictionaryArray.from_arrays(column(rows["index"], np.int16), strings(list(names)))
    return pa.Table.from_arrays(
        [column(rows["node"], np.int64), source, column(rows["games"], np.int32)], schema=SOURCES_SCHEMA
    )


# -- the pruned tree's: prune's and context's ------------------------------------------

EXAMPLE_INFO = {"PB": "black", "BR": "black_rank", "PW": "white", "WR": "white_rank", "DT": "date", "RE": "result"}
EXAMPLES_SCHEMA = pa.schema(
    [
        ("node", pa.int64()),
        ("example", pa.int16()),
        ("game", pa.int64()),
        ("collection", pa.string()),
        ("source", pa.string()),
        ("location", pa.string()),
    ]
    + [(name, pa.string()) for name in EXAMPLE_INFO.values()]
    + [("move", pa.int32()), ("corner", pa.string())]
)
TRANSPOSITIONS_SCHEMA = pa.schema(
    [("node", pa.int64()), ("moves", pa.string()), ("games", pa.int64()), ("count", pa.int64()), ("at", pa.int64())]
)
CONTEXT_SCHEMA = pa.schema(
    [
        ("node", pa.int64()),
        # the node's games in which a stone of another sequence lay within distance.maybe of its move
        ("near", pa.int64()),
        # the median move number of its games at its move (0 at the root)
        ("move_number", pa.int32()),
        # joseki.parquet's kind, or the board's where a rule names a joseki move (without kinds: "")
        ("kind", pa.string()),
    ]
)
