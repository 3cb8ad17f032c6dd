"""Phase 2 on the stage files: trie.parquet (or the trie's arrays just
counted) pruned into joseki.parquet, with the kept nodes' games by year and
by collection and their example games."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from joseki_miner.runs.catalog import positions_of
from joseki_miner.runs.config import Config
from joseki_miner.runs.context import Context
from joseki_miner.runs.errors import UsageError
from joseki_miner.runs.settings import PruneSettings
from joseki_miner.runs.stop import check as check_stop
from joseki_miner.runs.store import staged
from joseki_miner.stages.opened import opened_in, opened_rows
from joseki_miner.stages.params import kind_rules, prune_outputs, prune_rules, threshold_for
from joseki_miner.stages.saved import read_saved, write_saved
from joseki_miner.method import prune as phase2
from joseki_miner.fast.arrow import column, numpy, strings
from joseki_miner.fast.joining import end_to_end
from joseki_miner.method.kinds import APPROACH, FOLLOW_UP, KINDS, KindRules, ends, of_arrays
from joseki_miner.book.lookup import corner_of
from joseki_miner.method.points import TENUKI, from_sgf, to_sgf
from joseki_miner.fast.parquet import read_columns, rows_at
from joseki_miner.fast.tables import (
    EXAMPLE_INFO,
    EXAMPLES_SCHEMA,
    TRANSPOSITIONS_SCHEMA,
    node_table,
    numbered,
    sources_table,
    years_table,
)
from joseki_miner.stages.orders import Segments, merged
from joseki_miner.method.trie import COUNTER_COLUMNS, NODE_ARRAYS, STAT_COLUMNS


@dataclass(frozen=True)
class Pruning:
    """What phase 2 keeps and writes: the ``threshold`` (4.2) and
    ``min_length``, ``examples`` a node, the future work's rules of phase 2
    (``rules``), the nodes' kinds (``kinds``: their rules; trie.parquet
    holds them then), one node a position (``merge_orders``: ``orders``),
    and a bar for the merging (``progress``: seconds on a large trie)."""

    threshold: int
    min_length: int = 0
    examples: int = 0
    rules: phase2.PruneRules = phase2.PruneRules()
    kinds: KindRules | None = None
    merge_orders: bool = False
    progress: bool = False


@dataclass(frozen=True)
class PruneFiles:
    """The files prune reads besides the trie (the sequences in trie
    order, the games) and those it writes (``outputs``: the paths of
    "joseki", "years", "sources", "examples", and "orders" where orders
    are merged, "transpositions" where asked).  Without ``games`` (orders
    not merged), the example games are left to the caller (``prune_shards``:
    the shards find them): the figures then hold the kept nodes' "segments"."""

    sorted_sequences: Path
    games: Path | None
    outputs: dict[str, Path]


@dataclass(frozen=True)
class TrieArrays:
    """The trie prune reads, as arrays: its node arrays (with their games
    by year and by collection, "years" and "sources", where prune writes
    them of these), the collections' names by number, and what the build
    computed of it once, where it did, each given when prune asks for it
    (the one pass computes them beside prune): the trie's position index
    (``build.position_index``), its nodes' kind codes (``build.kinds_of``)
    and the rows of sorted_sequences.parquet a handicap stone opened."""

    arrays: dict[str, Any]
    names: list[str]
    positions: Callable[[], dict[str, np.ndarray]] | None = None
    kinds: Callable[[], np.ndarray | None] | None = None
    opened: Callable[[], np.ndarray] | None = None


