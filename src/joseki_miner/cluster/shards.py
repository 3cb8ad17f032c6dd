"""The dask engine's build: the count split over tasks by ranges of deep
codes (``fasttrie.deep_codes``), and the trie they counted kept as shards.

The driver plans the ranges from the openings sampled (``prefix_counts``,
``sampled``); each partition's sequences are kept in trie order
(``write_run``), so a count reads its range of every partition sorted
already; each range is counted apart (``count_subtrees``), as
``stages.build.run`` counts them all; the plan of the join
(``plan_shards``) numbers the counts' nodes as the whole trie's, and each
shard writes its part of the trie's files (``write_shard``) and hands
prune the nodes it may keep (``keep_candidates``) and its nodes on the
positions prune kept (``transposed_of_shard``).  Run on the workers: it
loads the compiled engine."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from joseki_miner.fast import sortedrun
from joseki_miner.fast.arrow import numpy
from joseki_miner.fast.fasttrie import PAYLOAD, classes_of, deep_path, gather, prefixes, sort_sequences, trie_order
from joseki_miner.fast.joining import (
    Counted,
    JoinPlan,
    join_plan,
    kept_for_plan,
    place,
    place_rows,
    planned_from,
    shard_candidates,
    shard_codes,
    shard_replies,
    shard_transposed,
)
from joseki_miner.fast.parquet import TableSink, string_bytes
from joseki_miner.fast.sorting import SORT_MEMORY, SortedRuns
from joseki_miner.fast.tables import SORTED_FILE, SORTED_ROWS, SORTED_SCHEMA
from joseki_miner.method.kinds import KindRules
from joseki_miner.method.points import DEEP_SHIFT, PREFIX_KEYS
from joseki_miner.method.prune import Cut
from joseki_miner.runs.catalog import part_name
from joseki_miner.runs.stop import check as check_stop
from joseki_miner.stages.build import (
    SEQUENCE_COLUMNS,
    decode_keys,
    node_positions,
    payload_of,
    payload_rows,
    sequence_fields,
    sequence_moves,
    write,
)
from joseki_miner.stages.opened import opened_among, save_opened
from joseki_miner.stages.saved import flattened, load_arrays, nested, read_saved, save_arrays

# The openings a partition's sequences (or the stage files') are described
# by, at most: the build's ranges are planned from them, and the driver
# that plans holds every partition's.
OPENINGS = 256


def prefix_counts(source, most: int | None = OPENINGS) -> dict[int, int]:
    """The openings (``fasttrie.deep_codes``: their first keys) of the sequences of
    ``source`` (``build.Stored``, ``joins.Joined``), as ``sampled`` gives
    them, a batch of 500,000 sequences at a time (``most`` a batch; None:
    every opening, with its sequences)."""
    counts: Counter[int] = Counter()
    for batch in source.sequences(["moves"], 500_000):
        offsets, data = string_bytes(batch.column("moves"))
        offsets, keys = offsets // 2, decode_keys(data)
        code, deeper = prefixes(offsets, keys), prefixes(offsets, keys, PREFIX_KEYS)
        order = np.lexsort((deeper, code))
        counts.update(sampled(code[order], most, deeper[order]))
    return dict(counts)


def sampled(codes: np.ndarray, most: int | None = OPENINGS, deeper: np.ndarray | None = None) -> dict[int, int]:
    """Sorted openings as at most ``most`` of them (evenly spaced), each
    with the sequences from it to the next one kept: enough to cut them
    into ranges of about as many sequences (None: each with its own).
    Given ``deeper`` (the next keys' ``prefixes``, sorted with them),
    their deep codes (``fasttrie.deep_codes``): a crowded opening is then
    cut below its first keys."""
    step = 1 if most is None else max(1, -(-len(codes) // most))
    at = np.arange(0, len(codes), step)
    picked = codes[at].tolist()
    if deeper is not None:
        picked = [a << DEEP_SHIFT | b for a, b in zip(picked, deeper[at].tolist())]
    counts: Counter[int] = Counter()
    for code, n in zip(picked, np.diff(np.r_[at, len(codes)]).tolist()):
        counts[code] += n
    return dict(counts)


# A partition's sequences in trie order (the dask engine), so that the count
# of a range of deep codes reads that range alone, sorted already, and merges
# it with the other partitions' (``sortedrun``: a file a count slices in
# place); keys as 2-byte numbers, and the scores, not the classes (the
# neutral band is the build's parameter, not the partition's); each
# sequence's deep code too (its first keys' ``prefixes``, "code", and the next
# keys', "deep"), where a count's range starts or ends: ranked there without
# reading the keys again
GAME_FIELDS = ("winner", "year", "collection", "day")  # of its game, a sequence each: a count reads no games


def _concat(parts: list[tuple]) -> tuple:
    """Parts (offsets from 0, keys, scores, fields) as one, in order."""
    if len(parts) == 1:
        return parts[0]
    bases = np.cumsum([0] + [len(p[1]) for p in parts[:-1]])
    offsets = np.concatenate(
        [np.zeros(1, np.int64)] + [np.asarray(p[0][1:], np.int64) + base for p, base in zip(parts, bases)]
    )
    return (
        offsets,
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
        {name: np.concatenate([p[3][name] for p in parts]) for name in parts[0][3]},
    )


def write_run(sequences_path: Path, run_path: Path, games: tuple[np.ndarray, ...]) -> dict[int, int]:
    """The sequences of a partition's sequences.parquet, in trie order, into
    ``run_path`` (``sortedrun``), each with its game's ``games`` (winner,
    year, collection and day by the partition's game number); its openings
    (``sampled``, deep codes).  It holds the partition's sequences at once:
    its memory is the partition's."""
    parts = [
        (*sequence_moves(batch), sequence_fields(batch))
        for batch in pq.ParquetFile(sequences_path).iter_batches(1 << 17, columns=SEQUENCE_COLUMNS)
    ]
    if not parts:
        empty = {name: np.zeros(0, dtype) for name, dtype in sortedrun.COLUMNS.items()}
        sortedrun.write(run_path, np.zeros(1, np.int64), np.zeros(0, np.int16), np.zeros(0, np.uint64), empty)
        return {}
    offsets, keys, scores, a = _concat(parts)
    del parts
    a.update((name, values[a["game"]]) for name, values in zip(GAME_FIELDS, games))
    payload = np.zeros(len(offsets) - 1, PAYLOAD)
    payload["game"], payload["sequence"] = a["game"], a["sequence"]
    order = trie_order(offsets, keys, payload)
    offsets, keys, scores = gather(order, offsets, keys, np.ascontiguousarray(scores).view("<u8").ravel())
    code, deep = prefixes(offsets, keys), prefixes(offsets, keys, PREFIX_KEYS)
    columns = {name: a[name][order] for name in sortedrun.FIELDS}
    sortedrun.write(run_path, offsets, keys, scores, {**columns, "code": code, "deep": deep})
    return sampled(code, deeper=deep)


def read_run(run_path: Path, key_range: tuple[int, int]) -> tuple | None:
    """The sequences of a run (``write_run``) whose deep codes are in
    ``key_range``, in trie order: offsets, keys, scores, fields; None if
    there are none."""
    return sortedrun.read(run_path, key_range)


def count_subtrees(
    key_range: tuple[int, int], source, folder: Path, *, neutral: int, floor: int, budget: int = SORT_MEMORY << 20
) -> Counted:
    """Count the sequences of ``source`` (``build.Stored``, ``joins.Joined``)
    whose deep codes are in ``key_range`` (lo, hi) as ``build.run`` counts them
    all, into ``folder`` (made anew): the node arrays (``StreamCounter.finish``,
    the nodes on the paths of its ends kept: the ranges beside it may hold
    more of their sequences),
    with the range, the sequences in trie order and their games' days
    (``days_of``).
    Its memory is its sequences' (``budget``, then spilled), and 12 bytes
    a sequence for their games' days."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    collections, games = source.tallies()
    runs = SortedRuns(folder / "runs", budget)
    played: list[tuple[np.ndarray, np.ndarray]] = []
    try:
        for offsets, keys, scores, a, ordered in source.parts(key_range):
            if len(offsets) > 1:
                payload = payload_of(a, *games) if games else payload_rows(a, a["winner"], a["year"], a["source"])
                part = (offsets, keys, classes_of(scores, neutral), payload)
                runs.add(*(part if ordered else sort_sequences(*part)))
                played.append((a["game"], a["day"]))
        arrays, nodes = runs.count(
            floor,
            collections.years(),
            max(1, len(collections.names)),
            sink=_ArrowSink(folder / "sorted.arrow"),
            edges=(deep_path(key_range[0]), deep_path(key_range[1])),
        )
    finally:
        runs.close()
    arrays["positions"] = sorted_positions(arrays)  # here, in parallel: its shard keeps its own nodes' rows
    edges = kept_for_plan(arrays)
    saved = {
        "key_range": np.array([str(k) for k in key_range]),  # deep codes: past int64
        "floor": np.array(floor),
        **flattened(arrays),
    }
    save_arrays(folder / "trie", saved, together=FIGURES)
    save_arrays(folder / "days", days_of(played))
    return Counted(folder, (int(key_range[0]), int(key_range[1])), floor, nodes, list(collections.names), edges)


def days_of(played: list[tuple[np.ndarray, np.ndarray]]) -> dict[str, np.ndarray]:
    """The games of a count's sequences, each once and in order, with the
    day it was played (``played``: per part, each sequence's game and
    day): what its shard's search ranks example games by, reading no
    games."""
    game = np.concatenate([g for g, _ in played]) if played else np.zeros(0, np.int64)
    game, first = np.unique(game, return_index=True)
    day = np.concatenate([d for _, d in played])[first] if played else np.zeros(0, np.int32)
    return {"game": game.astype(np.int64), "day": day.astype(np.int32)}


FIGURES = ("key_range", "floor")  # a count's, beside its arrays: what its shard checks


def _count_of(folder: Path, floor: int, key_range: tuple[int, int], **load) -> dict:
    """A count's arrays (``nested``), checked to be of ``key_range`` and ``floor``."""
    saved = load_arrays(folder / "trie", **load)
    _checked(folder, tuple(int(k) for k in saved.pop("key_range")), int(saved.pop("floor")), key_range, floor)
    return nested(saved)


def _checked(folder: Path, counted: tuple[int, int], kept: int, key_range: tuple[int, int] | None, floor: int) -> None:
    """That the count in ``folder`` (of the range ``counted``, its nodes
    counted ``kept`` times or more) is of ``key_range`` (None: any) and ``floor``."""
    if key_range is not None and counted != tuple(key_range):
        raise RuntimeError(f"{folder} counted the range {counted}, not {tuple(key_range)}")
    if kept != floor:  # its nodes counted fewer times than the floor were dropped
        raise RuntimeError(f"{folder} kept the nodes counted {kept} times or more, not {floor}")


@dataclass(frozen=True)
class Shards:
    """The trie as shards, a count's node range each (``joining.place``):
    the plan of the join, each count's side replies of its shared nodes
    (``joining.shard_replies``), the collections' names and the floor."""

    plan: JoinPlan
    replies: dict[int, dict[int, int]]
    names: list[str]
    floor: int
    key_ranges: dict[int, tuple[int, int]]  # each count's, by its number: its folder is checked to hold it

    def figures(self) -> dict:
        """The build's figures, as ``build.write`` gives them for the joined trie."""
        return {"nodes_before_prune": self.plan.nodes, "nodes_stored": self.plan.stored, "floor": self.floor}

    def of(self, j: int) -> Shards:
        """Count ``j``'s shard alone (``JoinPlan.only``): what its tasks read."""
        return Shards(self.plan.only(j), {j: self.replies[j]}, self.names, self.floor, {j: self.key_ranges[j]})


def plan_shards(counted: list[Counted], *, floor: int, key_ranges: list[tuple[int, int]] | None = None) -> Shards:
    """The shards of the subtrees counted apart (``count_subtrees``, in key
    order), planned from what each count kept of its edges alone
    (``Counted.edges``)."""
    counts, replies, names = [], [], []
    for i, count in enumerate(counted):
        _checked(count.folder, count.key_range, count.floor, key_ranges[i] if key_ranges is not None else None, floor)
        edges, replied = planned_from(count.edges)
        counts.append((edges, count.nodes))
        replies.append(replied)
        names = count.names
    plan = join_plan(counts, floor)
    ranges = {i: count.key_range for i, count in enumerate(counted)}
    return Shards(plan, dict(enumerate(shard_replies(counts, replies, plan))), names, floor, ranges)


def shard_positions(positions: dict[str, np.ndarray], plan: JoinPlan, j: int, rows: int) -> dict[str, np.ndarray]:
    """Shard ``j``'s ``build.position_index``, of the count's (``sorted_positions``,
    of its ``rows`` rows): its own nodes' rows, sorted alike.  The shards'
    laid end to end hold a position's nodes in node order: a stable sort
    by position (``positions.position_order``) gives the joined trie's."""
    lo, hi = plan.shard(j)
    node = plan.parts[j].numbers(rows)[positions["row"]]
    mine = (node >= lo) & (node < hi)
    return {
        "hi": positions["hi"][mine],
        "lo": positions["lo"][mine],
        "node": node[mine],
        "transform": positions["transform"][mine],
    }


def _shard(
    folder: Path, shards: Shards, j: int, kinds: KindRules | None, mapped: bool = False
) -> tuple[dict, dict, np.ndarray | None]:
    """Shard ``j``'s count in ``folder`` (its arrays, ``mapped`` or read,
    and its position index), with its nodes' kinds in the joined trie."""
    arrays = _count_of(folder, shards.floor, shards.key_ranges[j], mapped=mapped)
    positions = arrays.pop("positions")
    codes = shard_codes(arrays, shards.plan, j, kinds, shards.replies[j]) if kinds is not None else None
    return arrays, positions, codes


def write_shard(folder: Path, shards: Shards, j: int, paths: tuple[Path, ...], kinds: KindRules | None) -> int:
    """Shard ``j`` of the trie, of the count in ``folder``: its part of
    trie.parquet, trie_years.parquet, trie_sources.parquet,
    trie_positions.parquet and sorted_sequences.parquet (``paths``: the
    five folders of parts), the parts' rows laid end to end the files
    ``build.write`` and ``join_sorted`` give the joined trie (each part of the
    positions sorted alike, of its nodes alone).  Written under temporary
    names, renamed once whole unless the run has stopped; gives the
    shard's nodes."""
    arrays, positions, codes = _shard(folder, shards, j, kinds)
    placed = place(arrays, shards.plan, j)
    index = shard_positions(positions, shards.plan, j, len(arrays["node"]))
    final = [Path(path) / part_name(j) for path in paths]
    writing = [path.with_name(path.name + ".tmp") for path in final]
    write(tuple(writing[:4]), placed, 0, shards.floor, shards.names, kinds, index, codes)
    join_sorted([folder], writing[4])
    check_stop()  # a task of a stopped run puts no part in the next run's folder
    for a, b in zip(writing, final):
        os.replace(a, b)
    return len(placed["node"])


def keep_candidates(folder: Path, shards: Shards, j: int, kinds: KindRules | None, cut: Cut) -> dict:
    """The nodes of shard ``j`` (of the count in ``folder``) phase 2 may
    keep (``cut``), for prune (``prune.prune_shards``): a few dozen nodes,
    apart from its files (``write_shard``), so that prune need not wait
    for them.  Its sequences that a handicap stone opened
    (``prune.handicap_counts``), as many as its handicap games' corners,
    are saved in ``folder`` where it has any ("opened_in" names it)."""
    arrays, positions, codes = _shard(folder, shards, j, kinds, mapped=True)  # its candidates' rows placed alone
    found = _candidates(arrays, positions, codes, shards, j, cut)
    with pa.ipc.open_file(pa.memory_map(str(folder / "sorted.arrow"))) as part:
        opened = opened_among(numpy(part.read_all().column("start")), shards.plan.parts[j].ranked)
    save_opened(folder, opened)
    found["opened_in"] = np.array([str(folder)] if len(opened) else [], str)
    return nested(dict(sorted(flattened(found).items())))  # by name, as a saved folder's (``read_saved``)


def _candidates(arrays: dict, positions: dict, codes, shards: Shards, j: int, cut: Cut) -> dict:
    """What prune reads of a shard: the node arrays of the nodes it may
    keep (``joining.shard_candidates``), their games by year and by
    collection, kinds, tenuki children's counts and positions; the tenuki
    children's counts of the shared nodes others own."""
    found = shard_candidates(arrays, shards.plan, j, cut)
    rows = found["rows"]
    out = place_rows(arrays, shards.plan, j, rows)
    if codes is not None:
        out["kind"] = codes[rows]
    out["tenuki"] = found["tenuki"]
    lo, hi = shards.plan.shard(j)
    number = shards.plan.parts[j].numbers(len(arrays["node"]))
    picked = np.flatnonzero((number >= lo) & (number < hi))[rows]
    row = np.asarray(positions["row"])  # each row once (``sorted_positions``)
    where = np.flatnonzero(np.isin(row, picked))
    where = where[np.argsort(row[where], kind="stable")]  # each picked row's, in the order of the rows
    if len(where) != len(picked):
        raise RuntimeError(f"{len(picked)} candidates of shard {j} but {len(where)} of their positions")
    out["position"] = {name: np.asarray(positions[name][where]) for name in ("hi", "lo", "transform")}
    out["shared"] = {"node": found["shared"], "tenuki": found["shared_tenuki"]}
    return out


def transposed_of_shard(folder: Path, shards: Shards, j: int, wanted: Path) -> dict[str, np.ndarray]:
    """Shard ``j``'s nodes on the positions of the nodes prune kept
    (``wanted``: their hi and lo, ``prune.prune_shards``), of its count in
    ``folder``, for ``prune.write_transpositions`` (``joining.shard_transposed``)."""
    arrays = _count_of(folder, shards.floor, shards.key_ranges[j], without=("years", "sources"), mapped=True)
    return shard_transposed(arrays, shards.plan, j, arrays.pop("positions"), read_saved(wanted))


def join_sorted(folders: list[Path], sorted_path: Path) -> None:
    """sorted_sequences.parquet as ``build.run`` writes it, from the subtrees
    counted apart (``folders`` in key order)."""
    sink = TableSink(sorted_path, SORTED_SCHEMA, SORTED_ROWS, **SORTED_FILE)
    try:
        for folder in folders:
            with pa.ipc.open_file(pa.memory_map(str(folder / "sorted.arrow"))) as part:
                for i in range(part.num_record_batches):
                    check_stop()
                    sink.add(pa.Table.from_batches([part.get_batch(i)]))
        sink.close()
    except BaseException:
        sink.abort()
        raise


class _ArrowSink:
    """A subtree's sequences in trie order, as an Arrow file (not encoded:
    the join writes sorted_sequences.parquet of them all)."""

    def __init__(self, path: Path) -> None:
        self.writer = pa.ipc.new_file(str(path), SORTED_SCHEMA)

    def add(self, table) -> None:
        self.writer.write_table(table() if callable(table) else table)

    def close(self) -> None:
        self.writer.close()

    def abort(self) -> None:
        try:
            self.writer.close()
        except Exception:  # noqa: BLE001 - the run's own error is the one to report
            pass


def sorted_positions(nodes: dict) -> dict[str, np.ndarray]:
    """A count's ``build.position_index``, its rows ("row") for nodes."""
    from joseki_miner.method.positions import position_order

    hi, lo, transform = node_positions(nodes)
    order = position_order(hi, lo)
    return {"hi": hi[order], "lo": lo[order], "row": order, "transform": transform[order]}
