"""Joining the dask engine's partitions (``cluster.partitions``) into the
very files the one-process engines write.

Joining is deterministic: a game is a duplicate of the first game with the
same moves in the reading order, wherever its partition (``resolve``, once
a run), and the games kept are numbered in that order.  ``write_rejects``
streams the partitions in order into one file, in the row groups the other
engines write: the same bytes, whatever the partitions and workers.
games.parquet and sequences.parquet are folders of a part a partition
(``write_games``, ``write_sequences``: a task each): their parts' rows,
end to end, are the other engines' files'; ``Joined`` gives those rows
from the partitions before they are joined."""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from joseki_miner.cluster.partitions import COLLECTIONS, read_table
from joseki_miner.fast.arrow import column, numpy, strings
from joseki_miner.fast.parquet import ROW_GROUP, TableSink
from joseki_miner.fast.tables import GAMES_SCHEMA, REJECTS_SCHEMA, SEQUENCES_SCHEMA
from joseki_miner.method.gameinfo import date_span
from joseki_miner.method.records import bad_record, where_of
from joseki_miner.runs.catalog import part_name
from joseki_miner.runs.errors import StrictError
from joseki_miner.runs.stop import check as check_stop


@dataclass
class Resolution:
    """Per partition: which of its games are kept (``keep``, by its number
    in games.parquet), the number of its first kept game in the joined
    files (``first``); which of its first games (``trace``: those no earlier
    game of the partition repeats, accepted or filtered) stay first games
    (``first_kept``), and for every one that repeats a first game of an
    earlier partition, that game's (partition, first-game number in it)
    (``repeats``: by the game's first-game number)."""

    keep: list[np.ndarray]
    first: list[int]
    first_kept: list[np.ndarray]
    repeats: list[dict[int, tuple[int, int]]]
    read: list[np.ndarray]  # per partition, each first game's number in its reading order
    kept: list[np.ndarray]  # per partition, each first game: did the filters keep it?
    filtered: list[pa.Table]  # per partition, its filtered.arrow: the first games the filters left out
    collections: list[str | None]  # the games kept's collections, numbered as first met (``build.Collections``)
    numbers: list[np.ndarray]  # per partition, the number of each of its collections among those (-1: none kept)
    by_year: dict[int, int]  # the games kept, by year (0: not known), in order

    @property
    def years(self) -> tuple[int, int]:
        """The games kept's first and last known year (0, 0: none known)."""
        known = [year for year in self.by_year if year > 0]
        return (known[0], known[-1]) if known else (0, 0)

    @property
    def accepted(self) -> int:
        """The games kept: those the joined games.parquet holds."""
        return sum(int(keep.sum()) for keep in self.keep)

    def joined_numbers(self, p: int) -> np.ndarray:
        """Per game of partition ``p``, its number in the joined files (a
        kept game's; a dropped game's is not used)."""
        return np.cumsum(self.keep[p]) - 1 + self.first[p]

    def unfiltered(self, p: int) -> Counter:
        """The games partition ``p``'s filters left out that repeat an
        earlier partition's game: duplicates, not filtered, by the filter's
        reason."""
        left = [g for g in sorted(self.repeats[p]) if not self.kept[p][g]]
        return Counter(self.left_out(p, left).column("reason").to_pylist() if left else [])

    def left_out(self, p: int, firsts: list[int]) -> pa.Table:
        """The rows of partition ``p``'s filtered.arrow of its first games
        ``firsts`` (each one the filters left out), in that order."""
        table = self.filtered[p]
        at = np.searchsorted(numpy(table.column("first")), np.asarray(firsts, np.int64))
        return table.take(column(at, np.int64))