def prune_files(trie: Path, years: Path, sources: Path, files: PruneFiles, pruning: Pruning) -> dict:
    """Prune trie.parquet (with its games by year and by collection, and
    its position index beside it, read where prune needs it)."""
    threshold, min_length, rules, kinds = pruning.threshold, pruning.min_length, pruning.rules, pruning.kinds
    table = read_columns(trie).combine_chunks()  # a file, or the dask engine's parts: one table
    index = partial(read_index, positions_of(trie))
    if pruning.merge_orders:
        arrays, names = _arrays_of(table, _rows(years), _rows(sources))
        return prune_arrays(TrieArrays(arrays, names, positions=index), files, pruning)
    arrays = {name: numpy(table.column(name)) for name in ("node", "parent", "depth", "count", "games", "first")}
    arrays["key"] = _keys(table)
    keep, new_node, new_parent = phase2.survivors(
        arrays["node"],
        arrays["parent"],
        arrays["depth"],
        arrays["count"],
        phase2.Cut(threshold, min_length, rules),
        arrays["key"],
        arrays["games"],
    )
    pruned = table.filter(column(keep))
    if "kind" in table.column_names and kinds is None:
        pruned = pruned.drop_columns(["kind"])
    elif "kind" not in table.column_names and kinds is not None:  # kinds read on the whole trie, as the build does
        pruned = pruned.add_column(
            pruned.column_names.index("move") + 1,
            "kind",
            strings(list(KINDS)).take(column(of_arrays(arrays, kinds)[keep], np.int8)),
        )
    pruned = pruned.set_column(0, "node", column(new_node)).set_column(1, "parent", column(new_parent))
    if rules.fold_tenuki:
        pruned = pruned.add_column(
            pruned.column_names.index("count") + 1, "tenuki", column(_tenuki_counts(arrays)[keep])
        )
    rows = {name: _rows(path) for name, path in (("years", years), ("sources", sources))}
    return _write(pruned, _new_ids(keep), TrieArrays(arrays, [], positions=index), rows, files, pruning)


def prune_arrays(trie: TrieArrays, files: PruneFiles, pruning: Pruning) -> dict:
    """``prune_files`` on the trie's arrays in memory (``sorting.SortedRuns.count``),
    while trie.parquet is still being written: the same files."""
    return _pruned(trie, files, pruning)[0]


def prune_shards(
    candidates: list[dict],
    names: list[str],
    files: PruneFiles,
    pruning: Pruning,
    wanted: Path,
) -> dict:
    """``prune_arrays`` on a trie kept as shards (``shards.write_shard``),
    on their candidates alone (``shards.keep_candidates`` of each, in order:
    the nodes phase 2 may keep, ``method.prune.candidates``; the same nodes
    kept, numbered alike), but for node_examples.parquet and
    node_transpositions.parquet: the kept nodes' sequences and positions
    go to ``wanted``, which each shard searches (``examples_of_shard``,
    ``shards.transposed_of_shard``) before ``write_found``."""
    arrays = end_to_end(candidates)
    opened = opened_in(arrays.pop("opened_in").tolist())
    node, shared = arrays.pop("node"), arrays.pop("shared")
    at = np.minimum(np.searchsorted(node, shared["node"]), max(len(node) - 1, 0))
    held = node[at] == shared["node"] if len(node) else np.zeros(0, bool)
    np.maximum.at(arrays["tenuki"], at[held], shared["tenuki"][held])  # a shared node's tenuki child is in one shard
    arrays["node"] = np.arange(len(node))  # its rows, in node order: the parents, the years' and collections' too
    arrays["parent"] = np.where(arrays["parent"] < 0, -1, np.searchsorted(node, arrays["parent"]))
    for what in ("years", "sources"):
        arrays[what]["node"] = np.searchsorted(node, arrays[what]["node"])
    position, codes = arrays.pop("position"), arrays.pop("kind", None)
    outputs = {name: path for name, path in files.outputs.items() if name not in ("examples", "transpositions")}
    shard_files = replace(files, games=None, outputs=outputs)  # the examples and other orders: per shard
    figures, keep, new_id = _pruned(
        TrieArrays(arrays, names, kinds=lambda: codes, opened=lambda: opened), shard_files, pruning
    )
    segments = figures.pop("segments")
    kept = np.flatnonzero(keep & (arrays["depth"] > 0))
    found = {name: position[name][kept] for name in ("hi", "lo", "transform")}
    sequences = {name: getattr(segments, name) for name in ("node", "first", "count", "opening")}
    found.update(node=node[kept], new=new_id[kept], segments=sequences, examples=np.array(pruning.examples))
    write_saved(wanted, found)
    return figures


