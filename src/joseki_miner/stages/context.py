"""Stage context: joseki.parquet and sequences.parquet ->
node_context.parquet.

Each node of the pruned tree, in its games' whole boards
(``method.context``): the games in which another sequence's stone lay
within distance.maybe of its move, and the median move number of its
games there.  The book and the explorer say it in words ("another stone
near in 78% of its games, played around move 38"), and the board's kinds
are read from it (``method.context.board_kinds``): a joseki move that is
situational, doubtful or side play is named so (the ``kind`` column, the
book's kind of each node; joseki.parquet keeps the corner's own)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from joseki_miner.fast.arrow import column, numpy, strings
from joseki_miner.fast.tables import CONTEXT_SCHEMA
from joseki_miner.method import kinds
from joseki_miner.method.context import (
    Entries,
    Evidence,
    Tally,
    Tree,
    board_kinds,
    keys_of_moves,
    mover_wins,
    tally,
)
from joseki_miner.method.points import TENUKI, from_sgf
from joseki_miner.method.prune import parent_rows, tenuki_counts
from joseki_miner.runs.catalog import parts_of
from joseki_miner.runs.context import Context
from joseki_miner.runs.inputs import Collections
from joseki_miner.stages.params import board_rules
from joseki_miner.runs.progress import bar
from joseki_miner.runs.stop import check as check_stop
from joseki_miner.runs.store import staged

BATCH = 200_000  # sequences read at a time


def entries_of(batch: pa.RecordBatch) -> Entries:
    """A batch of sequences.parquet's rows as ``Entries``."""
    moves = batch.column("moves")
    offsets = np.frombuffer(moves.buffers()[1], np.int32, count=len(moves) + 1, offset=4 * moves.offset)
    keys = keys_of_moves(moves.buffers()[2].to_pybytes(), offsets)
    numbers, near = batch.column("numbers"), batch.column("near")
    return Entries(
        (offsets - offsets[0]).astype(np.int64) // 2,
        keys,
        np.frombuffer(_bytes(numbers), "<i2").astype(np.int32),
        np.frombuffer(_bytes(near), np.uint8).astype(bool),
        numpy(batch.column("shared")).astype(np.int64),
    )


def _bytes(column: pa.BinaryArray) -> bytes:
    """The values of a binary column laid end to end."""
    offsets = np.frombuffer(column.buffers()[1], np.int32, count=len(column) + 1, offset=4 * column.offset)
    return column.buffers()[2].to_pybytes()[int(offsets[0]) : int(offsets[-1])]


@dataclass(frozen=True)
class Pruned:
    """joseki.parquet as the stage reads it: its table, each row's parent
    row and move, and the tree the sequences walk down."""

    table: pa.Table
    rows: np.ndarray
    key: np.ndarray
    tree: Tree

    @classmethod
    def read(cls, path: Path) -> Pruned:
        table = pq.ParquetFile(path).read()  # not read_table: its datasets load pandas
        node, parent = numpy(table.column("node")), numpy(table.column("parent"))
        key = np.array([TENUKI if m == "" else from_sgf(m) for m in table.column("move").to_pylist()], np.int64)
        rows = parent_rows(node, parent)
        return cls(table, rows, key, Tree.of(rows, key))


@dataclass(frozen=True)
class Piece:
    """Some whole row groups of a part of sequences.parquet (a file, or a
    part of a folder of them), and their sequences."""

    part: str
    groups: tuple[int, ...]
    rows: int


def pieces(path: Path, rows: int = BATCH) -> list[Piece]:
    """sequences.parquet in pieces of at most ``rows`` sequences (or one
    row group, where a group holds more), a part's groups in order: the
    walk goes a piece at a time, and the dask engine walks each apart."""
    made = []
    for part in parts_of(path):
        meta = pq.read_metadata(part)
        groups: list[int] = []
        held = 0
        for g in range(meta.num_row_groups):
            size = meta.row_group(g).num_rows
            if groups and held + size > rows:
                made.append(Piece(str(part), tuple(groups), held))
                groups, held = [], 0
            groups.append(g)
            held += size
        if groups:
            made.append(Piece(str(part), tuple(groups), held))
    return made


def walked(tree: Tree, of: list[Piece], shown=None) -> Tally:
    """The walk of the sequences of some pieces of sequences.parquet down
    ``tree``, a piece at a time."""
    tallies = []
    for piece in of:
        check_stop()
        with pq.ParquetFile(piece.part) as file:
            for batch in file.iter_batches(BATCH, list(piece.groups), ["moves", "numbers", "near", "shared"]):
                tallies.append(tally(tree, entries_of(batch)))
        if shown is not None:
            shown.update(piece.rows)
    return Tally.summed(tallies, tree.n)


def run(context: Context) -> dict:
    """Each pruned node's games in their whole board, and its kind
    (module docstring)."""
    c = context.catalog
    pruned = Pruned.read(context.current(c.joseki))
    with bar(context.options.progress, desc="context", unit=" sequences", leave=False) as shown:
        found = walked(pruned.tree, pieces(context.current(c.sequences)), shown)
    return written(context, pruned, found)


def written(context: Context, pruned: Pruned, walk: Tally) -> dict:
    """node_context.parquet of the tree ``pruned`` with what the walk of
    every sequence found (``walk``); the stage's figures."""
    c, tree, rows, key = context.catalog, pruned.table, pruned.rows, pruned.key
    found = walk.context()
    node = numpy(tree.column("node"))
    kind = tree.column("kind").to_pylist() if "kind" in tree.column_names else [""] * len(node)
    rules = board_rules(context.settings)
    if rules is not None and "kind" in tree.column_names:
        count = numpy(tree.column("count"))
        won, decided = mover_wins(
            tree.column("color").to_pylist(), numpy(tree.column("black_wins")), numpy(tree.column("white_wins"))
        )
        evidence = Evidence(
            count,
            numpy(tree.column("tenuki")) if "tenuki" in tree.column_names else tenuki_counts(rows, key, count),
            won,
            decided,
            strong_games(context.current(c.node_sources), node, context.settings.kinds_strong or ()),
        )
        code = np.array([kinds.KINDS.index(k) for k in kind], np.int8)
        kind = kinds.names(board_kinds(rows, numpy(tree.column("depth")), key, code, found, evidence, rules))
    (path,) = c.outputs("context")
    table = pa.Table.from_arrays(  # built without pa.array, which loads pandas
        [column(node, np.int64), column(found.near, np.int64), column(found.move, np.int32), strings(kind)],
        schema=CONTEXT_SCHEMA,
    )
    pq.write_table(table, staged(path), compression="zstd")
    games = int(found.games[1:].sum())
    named = {name: kind.count(name) for name in ("situational", "doubtful")}
    return {
        "context_near_share": round(int(found.near[1:].sum()) / games, 4) if games else 0.0,
        **{f"{name}_nodes": n for name, n in named.items()},
    }


def strong_games(sources, node: np.ndarray, strong) -> np.ndarray:
    """Per node, its games in the collections named ``strong`` (a name, or
    the last part of one)."""
    table = pq.ParquetFile(sources).read(columns=["node", "source", "games"])
    names = table.column("source").to_pylist()
    picked = np.array([Collections.selected(name, strong) for name in names], bool)
    out = np.zeros(len(node), np.int64)
    at = np.searchsorted(node, numpy(table.column("node")))
    np.add.at(out, at[picked], numpy(table.column("games"))[picked])
    return out