def resolve(folder: str, keys: list[str], dedupe: bool) -> Resolution:
    """Duplicates across partitions, resolved as one reading resolves them:
    the first game with the same moves in the reading order stays first,
    whether the filters kept it or not (``ingest``'s order), and a game
    that repeats it is a duplicate."""
    traces = [read_table(Path(folder) / k / "trace.arrow") for k in keys]
    counts = [t.num_rows for t in traces]
    starts = np.r_[0, np.cumsum(counts)].astype(np.int64)
    first_of = np.arange(starts[-1], dtype=np.int64)
    if dedupe and starts[-1]:
        h1 = np.concatenate([numpy(t.column("h1")) for t in traces])
        h2 = np.concatenate([numpy(t.column("h2")) for t in traces])
        order = np.lexsort((h2, h1))  # stable: the first of equal fingerprints comes first
        new = np.r_[True, (h1[order][1:] != h1[order][:-1]) | (h2[order][1:] != h2[order][:-1])]
        group = np.cumsum(new) - 1
        first_of[order] = order[np.flatnonzero(new)][group]
    stays = first_of == np.arange(starts[-1])
    kept_all = [numpy(t.column("kept")).astype(bool) for t in traces]  # 1: the filters kept it
    part_of = np.repeat(np.arange(len(keys)), counts)
    keep, first, first_kept, repeats = [], [], [], []
    kept_before = 0
    for p in range(len(keys)):
        lo, hi = starts[p], starts[p + 1]
        keep.append(stays[lo:hi][kept_all[p]])
        first.append(kept_before)
        kept_before += int(keep[-1].sum())
        first_kept.append(stays[lo:hi])
        dropped = np.flatnonzero(~stays[lo:hi])
        f = first_of[lo + dropped]
        repeats.append({int(k): (int(part_of[g]), int(g - starts[part_of[g]])) for k, g in zip(dropped, f)})
    return Resolution(
        keep,
        first,
        first_kept,
        repeats,
        [numpy(t.column("read")) for t in traces],
        kept_all,
        [read_table(Path(folder) / k / "filtered.arrow") for k in keys],
        *_tallies(traces, kept_all, keep),
    )


def _tallies(
    traces: list[pa.Table], kept_all: list[np.ndarray], keep: list[np.ndarray]
) -> tuple[list[str | None], list[np.ndarray], dict[int, int]]:
    """The games kept's collections, numbered as first met, each
    partition's numbers of its own, and their number by year: what the
    build's counter knows of the games (``build.Collections``) and the
    eras of the report's page of what changed, from the partitions'
    traces, so that no task reads a game."""
    index: dict[str | None, int] = {}
    by_year: Counter[int] = Counter()
    names_of = [json.loads(t.schema.metadata[COLLECTIONS.encode()]) for t in traces]
    for t, names, filters_kept, stays in zip(traces, names_of, kept_all, keep):
        code = numpy(t.column("collection"))[filters_kept][stays]
        year = numpy(t.column("year"))[filters_kept][stays]
        firsts, at = np.unique(code, return_index=True)
        for c in firsts[np.argsort(at)].tolist():
            index.setdefault(names[c], len(index))
        by_year.update(dict(zip(*(a.tolist() for a in np.unique(year, return_counts=True)))))
    numbers = [np.array([index.get(n, -1) for n in names], np.int16) for names in names_of]
    return list(index), numbers, dict(sorted(by_year.items()))