def examples_of_shard(folder: Path, offset: int, wanted: Path, games: int) -> dict[str, np.ndarray]:
    """The candidates for the kept nodes' example games (``wanted``,
    ``prune_shards``) of a shard's sequences in trie order (its count's, in
    ``folder``, from row ``offset`` of sorted_sequences.parquet, with the
    days of their games: ``shards.days_of``; ``games``: the games in all),
    for ``write_found`` (``shard_examples``)."""
    kept = read_saved(wanted)
    with pa.ipc.open_file(pa.memory_map(str(folder / "sorted.arrow"))) as part:
        rows = part.read_all()
    game, played = numpy(rows.column("game")), read_saved(folder / "days")
    at = np.searchsorted(played["game"], game)
    if len(game) and (at.max() >= len(played["game"]) or (played["game"][at] != game).any()):
        raise RuntimeError(f"{folder} holds sequences of games its count kept no day of")
    rank = recency(played["day"][at], game, games)
    return shard_examples(rows, offset, rank, kept["segments"], int(kept["examples"]))


def write_found(
    found: list[dict],
    wanted: Path,
    games_path: Path,
    outputs: dict[str, Path],
    part_rows: list[int] | None = None,
    transposed: list[dict] | None = None,
) -> None:
    """node_examples.parquet of the shards' candidates (``found``:
    ``examples_of_shard`` of each) and, where asked, node_transpositions.parquet
    of what they found on the kept nodes' positions (``transposed``:
    ``shards.transposed_of_shard`` of each, ``write_transpositions``);
    ``part_rows``: the games of each part of games.parquet, where the run
    knows them."""
    kept = read_saved(wanted)
    table = examples_of_shards(found, kept["segments"]["opening"], games_path, int(kept["examples"]), part_rows)
    pq.write_table(table, outputs["examples"], compression="zstd")
    if "transpositions" in outputs:
        if transposed is None:
            raise TypeError("node_transpositions.parquet is written of what the shards found on the positions")
        write_transpositions(transposed, kept, outputs["transpositions"])


def write_transpositions(parts: list[dict], kept: dict, path: Path) -> None:
    """node_transpositions.parquet as ``transpositions_table`` writes it,
    of what each shard found on the kept nodes' positions (``parts``; the
    kept nodes, ``prune_shards``'s ``wanted``)."""
    names = ("node", "hi", "lo", "transform", "games", "count")
    found = {name: np.concatenate([p[name] for p in parts]) for name in names}
    lines: list[np.ndarray] = []
    for p in parts:
        lines += np.split(p["keys"], p["ends"][:-1]) if len(p["ends"]) else []
    by_position: dict[tuple[int, int], list[int]] = {}
    for i, key in enumerate(zip(found["hi"].tolist(), found["lo"].tolist())):
        by_position.setdefault(key, []).append(i)
    new_of = dict(zip(kept["node"].tolist(), kept["new"].tolist()))
    rows: dict[str, list] = {name: [] for name in TRANSPOSITIONS_SCHEMA.names}
    for a, new, h, low, turned in zip(*(kept[k].tolist() for k in ("node", "new", "hi", "lo", "transform"))):
        others = sorted(
            (i for i in by_position.get((h, low), []) if found["node"][i] != a),
            key=lambda i: (-int(found["games"][i]), int(found["node"][i])),
        )
        for i in others[:TRANSPOSITIONS]:
            rows["moves"].append(_moves(lines[i].tolist(), turned, int(found["transform"][i])))
            rows["node"].append(new)
            rows["games"].append(int(found["games"][i]))
            rows["count"].append(int(found["count"][i]))
            rows["at"].append(new_of.get(int(found["node"][i]), -1))
    pq.write_table(_transpositions(rows), path, compression="zstd")


