"""Build (stage 3): sequences.parquet (and
games.parquet) -> trie.parquet, trie_years.parquet, trie_sources.parquet,
sorted_sequences.parquet.

Counts every normalized sequence into the trie, with the influence class of
each move per direction (section 8), and per node its games, wins in the
tree's colours, and games by year and by collection.  The sequences are
also written in trie order, so a node's games are a range of them.  The
``fast`` engine (compiled trie, in sorted runs: ``fast.sorting``) and the
``reference`` engine (plain Python trie) write identical files; the dask
engine counts ranges of the sequences apart and joins them into the same
(``cluster.shards``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from joseki_miner.runs.context import Context
from joseki_miner.runs.store import staged
from joseki_miner.stages.params import kind_rules
from joseki_miner.fast.sorting import SortedRuns
from joseki_miner.fast.arrow import booleans, numpy
from joseki_miner.runs.catalog import positions_of
from joseki_miner.fast.fasttrie import (
    PAYLOAD,
    classes_of,
    in_deep_range,
    prefixes,
    sort_sequences,
)
from joseki_miner.method.influence import classify
from joseki_miner.method.kinds import KindRules, of_arrays
from joseki_miner.method.points import TENUKI, sgf_bytes_to_points
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


def sequence_moves(batch):
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
    games in games.parquet.  ``joins.Joined`` gives the same rows from
    the dask engine's partitions, before they are joined into these files."""

    def __init__(self, sequences_path: Path, games_path: Path) -> None:
        self.sequences_path, self.games_path = sequences_path, games_path

    def games(self, columns: list[str]) -> pa.Table:
        return read_columns(self.games_path, columns)

    def tallies(self) -> tuple[Collections, tuple[np.ndarray, ...] | None]:
        """The games' collections and years, and each game's winner, year
        and collection number (None where each sequence carries its game's:
        ``joins.Joined``)."""
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
    ``joins.Joined``), and each game's winner, year and collection
    number."""
    collections = Collections()
    return collections, game_columns(source.games(GAME_COLUMNS), collections)


def sequence_fields(batch) -> dict[str, np.ndarray]:
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
        offsets, keys, scores = sequence_moves(batch)
        part = (offsets, keys, scores, sequence_fields(batch))
        if key_range is not None:
            part = select(part, np.flatnonzero(in_deep_range(offsets, keys, prefixes(offsets, keys), *key_range)))
        yield (batch.num_rows, *part)


def run(context: Context) -> dict:
    """The build stage: the sequences of sequences.parquet counted (their
    games' winners, years and collections from games.parquet), and the
    trie stored with its years and collections and the sequences in trie
    order (the fast engine spills sorted runs to the work folder's runs/)."""
    c, o, neutral, floor = context.catalog, context.options, context.settings.influence_neutral, context.floor
    kinds = kind_rules(context.settings)
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
    hi, lo, transform = node_positions(nodes)
    order = position_order(hi, lo)  # rows in node order: a position's nodes in node order
    return {"hi": hi[order], "lo": lo[order], "node": node[order], "transform": transform[order]}


def node_positions(nodes: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nodes' positions: hi, lo and transform (``positions.position_keys``)."""
    from joseki_miner.method.positions import position_keys
    from joseki_miner.method.prune import parent_rows

    node, depth = np.asarray(nodes["node"], np.int64), np.asarray(nodes["depth"], np.int64)
    parent = np.where(depth > 0, parent_rows(node, np.asarray(nodes["parent"], np.int64)), -1)
    return position_keys(parent, depth, np.asarray(nodes["key"], np.int64))


def _rows(arrays: dict, lo: int, hi: int) -> dict:
    return {name: a[lo:hi] for name, a in arrays.items()}