@dataclass(frozen=True)
class Joined:
    """The partitions as the joined files will hold them: the games kept,
    in order, and their sequences, numbered as joined, each with its game's
    winner, year, collection and day.  The joins write them; the build counts
    them (as ``build.Stored``) while the joins run."""

    folder: str
    keys: tuple[str, ...]
    resolution: Resolution

    def games_of(self, p: int, columns: list[str] | None = None) -> pa.Table:
        """Partition ``p``'s games kept (``columns`` of games.parquet), game
        numbers as in the partition."""
        table = pq.ParquetFile(Path(self.folder) / self.keys[p] / "games.parquet").read(columns=columns)
        keep = self.resolution.keep[p]
        return table if keep.all() else table.filter(column(keep))

    def parts(self, key_range: tuple[int, int]):
        """Per partition, its sequences whose ``fasttrie.deep_codes`` are in
        ``key_range`` of the games kept, numbered as joined, in trie order (the
        partitions' sorted runs, ``shards.write_run``): offsets, keys,
        scores, fields, True (in trie order)."""
        from joseki_miner.fast import sortedrun
        from joseki_miner.stages.build import select

        res = self.resolution
        for p, key in enumerate(self.keys):
            check_stop()
            part = sortedrun.read(Path(self.folder) / key / "sorted.run", key_range)
            if part is None:
                continue
            kept = res.keep[p][part[3]["game"]]
            if not kept.all():
                part = select(part, np.flatnonzero(kept))
            part[3]["game"] = res.joined_numbers(p)[part[3]["game"]]
            part[3]["source"] = res.numbers[p][part[3].pop("collection")]
            yield (*part, True)

    def tallies(self) -> tuple:
        """``build.Stored.tallies``: the games kept's collections and years
        (``Resolution``), and None: each sequence carries its game's
        winner, year and collection number (``parts``)."""
        from joseki_miner.stages import build

        return build.Collections.of(self.resolution.collections, self.resolution.years), None

    def sequences(self, columns: list[str] | None, batch_size: int):
        """The sequences of the games kept, in batches of at most
        ``batch_size``, numbered by their games' joined numbers."""
        for p in range(len(self.keys)):
            yield from self.sequences_of(p, columns, batch_size)

    def sequences_of(self, p: int, columns: list[str] | None, batch_size: int):
        """``sequences`` of partition ``p``'s games alone."""
        res = self.resolution
        read = columns if columns is None or "game" in columns else ["game", *columns]
        number = res.joined_numbers(p)
        for batch in pq.ParquetFile(Path(self.folder) / self.keys[p] / "sequences.parquet").iter_batches(
            batch_size, columns=read
        ):
            game = numpy(batch.column("game"))
            kept = res.keep[p][game]
            if not kept.all():
                batch = batch.filter(column(kept))
                game = game[kept]
            if read is not columns:
                yield pa.RecordBatch.from_arrays([batch.column(c) for c in columns], names=list(columns))
                continue
            arrays = list(batch.columns)
            arrays[batch.schema.get_field_index("game")] = column(number[game].astype(np.int64))
            yield pa.RecordBatch.from_arrays(arrays, schema=batch.schema)


def write_games(folder: str, keys: list[str], res: Resolution, p: int, into: str) -> dict:
    """Partition ``p``'s part of games.parquet (a folder of parts, ``into``):
    its games kept, numbered as joined (``res``: ``resolve``'s), in the
    row groups a file of its own would hold; what ``games_figures`` adds
    up.  A task of its own for each partition: no task reads or writes
    every game."""
    table = Joined(folder, tuple(keys), res).games_of(p)
    table = table.set_column(0, "game", column(np.arange(res.first[p], res.first[p] + table.num_rows, dtype=np.int64)))
    _write_part(into, p, GAMES_SCHEMA, [table])
    year, count = np.unique(numpy(table.column("year")), return_counts=True)
    return {
        "accepted": table.num_rows,
        "by_year": dict(zip(year.tolist(), count.tolist())),
        "by_collection": dict(Counter(table.column("collection").to_pylist())),
        "repeats_filtered": dict(res.unfiltered(p)),
        "dates": date_span(numpy(table.column("day")), [0, 0]),
    }


def games_figures(parts: list[dict]) -> dict:
    """The figures that count the games kept (accepted, by year, by
    collection, their first and last date, and the repeats the filters
    left out), of the parts of
    games.parquet (``write_games``' of each, in order)."""
    by_year: Counter[int] = Counter()
    by_collection: Counter[str] = Counter()
    repeats: Counter[str] = Counter()
    dates = [0, 0]
    for part in parts:
        dates = date_span(np.array(part["dates"], np.int64), dates)
        by_year.update(part["by_year"])
        by_collection.update(part["by_collection"])
        repeats.update(part["repeats_filtered"])
    return {
        "games_accepted": sum(part["accepted"] for part in parts),
        "games_by_year": {str(y): n for y, n in sorted(by_year.items()) if y},
        "games_by_collection": dict(sorted(by_collection.items())),
        "games_dates": dates,
        "repeats_filtered": dict(repeats),
    }