def _pruned(trie: TrieArrays, files: PruneFiles, pruning: Pruning) -> tuple[dict, np.ndarray, np.ndarray]:
    """``prune_arrays``' figures, and which rows it kept and their new numbers."""
    threshold, min_length, rules, kinds = pruning.threshold, pruning.min_length, pruning.rules, pruning.kinds
    arrays, segments = trie.arrays, None
    if pruning.merge_orders:
        from joseki_miner.runs.progress import bar

        with bar(
            pruning.progress, total=len(arrays["node"]), desc="prune: merge orders", unit=" nodes", leave=False
        ) as shown:
            assert files.games is not None, "merging the orders reads the games"
            arrays, segments = merged(arrays, files.sorted_sequences, files.games)
            shown.update(len(segments.node))
    check_stop()  # a stopped run's prune (on a dask worker) writes nothing
    node, parent, depth = arrays["node"], arrays["parent"], arrays["depth"]
    keep, new_node, new_parent = phase2.survivors(
        node,
        parent,
        depth,
        arrays["count"],
        phase2.Cut(threshold, min_length, rules),
        arrays["key"],
        arrays["games"],
        arrays.get("through"),
    )
    check_stop()
    kept = {name: arrays[name][keep] for name in (*NODE_ARRAYS, "through") if name in arrays}
    kept.update(node=new_node, parent=new_parent)
    if kinds is not None:  # read on the whole trie (an approach's kind weighs all its replies), as the build does
        codes = trie.kinds() if trie.kinds is not None and segments is None else None  # merged: other nodes
        kept["kind"] = (codes if codes is not None else of_arrays(arrays, kinds))[keep]
    if rules.fold_tenuki:
        kept["tenuki"] = _tenuki_counts(arrays)[keep]
    pruned = node_table(kept)
    rows = {"years": years_table(arrays["years"]), "sources": sources_table(arrays["sources"], trie.names)}
    new_id = _new_ids(keep)
    return _write(pruned, new_id, replace(trie, arrays=arrays), rows, files, pruning, segments), keep, new_id


def _new_ids(keep: np.ndarray) -> np.ndarray:
    """Each row's number in the pruned tree (-1: pruned); the kept rows keep their order."""
    new_id = np.full(len(keep), -1, np.int64)
    new_id[keep] = np.arange(int(keep.sum()))
    return new_id


def _shown(threshold: int, rules: phase2.PruneRules) -> int:
    """The threshold a run reports: on games, the games a line needs,
    ``min_games`` where it is more."""
    return max(threshold, rules.min_games) if rules.on_games else threshold


def _arrays_of(table: pa.Table, years: pa.Table, sources: pa.Table) -> tuple[dict, list[str]]:
    """The node arrays of trie.parquet's table (and "years" and "sources"
    rows of its tables), as the build hands them to prune; the
    collections' names by number."""
    arrays = {name: numpy(table.column(name)) for name in ("node", "parent", "depth", "count", *STAT_COLUMNS)}
    arrays["key"] = _keys(table)
    arrays["counters"] = (
        np.stack([numpy(table.column(c)) for c in COUNTER_COLUMNS], axis=1)
        if len(table)
        else np.zeros((0, 12), np.int64)
    )
    arrays["years"] = {
        "node": numpy(years.column("node")),
        "index": numpy(years.column("year")),
        "games": numpy(years.column("games")),
    }
    source = sources.column("source").combine_chunks()
    arrays["sources"] = {
        "node": numpy(sources.column("node")),
        "index": numpy(source.indices),
        "games": numpy(sources.column("games")),
    }
    return arrays, source.dictionary.to_pylist()


def _tenuki_counts(arrays: dict) -> np.ndarray:
    """Per node of the trie's arrays, its tenuki child's count (given as
    "tenuki" where the arrays are a trie's candidates alone)."""
    if "tenuki" in arrays:
        return arrays["tenuki"]
    return phase2.tenuki_counts(phase2.parent_rows(arrays["node"], arrays["parent"]), arrays["key"], arrays["count"])


def _rows(path: Path) -> pa.Table:
    return read_columns(path).combine_chunks()


