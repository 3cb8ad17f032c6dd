"""Build (stage 3): sequences.parquet (and
games.parquet) -> trie.parquet, trie_years.parquet, trie_sources.parquet,
sorted_sequences.parquet.

Counts every normalized sequence into the trie, with the influence class of
each move per direction (section 8), and per node its games, wins in the
tree's colours, and games by year and by collection.  The sequences are
also written in trie order, so a node's games are a range of them.  The
``fast`` engine (compiled trie) and the ``reference`` engine (plain Python
trie) write identical files."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from joseki_miner.runs.context import Context
from joseki_miner.runs.store import staged
from joseki_miner.stages.opened import opened_among, save_opened
from joseki_miner.stages.params import kind_rules
from joseki_miner.stages.saved import flattened, load_arrays, nested, read_saved, save_arrays
from joseki_miner.fast import sortedrun
from joseki_miner.fast.sorting import SORT_MEMORY, SortedRuns
from joseki_miner.fast.arrow import booleans, numpy
from joseki_miner.runs.catalog import part_name, positions_of
from joseki_miner.fast.joining import (
    Counted,
    JoinPlan,
    kept_for_plan,
    join_plan,
    place,
    place_rows,
    planned_from,
    shard_codes,
    shard_candidates,
    shard_replies,
    shard_transposed,
)
from joseki_miner.fast.fasttrie import (
    PAYLOAD,
    classes_of,
    gather,
    deep_path,
    in_deep_range,
    prefixes,
    sort_sequences,
    trie_order,
)
from joseki_miner.method.influence import classify
from joseki_miner.method.kinds import KindRules, of_arrays
from joseki_miner.method.prune import Cut
from joseki_miner.method.points import DEEP_SHIFT, PREFIX_KEYS, TENUKI, sgf_bytes_to_points
from joseki_miner.runs.stop import check as check_stop
from joseki_miner.fast.tables import (
    POSITIONS_FILE,
    ROWS_FILE,
    SORTED_FILE,
    SORTED_ROWS,
    SORTED_SCHEMA,
    TRIE_FILE,
    node_table,
    positions_table,
    sorted_table,
    sources_table,
    years_table,
)
from joseki_miner.method.trie import GameStats, Trie, node_arrays

from joseki_miner.fast.parquet import TableSink, count_rows, iter_batches, read_columns, string_bytes
from joseki_miner.runs.progress import bar as progress_bar

# rows a trie.parquet row group: small enough that a lookup reads the few
# groups that hold a node and its children, not the whole trie
NODE_ROWS = 1 << 16


def decode_keys(data: np.ndarray) -> np.ndarray:
    """Trie keys of 2-byte SGF points ("--" is a tenuki)."""
    data = np.asarray(data, dtype=np.uint8)
    keys = sgf_bytes_to_points(data.tobytes()) if len(data) else np.zeros(0, dtype=np.int16)
    keys[data[0::2] == ord("-")] = TENUKI
    return keys


def _columns(batch):
    offsets, data = string_bytes(batch.column("moves"))
    _, raw = string_bytes(batch.column("scores"))
    flat = raw.view("<i2").reshape(-1, 4)
    return offsets // 2, decode_keys(data), flat


class Collections:
    """The collections games come from, numbered as first met (so the
    numbers follow the games' order, whichever engine reads them), and the
    range of their years: what the counter needs to know of the games."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.first_year = self.last_year = 0

    @classmethod
    def of(cls, names: list, years: tuple[int, int]) -> Collections:
        """Collections numbered already (``names`` in order), of games from
        year to year (0, 0: none known)."""
        collections = cls()
        collections.index = {name: i for i, name in enumerate(names)}
        collections.first_year, collections.last_year = years
        return collections

    def numbers(self, names: pa.Array | pa.ChunkedArray, year: np.ndarray) -> np.ndarray:
        """The collections' numbers of games named ``names`` (of ``year``),
        numbered as they first come."""
        known = year[year > 0]
        if len(known):
            low, high = int(known.min()), int(known.max())
            self.first_year = min(self.first_year or low, low)
            self.last_year = max(self.last_year, high)
        code, values = first_met(names)
        number = np.array([self.index.setdefault(n, len(self.index)) for n in values], np.int16)
        return number[code]

    @property
    def names(self) -> list[str]:
        return list(self.index)

    def years(self) -> tuple[int, int]:
        """The first year and the number of years the counter counts."""
        return (self.first_year, self.last_year - self.first_year + 1) if self.first_year else (0, 0)


def first_met(names: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, list]:
    """Each of ``names``' number among its values in the order they first
    come (a null one of them too), and those values."""
    names = names.combine_chunks() if isinstance(names, pa.ChunkedArray) else names
    encoded = pc.dictionary_encode(names, null_encoding="encode")
    code = numpy(encoded.indices).astype(np.int64) if len(names) else np.zeros(0, np.int64)
    return code, encoded.dictionary.to_pylist()


def game_columns(games: pa.Table | pa.RecordBatch, collections: Collections) -> tuple[np.ndarray, ...]:
    """Winner, year and collection number of rows of games.parquet."""
    year = numpy(games.column("year"))
    return numpy(games.column("winner")), year, collections.numbers(games.column("collection"), year)


def payload_of(a: dict, winner: np.ndarray, year: np.ndarray, source: np.ndarray, first_game: int = 0) -> np.ndarray:
    """The ``PAYLOAD`` rows of sequences (arrays as sequences.parquet holds
    them: game, sequence, start, transform, swapped, shared), their games'
    winner, year and collection number given from game ``first_game`` on."""
    row = np.asarray(a["game"], np.int64) - first_game
    return payload_rows(a, np.asarray(winner, np.int8)[row], np.asarray(year)[row], np.asarray(source)[row])


def payload_rows(a: dict, winner: np.ndarray, year: np.ndarray, source: np.ndarray) -> np.ndarray:
    """``payload_of`` with each sequence's game's winner, year and
    collection number given a sequence each."""
    swapped = np.asarray(a["swapped"], bool)
    payload = np.empty(len(swapped), PAYLOAD)
    payload["game"] = a["game"]
    payload["sequence"] = a["sequence"]
    payload["start"] = a["start"]
    payload["shared"] = a["shared"]
    payload["orientation"] = np.asarray(a["transform"], np.int8) + 8 * swapped
    won = np.asarray(winner, np.int8)
    payload["winner"] = np.where(swapped, -won, won)  # the game's White is the tree's Black after a swap
    payload["year"] = year
    payload["source"] = source
    return payload


SEQUENCE_COLUMNS = ["game", "sequence", "start", "transform", "swapped", "shared", "moves", "scores"]


class Stored:
    """What a count reads: the sequences of sequences.parquet and their
    games in games.parquet.  ``partitions.Joined`` gives the same rows from
    the dask engine's partitions, before they are joined into these files."""

    def __init__(self, sequences_path: Path, games_path: Path) -> None:
        self.sequences_path, self.games_path = sequences_path, games_path

    def games(self, columns: list[str]) -> pa.Table:
        return read_columns(self.games_path, columns)

    def tallies(self) -> tuple[Collections, tuple[np.ndarray, ...] | None]:
        """The games' collections and years, and each game's winner, year
        and collection number (None where each sequence carries its game's:
        ``partitions.Joined``)."""
        return _games(self)

    def sequences(self, columns: list[str], batch_size: int):
        return iter_batches(self.sequences_path, batch_size, columns)

    def parts(self, key_range: tuple[int, int]):
        """The sequences whose deep codes (``fasttrie.deep_codes``) are in ``key_range``, by batch of
        sequences.parquet, each (offsets, keys, scores, fields, False: not
        in trie order), each sequence with its game's day."""
        day = numpy(self.games(["day"]).column("day"))  # as ``tallies``, every game's: a column of them
        for _, *part in _decoded(self.sequences(SEQUENCE_COLUMNS, 200_000), key_range):
            part[3]["day"] = day[part[3]["game"]]
            yield (*part, False)


# what a count reads of every game (the partitions' runs carry them: ``write_run``)
GAME_COLUMNS = ["winner", "year", "collection"]


def _games(source) -> tuple[Collections, tuple[np.ndarray, ...]]:
    """The collections of the games of ``source`` (``Stored``, or
    ``partitions.Joined``), and each game's winner, year and collection
    number."""
    collections = Collections()
    return collections, game_columns(source.games(GAME_COLUMNS), collections)


def _fields(batch) -> dict[str, np.ndarray]:
    """The per-sequence columns of a batch of sequences that the payload
    takes (``payload_of``)."""
    a = {name: numpy(batch.column(name)) for name in ("game", "sequence", "start", "transform", "shared")}
    a["swapped"] = booleans(batch.column("swapped"))
    return a


def select(part: tuple, rows: np.ndarray) -> tuple:
    """Sequences ``rows`` of ``part`` (offsets, keys, scores, fields)."""
    offsets, keys, scores, a = part
    lengths = np.diff(offsets)[rows]
    flat = np.repeat(offsets[rows] - np.cumsum(np.r_[0, lengths[:-1]]), lengths) + np.arange(lengths.sum())
    return np.r_[0, np.cumsum(lengths)], keys[flat], scores[flat], {name: v[rows] for name, v in a.items()}


def _decoded(batches, key_range: tuple[int, int] | None = None):
    """Per batch of sequences (sequences.parquet's columns): its rows and
    its sequences' offsets, keys, scores and fields; given ``key_range`` =
    (lo, hi), only the sequences whose deep codes are in lo..hi-1."""
    for batch in batches:
        check_stop()
        offsets, keys, scores = _columns(batch)
        part = (offsets, keys, scores, _fields(batch))
        if key_range is not None:
            part = select(part, np.flatnonzero(in_deep_range(offsets, keys, prefixes(offsets, keys), *key_range)))
        yield (batch.num_rows, *part)


def run(context: Context) -> dict:
    """The build stage: the sequences of sequences.parquet counted (their
    games' winners, years and collections from games.parquet), and the
    trie stored with its years and collections and the sequences in trie
    order (the fast engine spills sorted runs to the work folder's runs/)."""
    c, o, neutral, floor = context.catalog, context.options, context.config.influence_neutral, context.floor
    kinds = kind_rules(context.config)
    sequences_path, trie_path, years_path, sources_path = (
        c.sequences,
        staged(c.trie),
        staged(c.trie_years),
        staged(c.trie_sources),
    )
    sorted_path = staged(c.sorted_sequences)
    source = Stored(c.sequences, c.games)
    collections, games = _games(source)
    reference = o.engine == "reference"
    trie, given = (Trie(), []) if reference else (None, None)
    runs = SortedRuns(c.runs, o.sort_bytes)
    try:
        with progress_bar(o.progress, total=count_rows(sequences_path), desc="build", unit=" seqs") as bar:
            for rows, offsets, keys, scores, a in _decoded(source.sequences(SEQUENCE_COLUMNS, 200_000)):
                payload = payload_of(a, *games)
                if reference:
                    _insert(trie, given, offsets, keys, scores, payload, neutral)
                else:
                    runs.add(*sort_sequences(offsets, keys, classes_of(scores, neutral), payload))
                bar.update(rows)
        if reference:
            _write_sorted(given, sorted_path)
            return write(
                (trie_path, years_path, sources_path), trie.to_arrays(floor), len(trie), floor, collections.names, kinds
            )
        arrays, nodes = runs.count(floor, collections.years(), max(1, len(collections.names)), sorted_path)
        return write((trie_path, years_path, sources_path), arrays, nodes, floor, collections.names, kinds)
    finally:
        runs.close()


# -- by subtree: the count split over tasks (the dask engine) -------------------------


# The openings a partition's sequences (or the stage files') are described
# by, at most: the build's ranges are planned from them, and the driver
# that plans holds every partition's.
OPENINGS = 256


def prefix_counts(source, most: int | None = OPENINGS) -> dict[int, int]:
    """The openings (``fasttrie.deep_codes``: their first keys) of the sequences of
    ``source`` (``Stored``, ``partitions.Joined``), as ``sampled`` gives
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
        (*_columns(batch), _fields(batch))
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
    """Count the sequences of ``source`` (``Stored``, ``partitions.Joined``)
    whose deep codes are in ``key_range`` (lo, hi) as ``run`` counts them
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
    arrays["positions"] = _sorted_positions(arrays)  # here, in parallel: its shard keeps its own nodes' rows
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
        """The build's figures, as ``write`` gives them for the joined trie."""
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
    """Shard ``j``'s ``position_index``, of the count's (``_sorted_positions``,
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
    ``write`` and ``join_sorted`` give the joined trie (each part of the
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
    row = np.asarray(positions["row"])  # each row once (``_sorted_positions``)
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
    """sorted_sequences.parquet as ``run`` writes it, from the subtrees
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


def _insert(trie: Trie, given: list, offsets, keys, scores, payload, neutral: int) -> None:
    """The reference engine: each sequence into the plain trie, one by one,
    and kept for sorted_sequences.parquet."""
    for i in range(len(offsets) - 1):
        a, b = offsets[i], offsets[i + 1]
        row = payload[i]
        trie.insert(
            keys[a:b].tolist(),
            [[classify(int(s), neutral) for s in r] for r in scores[a:b]],
            game=GameStats(int(row["game"]), int(row["winner"]), int(row["year"]), int(row["source"])),
        )
        given.append((tuple(keys[a:b].tolist()), row))


def _write_sorted(given: list, sorted_path: Path) -> None:
    """The reference engine's sorted_sequences.parquet: the sequences sorted
    by keys, then by game and number (as ``fasttrie.sort_sequences``)."""
    given.sort(key=lambda g: (g[0], int(g[1]["game"]), int(g[1]["sequence"])))
    sink = TableSink(sorted_path, SORTED_SCHEMA, SORTED_ROWS, **SORTED_FILE)
    sink.add(sorted_table(np.array([g[1] for g in given], PAYLOAD).reshape(-1)))
    sink.close()


def kinds_of(arrays: dict, kinds: KindRules | None) -> np.ndarray | None:
    """The kind codes of the trie's nodes (``kinds.of_arrays``: an
    approach's weighs all its replies), None without ``kinds``: computed
    once, for trie.parquet and for prune."""
    return of_arrays(node_arrays(arrays), kinds) if kinds is not None else None


def write(
    paths: tuple[Path, ...],
    arrays: dict,
    nodes: int,
    floor: int,
    names: list[str],
    kinds: KindRules | None = None,
    index: dict[str, np.ndarray] | None = None,
    codes: np.ndarray | None = None,
) -> dict:
    """Store the nodes counted at least ``floor`` times (no pruning threshold
    above ``floor`` - 1 can keep the others), with each node's kind when
    ``kinds`` gives the rules, and their games by year and by collection
    (``names``: the collections by number), and their position index
    (``index``, where it is known: ``position_index``; the kinds' ``codes``
    where they are: ``kinds_of``), in ``paths``:
    trie.parquet, trie_years.parquet and trie_sources.parquet (the index
    beside the first, or the fourth of ``paths``); the stage's figures."""
    trie_path, years_path, sources_path = paths[:3]
    trie_path.parent.mkdir(parents=True, exist_ok=True)
    nodes_only = node_arrays(arrays)
    if kinds is not None:
        nodes_only["kind"] = codes if codes is not None else of_arrays(nodes_only, kinds)
    # a row group at a time: the same file as one write_table, without the
    # whole table's columns in memory at once (a large trie's are gigabytes)
    n = len(arrays["node"])
    with pq.ParquetWriter(trie_path, node_table(_rows(nodes_only, 0, 0)).schema, **TRIE_FILE) as writer:
        for lo in range(0, n, NODE_ROWS):
            check_stop()
            writer.write_table(node_table(_rows(nodes_only, lo, lo + NODE_ROWS)), row_group_size=NODE_ROWS)
    pq.write_table(years_table(arrays["years"]), years_path, **ROWS_FILE)
    pq.write_table(sources_table(arrays["sources"], names), sources_path, **ROWS_FILE)
    index = index if index is not None else position_index(nodes_only)
    pq.write_table(positions_table(index), paths[3] if len(paths) > 3 else positions_of(trie_path), **POSITIONS_FILE)
    return {"nodes_before_prune": nodes, "nodes_stored": int(len(arrays["node"])), "floor": floor}


def position_index(nodes: dict) -> dict[str, np.ndarray]:
    """Every stored node's position (``positions.position_keys``: hi, lo)
    with its node and the transform to the position's least image, sorted
    by (hi, lo, node): the index ``joseki position`` searches and prune
    reads for each node's other move orders, whatever order reached a
    position.  ``nodes``: node arrays in node order, the root first, with
    their positions (hi, lo, transform) where the counts found them."""
    from joseki_miner.method.positions import position_order

    node = np.asarray(nodes["node"], np.int64)
    hi, lo, transform = _positions(nodes)
    order = position_order(hi, lo)  # rows in node order: a position's nodes in node order
    return {"hi": hi[order], "lo": lo[order], "node": node[order], "transform": transform[order]}


def _sorted_positions(nodes: dict) -> dict[str, np.ndarray]:
    """A count's ``position_index``, its rows ("row") for nodes."""
    from joseki_miner.method.positions import position_order

    hi, lo, transform = _positions(nodes)
    order = position_order(hi, lo)
    return {"hi": hi[order], "lo": lo[order], "row": order, "transform": transform[order]}


def _positions(nodes: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nodes' positions: hi, lo and transform (``positions.position_keys``)."""
    from joseki_miner.method.positions import position_keys
    from joseki_miner.method.prune import parent_rows

    node, depth = np.asarray(nodes["node"], np.int64), np.asarray(nodes["depth"], np.int64)
    parent = np.where(depth > 0, parent_rows(node, np.asarray(nodes["parent"], np.int64)), -1)
    return position_keys(parent, depth, np.asarray(nodes["key"], np.int64))


def _rows(arrays: dict, lo: int, hi: int) -> dict:
    return {name: a[lo:hi] for name, a in arrays.items()}