def _read_at(folder: str, key: str, res: Resolution, p: int, firsts: list[int]) -> dict[int, tuple[str, str]]:
    """Where each of partition ``p``'s first games ``firsts`` was read
    (source, location): one the filters left out, as its filtered.arrow
    row says; an accepted one, as its row of games.parquet does."""
    kept = res.kept[p]
    left = [g for g in firsts if not kept[g]]
    rows = res.left_out(p, left).select(["source", "location"]).to_pylist() if left else []
    found = {g: (r["source"], r["location"]) for g, r in zip(left, rows)}
    accepted = [g for g in firsts if kept[g]]
    if accepted:
        row = np.cumsum(kept) - 1  # an accepted first game's row in games.parquet
        table = pq.ParquetFile(Path(folder) / key / "games.parquet").read(columns=["source", "location"])
        picked = table.take(column([int(row[g]) for g in accepted], np.int64)).to_pylist()
        found.update({g: (r["source"], r["location"]) for g, r in zip(accepted, picked)})
    return found


def write_rejects(folder: str, keys: list[str], res: Resolution, path: str, strict: bool = False) -> dict:
    """rejects.parquet of the partitions joined, in the reading order: each
    partition's own, and its first games that repeat a first game of an
    earlier one (named, as a duplicate's first game always is, by where the
    first was read); the figure of the games rejected by reason.
    ``strict``: the first bad record fails the run (a game the settings
    leave out, ``records.LEFT_OUT``, does not)."""
    wanted: dict[int, set[int]] = {}  # the first games named, by partition
    traces = [read_table(Path(folder) / k / "reject-trace.arrow") for k in keys]
    for p in range(len(keys)):
        for q, g in res.repeats[p].values():
            wanted.setdefault(q, set()).add(g)
        for g in numpy(traces[p].column("first")).tolist():
            if g >= 0 and not res.first_kept[p][g]:
                q, h = res.repeats[p][g]
                wanted.setdefault(q, set()).add(h)
    where = {
        q: {g: where_of(*at) for g, at in _read_at(folder, keys[q], res, q, sorted(games)).items()}
        for q, games in wanted.items()
    }
    sink = TableSink(Path(path), REJECTS_SCHEMA)
    reasons: Counter[str] = Counter()
    try:
        for p, key in enumerate(keys):
            own = pq.ParquetFile(Path(folder) / key / "rejects.parquet").read()
            first = numpy(traces[p].column("first"))
            detail = own.column("detail").to_pylist()
            for i in np.flatnonzero(first >= 0).tolist():  # a duplicate of a game that repeats an earlier partition's
                g = int(first[i])
                if not res.first_kept[p][g]:
                    q, h = res.repeats[p][g]
                    detail[i] = f"same moves as {where[q][h]}"
            own = own.set_column(3, "detail", strings(detail))
            read = numpy(traces[p].column("read"))
            if res.repeats[p]:
                games = sorted(res.repeats[p])
                at = _read_at(folder, key, res, p, games)
                details = [f"same moves as {where[q][h]}" for q, h in (res.repeats[p][g] for g in games)]
                more = pa.Table.from_arrays(
                    [
                        strings([at[g][0] for g in games]),
                        strings([at[g][1] for g in games]),
                        strings(["duplicate"] * len(games)),
                        strings(details),
                    ],
                    schema=REJECTS_SCHEMA,
                )
                own = pa.concat_tables([own, more])
                read = np.r_[read, res.read[p][games]]
                own = own.take(column(np.argsort(read, kind="stable"), np.int64))
            if strict and own.num_rows:  # the first bad record (not a game the settings leave out)
                bad = [i for i, reason in enumerate(own.column("reason").to_pylist()) if bad_record(reason)]
                if bad:
                    raise StrictError.of(**own.slice(bad[0], 1).to_pylist()[0])
            reasons.update(own.column("reason").to_pylist())
            if own.num_rows:
                sink.add(own)
        sink.close()
    except BaseException:
        sink.abort()
        raise
    return {"games_rejected": dict(sorted(reasons.items()))}