def _write(
    pruned: pa.Table,
    new_id: np.ndarray,
    trie: TrieArrays,
    rows: dict[str, pa.Table],
    files: PruneFiles,
    pruning: Pruning,
    segments=None,
) -> dict:
    sorted_path, games_path, outputs, arrays = files.sorted_sequences, files.games, files.outputs, trie.arrays
    threshold, examples = _shown(pruning.threshold, pruning.rules), pruning.examples
    min_length, on_games = pruning.min_length, pruning.rules.on_games
    joseki_path = outputs["joseki"]
    joseki_path.parent.mkdir(parents=True, exist_ok=True)
    keep = new_id >= 0  # (``_new_ids``)
    kept = np.flatnonzero(keep)
    if segments is None:
        opening = phase2.first_keys(numpy(pruned.column("parent")), _keys(pruned))
        segments = Segments(np.arange(len(kept)), arrays["first"][kept], arrays["count"][kept], opening)
    else:  # one node a position: its members' sequences, each range with the first key of its own line
        segments = segments.of(keep, new_id)
        pq.write_table(
            pa.table(
                {
                    "node": column(segments.node),
                    "first": column(segments.first),
                    "count": column(segments.count),
                    "through": pa.array(segments.through),
                }
            ),
            outputs["orders"],
            compression="zstd",
        )
    check_stop()
    handicap = handicap_counts(segments, trie.opened() if trie.opened else opened_rows(sorted_path), len(kept))
    if handicap is not None:  # a tree that mixes handicap joseki with even games' says which are which
        pruned = pruned.add_column(pruned.column_names.index("games") + 1, "handicap", column(handicap))
    pq.write_table(pruned, joseki_path, compression="zstd")
    for name in ("years", "sources"):
        pq.write_table(_renumbered(rows[name], new_id), outputs[name], compression="zstd")  # a few rows: small
    later = games_path is None
    if not later:
        write_examples(segments, sorted_path, games_path, outputs["examples"], examples)
    if "transpositions" in outputs:
        check_stop()
        index = trie.positions() if trie.positions is not None else None
        pq.write_table(transpositions_table(arrays, keep, new_id, index), outputs["transpositions"], compression="zstd")
    kept_depth = arrays["depth"][keep]
    new_parent = numpy(pruned.column("parent"))
    is_leaf = np.ones(len(new_parent), dtype=bool)
    is_leaf[new_parent[new_parent >= 0]] = False
    is_leaf &= kept_depth > 0
    figures = {
        "threshold": threshold,
        "nodes_after_prune": int(len(new_parent)),
        "leaves": int(is_leaf.sum()),
        "deepest": int(kept_depth[is_leaf].max()) if is_leaf.any() else 0,
    }
    if on_games:  # the evidence threshold: a node's games, not its sequences
        figures["threshold_on"] = "games"
    if "kind" in pruned.column_names:  # where joseki end, and the fuseki shapes named apart
        code = np.array([KINDS.index(k) for k in pruned.column("kind").to_pylist()], np.int8)
        parent_row = np.where(new_parent < 0, 0, new_parent)  # new ids are rows
        figures["joseki"] = int(ends(parent_row, kept_depth, _keys(pruned), code, min_length).sum())
        figures["follow_ups"] = int((is_leaf & (code == FOLLOW_UP)).sum())
        figures["fuseki_shapes"] = int((is_leaf & (code >= APPROACH)).sum())
    if later:
        figures["segments"] = segments
    return figures


def write_examples(segments: Segments, sorted_path: Path, games_path: Path, path: Path, per_node: int) -> None:
    """node_examples.parquet of the kept nodes' ``segments``."""
    pq.write_table(examples_table(segments, sorted_path, games_path, per_node), path, compression="zstd")


def handicap_counts(segments: Segments, opened: np.ndarray, nodes: int) -> np.ndarray | None:
    """Per kept node, its sequences that a handicap stone opened (``opened``:
    their rows of sorted_sequences.parquet, ascending); None where no
    sequence did, so an even games' tree is as it was."""
    if not len(opened):
        return None
    first = np.asarray(segments.first, np.int64)
    within = np.searchsorted(opened, first + np.asarray(segments.count, np.int64)) - np.searchsorted(opened, first)
    return np.bincount(np.asarray(segments.node, np.int64), weights=within, minlength=nodes).astype(np.int64)


TRANSPOSITIONS = 5  # the other orders named at a node, the most played first


def transpositions_table(
    arrays: dict, keep: np.ndarray, new_id: np.ndarray, index: dict[str, np.ndarray] | None = None
) -> pa.Table:
    """node_transpositions.parquet: for each kept node, the other stored
    nodes on its position (``positions.sorted_alike``: other move orders),
    the ``TRANSPOSITIONS`` most played, each with its moves as SGF points
    ("--" a tenuki) turned to the node's own orientation, its games and
    sequences, and its node in the pruned tree (``at``; -1: pruned).  The
    positions are the build's index where it is given (``build.position_index``
    of the same nodes), else found again."""
    from joseki_miner.method.positions import position_keys, position_order, sorted_alike

    depth, key, games = arrays["depth"], np.asarray(arrays["key"], np.int64), arrays["games"]
    node = np.asarray(arrays["node"], np.int64)
    parent = phase2.parent_rows(node, arrays["parent"])
    if index is None:
        hi, lo, transform = position_keys(np.where(depth > 0, parent, -1), depth, key)
        order = position_order(hi, lo)
        row, hi, lo, transform = order, hi[order], lo[order], transform[order]
    else:
        row = _indexed(node, index)
        hi, lo, transform = index["hi"], index["lo"], index["transform"]
    at = np.flatnonzero((keep & (depth > 0))[row])  # the kept nodes' places in the index
    at = at[np.argsort(row[at], kind="stable")]  # in the trie's order
    found = sorted_alike(hi, lo, at)
    rows: dict[str, list] = {name: [] for name in TRANSPOSITIONS_SCHEMA.names}
    for a in at.tolist():
        if a not in found:
            continue
        r = int(row[a])
        others = sorted(
            zip(row[found[a]].tolist(), transform[found[a]].tolist()), key=lambda o: (-int(games[o[0]]), o[0])
        )
        for o, turned in others[:TRANSPOSITIONS]:
            line, n = [], o
            while depth[n] > 0:
                line.append(int(key[n]))
                n = parent[n]
            rows["moves"].append(_moves(line[::-1], int(transform[a]), int(turned)))
            rows["node"].append(int(new_id[r]))
            rows["games"].append(int(games[o]))
            rows["count"].append(int(arrays["count"][o]))
            rows["at"].append(int(new_id[o]))
    return _transpositions(rows)


def _moves(line: list[int], own: int, turned: int) -> str:
    """Another order's moves (trie keys from the root, on its position's
    transform ``turned``) as SGF points in the node's own orientation
    (its transform ``own``); "--" a tenuki."""
    from joseki_miner.method.symmetry import POINT_MAP, inverse

    back, turn = POINT_MAP[inverse(own)], POINT_MAP[turned]
    return "".join("--" if k == TENUKI else to_sgf(back[turn[k]]) for k in line)


def _transpositions(rows: dict[str, list]) -> pa.Table:
    return pa.Table.from_arrays(
        [
            column(np.array(rows["node"], np.int64)),
            strings(rows["moves"]),
            *(column(np.array(rows[name], np.int64)) for name in ("games", "count", "at")),
        ],
        schema=TRANSPOSITIONS_SCHEMA,
    )


def _indexed(node: np.ndarray, index: dict[str, np.ndarray]) -> np.ndarray:
    """The trie's row (``node``: its nodes by row) of each row of the
    position index, which must name each of them once."""
    n, wrong = len(node), "the position index does not hold the trie's nodes: run `joseki build` again"
    named = np.asarray(index["node"], np.int64)
    if len(named) != n:
        raise UsageError(wrong)
    if n and (named.min() < node.min() or named.max() > node.max()):
        raise UsageError(wrong)
    row = phase2.rows_of(node, named)
    seen = np.zeros(n, bool)
    seen[row] = True
    if not seen.all() or (row is not named and not np.array_equal(node[row], named)):  # not numbered 0 to n - 1
        raise UsageError(wrong)
    return row


def read_index(path: Path) -> dict[str, np.ndarray]:
    """trie_positions.parquet's columns (``build.position_index``)."""
    if not path.exists():
        raise UsageError(f"{path} is missing: run `joseki build` again")
    table = read_columns(path)
    index = {name: numpy(table.column(name)) for name in ("hi", "lo", "node", "transform")}
    if path.is_dir():  # a part a shard, each sorted: a position's nodes, in node order, are in several
        from joseki_miner.method.positions import position_order

        order = position_order(index["hi"], index["lo"])
        index = {name: a[order] for name, a in index.items()}
    return index