def write_sequences(folder: str, keys: list[str], res: Resolution, p: int, into: str) -> dict:
    """Partition ``p``'s part of sequences.parquet (a folder of parts,
    ``into``): the sequences of its games kept, numbered as the joined
    games.parquet numbers them, each part in the row groups a file of
    its own would hold.  A task of its own for each partition: no task
    reads or writes every sequence."""
    from joseki_miner.stages.extract import SEQUENCE_ROWS

    batches = Joined(folder, tuple(keys), res).sequences_of(p, None, SEQUENCE_ROWS)
    tables = (pa.Table.from_batches([batch]) for batch in batches)
    return {"sequences": _write_part(into, p, SEQUENCES_SCHEMA, tables, SEQUENCE_ROWS, use_dictionary=False)}


def _write_part(into: str, p: int, schema: pa.Schema, tables, rows: int = ROW_GROUP, **options) -> int:
    """Part ``p`` of a folder of parts, of ``tables``: written under a
    temporary name, renamed once whole unless the run has stopped (a task
    of a stopped run puts no part in the next run's folder); its rows."""
    path = Path(into) / part_name(p)
    writing = path.with_name(path.name + ".tmp")
    sink = TableSink(writing, schema, rows, **options)
    count = 0
    try:
        for table in tables:
            check_stop()
            count += table.num_rows
            sink.add(table)
        sink.close()
        check_stop()
        os.replace(writing, path)
    except BaseException:
        sink.abort()
        raise
    return count


def check_parts(into: str, count: int) -> None:
    """That a folder of parts holds a part for each of ``count`` partitions (at
    least one) and nothing else, before its stage commits: a part missing
    or left over would renumber every row after it."""
    found = sorted(os.listdir(into))
    if found != [part_name(p) for p in range(max(1, count))]:
        raise RuntimeError(
            f"{into} holds {len(found)} files, not the {max(1, count)} parts this run wrote "
            "(do the workers share the driver's work folder?)"
        )


def no_partitions(games: str | None, sequences: str) -> None:
    """games.parquet (where given) and sequences.parquet of no partitions:
    a part each, of no rows."""
    if games is not None:
        TableSink(Path(games) / part_name(0), GAMES_SCHEMA).close()
    TableSink(Path(sequences) / part_name(0), SEQUENCES_SCHEMA, use_dictionary=False).close()


def ingest_figures(parts: list[dict], games: dict, rejects: dict, skipped: Counter) -> dict:
    """The ingest stage's figures of the partitions joined, in the order a
    one-process run gives them."""

    def summed(name: str) -> dict:
        total: Counter = Counter()
        for f in parts:
            total.update(f.get(name, {}))
        return dict(sorted(total.items()))

    files_skipped = Counter(summed("files_skipped"))
    files_skipped.update(skipped)
    filtered = Counter(summed("games_filtered"))
    filtered.subtract(games.get("repeats_filtered", {}))  # duplicates of an earlier partition's games
    filtered = +filtered
    return {
        "games_read": sum(f["games_read"] for f in parts),
        "games_accepted": games["games_accepted"],
        "games_rejected": rejects["games_rejected"],
        "games_filtered": dict(sorted(filtered.items())),
        "files_skipped": dict(sorted(files_skipped.items())),
        "games_by_year": games["games_by_year"],
        "games_by_collection": games["games_by_collection"],
        "games_dates": games["games_dates"],
    }