def _renumbered(table: pa.Table, new_id: np.ndarray) -> pa.Table:
    """The rows of kept nodes, with their new numbers (the order holds: new
    numbers keep the old ones' order)."""
    node = numpy(table.column("node"))
    mine = new_id[node] >= 0
    out = table.filter(column(mine))
    return out.set_column(0, "node", column(new_id[node[mine]]))


def _keys(table: pa.Table) -> np.ndarray:
    """The trie keys of a node table's moves ("": the root's and a tenuki's)."""
    moves = table.column("move").combine_chunks().dictionary_encode()
    keys = np.array([from_sgf(m) if m else TENUKI for m in moves.dictionary.to_pylist()], np.int64)
    return keys[numpy(moves.indices)] if len(moves) else np.zeros(0, np.int64)


DAY_END = 10**8  # past every date as YYYYMMDD


def recency(day: np.ndarray, game: np.ndarray, games: int) -> np.ndarray:
    """The rank among a node's example games of games ``game`` (of
    ``games`` in all) played on ``day`` (YYYYMMDD; 0 unknown): the most
    recent first, ties by game number, games without a date last; a key
    each game has of its own date and number, so a shard ranks its games
    as the whole would."""
    return (DAY_END - np.asarray(day, np.int64)) * max(games, 1) + np.asarray(game, np.int64)


def examples_table(segments: Segments, sorted_path: Path, games_path: Path, per_node: int) -> pa.Table:
    """Up to ``per_node`` example games of each node (its sequences: the
    ``count`` rows of sorted_sequences.parquet from ``first`` of each of its
    ``segments``, with their lines' first key), the most recent first, ties
    by game number, each with its sequence that started first through the
    node (its move number and corner)."""
    order = read_columns(sorted_path, ["game", "sequence", "start", "orientation"])
    game = numpy(order.column("game"))
    day = numpy(read_columns(games_path, ["day"]).column("day"))
    node_of, picks, segment = phase2.top_games(
        np.asarray(segments.first, np.int64),
        np.asarray(segments.count, np.int64),
        recency(day[game], game, len(day)),
        numpy(order.column("sequence")),
        per_node,
        np.asarray(segments.node, np.int64),
    )
    start, orientation = numpy(order.column("start"))[picks], numpy(order.column("orientation"))[picks]
    return _examples(node_of, game[picks], start, orientation, np.asarray(segments.opening)[segment], games_path)


EXAMPLE_PICKS = ("node", "rank", "sequence", "game", "start", "orientation", "segment")


def shard_examples(rows: pa.Table, offset: int, rank: np.ndarray, segments: dict, per_node: int) -> dict:
    """A shard's candidates for ``examples_table``, of its rows of
    sorted_sequences.parquet (``rows``, from row ``offset``; ``rank``:
    each row's game's ``recency``): each kept node's ``per_node`` games of
    smallest rank among its sequences in the shard, each at its
    earliest-started sequence there (``EXAMPLE_PICKS``).  A game among a
    node's ``per_node`` first is among them in every shard that holds it:
    ``examples_of_shards`` finds the whole's picks among the shards'."""
    first = np.asarray(segments["first"], np.int64)
    lo = np.maximum(first, offset)
    hi = np.minimum(first + np.asarray(segments["count"], np.int64), offset + rows.num_rows)
    inside, rank = np.flatnonzero(hi > lo), np.asarray(rank, np.int64)
    node_of, picks, at = phase2.top_games(
        lo[inside] - offset,
        (hi - lo)[inside],
        rank,
        numpy(rows.column("sequence")),
        per_node,
        np.asarray(segments["node"], np.int64)[inside],
    )
    found = {name: numpy(rows.column(name))[picks] for name in ("sequence", "game", "start", "orientation")}
    return {**found, "node": node_of, "rank": rank[picks], "segment": inside[at]}


def best_examples(found: list[dict], per_node: int) -> dict[str, np.ndarray]:
    """The picks of the shards' candidates (``shard_examples`` of each), as
    ``examples_table`` picks them of the whole: a node's game once, at its
    sequence that started first, then its ``per_node`` games of smallest
    rank; by node, the smallest rank first."""
    a = {name: np.concatenate([f[name] for f in found]) if found else np.zeros(0, np.int64) for name in EXAMPLE_PICKS}
    order = np.lexsort((a["sequence"], a["game"], a["node"]))
    node, game = a["node"][order], a["game"][order]
    once = order[np.r_[True, (np.diff(node) != 0) | (np.diff(game) != 0)]] if len(order) else order
    ranked = once[np.lexsort((a["rank"][once], a["node"][once]))]
    return {name: a[name][ranked[numbered(a["node"][ranked]) < per_node]] for name in EXAMPLE_PICKS}


def examples_of_shards(
    found: list[dict], opening: np.ndarray, games_path: Path, per_node: int, part_rows: list[int] | None = None
) -> pa.Table:
    """``examples_table`` of the shards' candidates (``best_examples``;
    ``opening``: each segment's first key; ``part_rows``: ``rows_at``'s)."""
    picked = best_examples(found, per_node)
    openings = np.asarray(opening)[picked["segment"]]
    picks = (picked["node"], picked["game"], picked["start"], picked["orientation"], openings)
    return _examples(*picks, games_path, part_rows)


def _examples(
    node_of: np.ndarray,
    games: np.ndarray,
    start: np.ndarray,
    orientation: np.ndarray,
    first_key,
    games_path: Path,
    part_rows: list[int] | None = None,
) -> pa.Table:
    """node_examples.parquet of the picks (by node, the most recent first):
    each game's information from games.parquet, its sequence's move and
    corner (``first_key``: the first key of the pick's line)."""
    info = rows_at(games_path, games, ["source", "location", "collection", *EXAMPLE_INFO], part_rows)
    columns = [
        column(np.asarray(node_of, np.int64), np.int64),
        column(numbered(np.asarray(node_of)) + 1, np.int16),
        column(np.asarray(games, np.int64)),
        info.column("collection"),
        info.column("source"),
        info.column("location"),
    ]
    columns += [info.column(name) for name in EXAMPLE_INFO]
    columns += [
        column(np.asarray(start).astype(np.int32), np.int32),
        strings([corner_of(o, k) for o, k in zip(np.asarray(orientation).tolist(), np.asarray(first_key).tolist())]),
    ]
    return pa.Table.from_arrays(
        [c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c for c in columns], schema=EXAMPLES_SCHEMA
    )


def run(context: Context) -> dict:
    """The prune stage: phase 2 on the trie (the one just counted, while
    trie.parquet is still being written, or trie.parquet)."""
    catalog, settings = context.catalog, context.settings
    floor = context.trie.floor if context.trie is not None else context.found("build").get("floor", 1)
    pruning = pruning_for(settings, context.found("ingest")["games_accepted"], floor, context.options.progress)
    outputs = prune_outputs(catalog, settings)
    if context.trie is not None:
        counted = context.trie
        trie = TrieArrays(dict(counted.arrays), list(counted.names), positions=counted.positions, kinds=counted.kinds)
        return prune_arrays(trie, PruneFiles(staged(catalog.sorted_sequences), catalog.games, outputs), pruning)
    files = PruneFiles(catalog.sorted_sequences, catalog.games, outputs)
    return prune_files(catalog.trie, catalog.trie_years, catalog.trie_sources, files, pruning)


def pruning_for(config: PruneSettings | Config, games: int, floor: int, progress: bool = False) -> Pruning:
    """What phase 2 keeps of a trie of ``games`` accepted, stored from
    ``floor`` sequences a node (a run whose floor drops nodes the
    threshold would keep is asked to build again)."""
    threshold = threshold_for(games, config)
    if floor > max(threshold, config.prune_min_games):
        raise UsageError(f"a threshold of {threshold} needs every trie node: run `joseki build` again first")
    return Pruning(
        threshold,
        config.min_length,
        config.examples,
        prune_rules(config, games),
        kind_rules(config),
        config.prune_merge_orders,
        progress,
    )
