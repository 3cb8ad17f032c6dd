"""Tries counted apart, by ranges of sequences in trie order, joined into
the trie one count of them all gives: planned from the counts' edges
alone (``join_plan``), then each count's rows put in their place
(``place``), each count apart as a shard of its node range (the dask
engine's build): the shards laid end to end are the one count's trie.

Ranges cut by ``fasttrie.deep_codes`` share the nodes on the path between
them (each count kept them, ``edges``): the root, one range's last row and
its ancestors, the next one's first rows.  A shared node's figures are
its counts' added up in the first count that holds it (its owner); the
others' copies (repeats) are not placed.  The rest of a count's nodes are
its own: their subtrees lie wholly in its range.  So a shard's kinds
(``shard_codes``), the nodes phase 2 may keep of it (``shard_candidates``)
and its nodes on given positions (``shard_transposed``) are read on its
own count, which holds its nodes' whole paths, with the few figures of
the shared nodes the plan adds up.

Knows node arrays; nothing of files or tasks.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ADDED = ("count", "counters", "games", "black_wins", "white_wins")  # a shared node's figures, added up
ROWS = ("years", "sources")


@dataclass
class PartPlan:
    """Where one count's rows go in the joined trie: its first own node
    (``start``), the rows not placed (``gone``: repeats, and edge nodes
    counted fewer than the floor times in all), each repeat's node
    (``same``), its sequences' first rank (``ranked``), the figures of
    its edge rows that other counts share, added up (``changed``: row:
    {column: value}, repeats' too, so a shard sees its whole path; an
    edge row of its own keeps its count's figures), the rows of years
    and collections of the shared nodes it owns (``rows``: what: row:
    (index, games)), and whether it holds the root (the first count with
    sequences)."""

    start: int
    gone: np.ndarray
    same: dict[int, int]
    ranked: int
    changed: dict[int, dict[str, int | tuple[int, ...]]]
    rows: dict[str, dict[int, tuple[np.ndarray, np.ndarray]]]
    root: bool
    placed: bool = True  # False: a count of no sequences, beside counts of some

    def numbers(self, n: int) -> np.ndarray:
        """Each of the count's ``n`` rows' node in the joined trie (0: the
        root; -1: not kept)."""
        return self.numbers_at(np.arange(n, dtype=np.int64))

    def numbers_at(self, rows: np.ndarray) -> np.ndarray:
        """``numbers`` at ``rows`` alone: a few rows of a count of many."""
        rows = np.asarray(rows, np.int64)
        if not self.placed:
            return np.full(len(rows), -1, np.int64)
        at = np.searchsorted(self.gone, rows, side="right")
        number = rows + (self.start - 1) - at
        if len(self.gone):
            number[(at > 0) & (self.gone[np.maximum(at - 1, 0)] == rows)] = -1
        number[rows == 0] = 0
        if self.same:
            repeats = np.array(sorted(self.same), np.int64)
            at = np.minimum(np.searchsorted(repeats, rows), len(repeats) - 1)
            hit = repeats[at] == rows
            number[hit] = np.array([self.same[r] for r in repeats.tolist()], np.int64)[at[hit]]
        return number

    def node_of(self, row: int) -> int:
        """An edge row's node in the joined trie (-1: not kept)."""
        if not self.placed:
            return -1
        if row in self.same:
            return self.same[row]
        if row == 0:
            return 0
        at = bisect.bisect_left(self.gone, row)  # (a few rows: np.searchsorted's call costs more)
        return -1 if at < len(self.gone) and self.gone[at] == row else row + self.start - 1 - at

    def runs(self, n: int) -> list[tuple[int, int]]:
        """The count's runs of rows placed (first row, end), below the root."""
        if not self.placed:
            return []
        bounds = [0, *self.gone.tolist(), n]
        return [(a + 1, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a + 1]


@dataclass
class JoinPlan:
    """The plan of a join: a ``PartPlan`` a count given (by its number, in
    key order), the root's row (``root``: column: value) and rows of years
    and collections (``root_rows``), the joined trie's nodes stored
    (``stored``) and counted (``nodes``), and each count's node range in
    it (``ranges``: its own nodes, and the root where it holds it)."""

    parts: dict[int, PartPlan]
    root: dict[str, np.ndarray]
    root_rows: dict[str, tuple[np.ndarray, np.ndarray]]
    stored: int
    nodes: int
    ranges: dict[int, tuple[int, int]]

    def shard(self, j: int) -> tuple[int, int]:
        """Count ``j``'s node range in the joined trie (lo, hi)."""
        return self.ranges[j]

    def only(self, j: int) -> JoinPlan:
        """The plan of count ``j``'s shard alone: what its tasks read, where
        the whole plan grows with the number of counts."""
        return JoinPlan({j: self.parts[j]}, self.root, self.root_rows, self.stored, self.nodes, {j: self.ranges[j]})


def _ranges(parts: list[PartPlan], stored: int) -> dict[int, tuple[int, int]]:
    """Each count's node range in the joined trie (``JoinPlan.ranges``); a
    count of no nodes, an empty range where they would be."""
    ranges, hi = {}, stored
    first = next((j for j, part in enumerate(parts) if part.placed), len(parts))
    for j in range(len(parts) - 1, -1, -1):
        part = parts[j]
        if not part.placed:
            at = part.start if j > first else 0
            ranges[j] = (at, at)
            continue
        ranges[j] = (0 if part.root else part.start, hi)
        hi = part.start
    return dict(sorted(ranges.items()))


def _down(arrays: dict) -> list[int]:
    """The rows of a count's first sequence's path, by depth: its first rows."""
    depth, rows = arrays["depth"], []
    while len(rows) + 1 < len(depth) and depth[len(rows) + 1] == len(rows) + 1:
        rows.append(len(rows) + 1)
    return rows


def _up(arrays: dict) -> list[int]:
    """The rows of a count's last sequence's path, by depth: its last row's
    ancestors and itself."""
    rows, row = [], len(arrays["node"]) - 1
    while row > 0:
        rows.append(row)
        row = int(arrays["parent"][row])
    return rows[::-1]


def edge_rows(arrays: dict) -> list[int]:
    """A count's rows that other counts may share: the root and the paths
    of its first and last sequences."""
    return sorted({0, *_down(arrays), *_up(arrays)})


def plan_rows(arrays: dict) -> list[int]:
    """The rows of a count ``join_plan`` reads: its ``edge_rows`` and the
    row after its first sequence's path (which ends that path)."""
    down = _down(arrays)
    return sorted({*edge_rows(arrays), *([len(down) + 1] if len(down) + 1 < len(arrays["depth"]) else [])})


class EdgeColumn:
    """A count's node column read only at some rows (``plan_rows``): what
    a count keeps for the plan, of its ``rows`` rows in all."""

    def __init__(self, kept: np.ndarray, at: dict[int, int], values: np.ndarray, rows: int) -> None:
        self.kept, self.at, self.values, self.rows = kept, at, values, rows  # the rows kept, in order, and by row

    def __len__(self) -> int:
        return self.rows

    def __getitem__(self, row: int):
        i = self.at.get(int(row))
        if i is None:
            raise IndexError(f"row {row} is not kept for the plan")
        return self.values[i]

    def take(self, rows: list[int]) -> np.ndarray:
        """The column at ``rows`` (each kept for the plan), at once."""
        try:
            return self.values[[self.at[row] for row in rows]]  # a few dozen rows: a dict beats a search
        except KeyError as e:
            raise IndexError(f"row {e.args[0]} is not kept for the plan") from None


def kept_for_plan(arrays: dict) -> dict[str, dict[str, np.ndarray]]:
    """What a count keeps for ``join_plan`` and ``shard_replies`` (a few
    dozen rows): its node columns at its ``plan_rows`` ("edge_nodes", with
    "row"), the rows of years and collections of its ``edge_rows``, and
    its ``edge_replies`` ("row", "count")."""
    edges, replies = np.array(edge_rows(arrays), np.int64), edge_replies(arrays)
    planned = np.array(plan_rows(arrays), np.int64)
    kept = {"edge_nodes": {"row": planned}}
    kept["edge_nodes"].update((name, a[planned]) for name, a in arrays.items() if not isinstance(a, dict))
    for what in ROWS:
        at = np.isin(arrays[what]["node"], edges)
        kept[f"edge_{what}"] = {name: a[at] for name, a in arrays[what].items()}
    kept["edge_replies"] = {
        "row": np.array(list(replies), np.int64),
        "count": np.array(list(replies.values()), np.int64),
    }
    return kept


@dataclass(frozen=True)
class Counted:
    """A count of subtrees (``shards.count_subtrees``) as the plan of the
    join reads it: where it was counted, its range and floor, its nodes,
    the collections' names, and what it kept for the plan
    (``kept_for_plan``: a few dozen rows).  Handed to the plan (on the
    dask engine, a count task's result, through the driver, which loads no
    compiled engine), not written: the plan reads no count's file."""

    folder: Path
    key_range: tuple[int, int]
    floor: int
    nodes: int
    names: list[str]
    edges: dict[str, dict[str, np.ndarray]]


def planned_from(kept: dict[str, dict[str, np.ndarray]]) -> tuple[dict, dict[int, int]]:
    """A count as ``join_plan`` reads it, of what it kept (``kept_for_plan``):
    its columns as ``EdgeColumn``s and its rows of years and collections;
    and its edge replies for ``shard_replies``."""
    nodes = kept["edge_nodes"]
    rows = int(nodes["row"][-1]) + 1  # its last row ends its last sequence's path
    at = {row: i for i, row in enumerate(nodes["row"].tolist())}
    arrays: dict = {name: EdgeColumn(nodes["row"], at, a, rows) for name, a in nodes.items() if name != "row"}
    arrays.update(years=kept["edge_years"], sources=kept["edge_sources"])
    replies = kept["edge_replies"]
    return arrays, dict(zip(replies["row"].tolist(), replies["count"].tolist()))


def _summed(tries: list[dict], what: str, groups: list[list[tuple[int, int]]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per group of (count, row) pairs, the rows of years or collections
    (``what``: index, games) of those rows of those counts added up by
    index, in order of index: every node a join shares, at once."""
    asked: dict[int, list[tuple[int, int]]] = {}  # per count: (group, row), its rows asked
    for g, members in enumerate(groups):
        for j, row in members:
            asked.setdefault(j, []).append((g, row))
    pieces: list[tuple[int, np.ndarray, np.ndarray]] = []
    for j, wanted in asked.items():  # a count's rows by node, each node's together
        node, index, games = (np.asarray(tries[j][what][name]) for name in ("node", "index", "games"))
        rows = [row for _, row in wanted]
        bounds = zip(np.searchsorted(node, rows).tolist(), np.searchsorted(node, rows, side="right").tolist())
        pieces += [(g, index[lo:hi], games[lo:hi]) for (g, _), (lo, hi) in zip(wanted, bounds)]
    if not pieces:
        return [(np.zeros(0, np.int64), np.zeros(0, np.int64)) for _ in groups]
    index = np.concatenate([p[1] for p in pieces]).astype(np.int64)
    least = int(index.min()) if len(index) else 0
    wide = int(index.max()) - least + 1 if len(index) else 1
    group = np.repeat(np.array([p[0] for p in pieces], np.int64), [len(p[1]) for p in pieces])
    key = group * wide + (index - least)
    keys, where = np.unique(key, return_inverse=True)  # by group, then by index
    total = np.bincount(where, weights=np.concatenate([p[2] for p in pieces]), minlength=len(keys))
    bounds = np.searchsorted(keys // wide, np.arange(len(groups) + 1))
    dtypes = (pieces[0][1].dtype, pieces[0][2].dtype)
    return [
        ((keys[a:b] % wide + least).astype(dtypes[0]), total[a:b].astype(dtypes[1]))
        for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())
    ]


def _at(column, rows: list[int]) -> np.ndarray:
    """A column (``EdgeColumn`` or array) at ``rows``."""
    return column.take(rows) if isinstance(column, EdgeColumn) else np.asarray(column)[rows]


def _edge_values(arrays: dict, rows: list[int]) -> dict[int, dict]:
    """A count's ``ADDED`` figures at ``rows``, by row, as Python numbers (a
    row of counters, a tuple): the shards' plans pickle thousands of them;
    each column read at all the rows at once."""
    picked = {name: _at(arrays[name], rows) for name in ADDED}
    columns = [(name, v.tolist() if v.ndim == 1 else [tuple(r) for r in v.tolist()]) for name, v in picked.items()]
    return {row: {name: v[i] for name, v in columns} for i, row in enumerate(rows)}


def _added(values: list):
    """Numbers added up, or rows of them (tuples) by place."""
    return tuple(map(sum, zip(*values))) if isinstance(values[0], tuple) else sum(values)


@dataclass
class _Seams:
    """Where neighbouring counts meet, per count placed (by its number):
    its edge rows (``edge``), those that repeat a node of a count before
    it and that node's owner (``same``: row: (count, row), the first count
    that holds it), the rows whose figures the join adds up (``shared``),
    those figures (``values``: row: column: value) and the rows of years
    and collections of the shared nodes it owns (``owned``)."""

    edge: dict[int, list[int]]
    same: dict[int, dict[int, tuple[int, int]]]
    shared: dict[int, set[int]]
    values: dict[int, dict[int, dict]]
    owned: dict[int, dict[str, dict[int, tuple[np.ndarray, np.ndarray]]]]


def _repeats(
    tries: list[dict], placed: list[int]
) -> tuple[dict[int, list[int]], dict[int, dict[int, tuple[int, int]]]]:
    """Each count's edge rows, and those of its first path (down) that
    repeat the last path (up) of the count placed before it, key by key
    from the root: each with its owner, the first count that holds it."""
    downs = {j: _down(tries[j]) for j in placed}
    ups = {j: _up(tries[j]) for j in placed}
    edge = {j: sorted({*downs[j], *ups[j]}) for j in placed}
    same: dict[int, dict[int, tuple[int, int]]] = {j: {} for j in placed}
    up_keys = {j: _at(tries[j]["key"], ups[j]).tolist() for j in placed}
    down_keys = {j: _at(tries[j]["key"], downs[j]).tolist() for j in placed}
    for before, j in zip(placed, placed[1:]):
        a, b = ups[before], downs[j]
        for d in range(min(len(a), len(b))):
            if up_keys[before][d] != down_keys[j][d]:
                break
            same[j][b[d]] = same[before].get(a[d], (before, a[d]))
    return edge, same


def _seams(tries: list[dict], placed: list[int]) -> _Seams:
    """The seams of the counts placed: every node they share with their
    owner's figures and rows of years and collections added up (a
    repeat sees its owner's)."""
    edge, same = _repeats(tries, placed)
    merged: dict[tuple[int, int], list[tuple[int, int]]] = {}
    shared: dict[int, set[int]] = {j: set(same[j]) for j in placed}
    for j in placed:
        for row, owner in same[j].items():
            merged.setdefault(owner, []).append((j, row))
            shared[owner[0]].add(owner[1])
    values = {j: _edge_values(tries[j], sorted(shared[j])) for j in placed}
    owned: dict[int, dict[str, dict[int, tuple[np.ndarray, np.ndarray]]]] = {j: {w: {} for w in ROWS} for j in placed}
    for what in ROWS:
        groups = [[owner, *repeats] for owner, repeats in merged.items()]
        for (i, row), rows in zip(merged, _summed(tries, what, groups)):
            owned[i][what][row] = rows
    for (i, row), repeats in merged.items():
        for name in ADDED:
            values[i][row][name] = _added([values[i][row][name], *(values[j][r][name] for j, r in repeats)])
        years = owned[i]["years"][row][0]
        values[i][row]["first_year"], values[i][row]["last_year"] = (
            (int(years[0]), int(years[-1])) if len(years) else (0, 0)
        )
    for j in placed:  # a repeat sees its owner's figures
        for row, (i, other) in same[j].items():
            values[j][row] = values[i][other]
    return _Seams(edge, same, shared, values, owned)


def _part_plans(
    counts: list[tuple[dict, int]], placed: list[int], seams: _Seams, floor: int
) -> tuple[list[PartPlan], int]:
    """A ``PartPlan`` a count, in order, and the joined trie's nodes stored:
    a count's first own node follows the count before it; its repeats and
    the edge rows counted fewer than ``floor`` times in all are not
    placed, and a repeat is numbered as its owner."""
    parts: list[PartPlan] = []
    start, ranked, numbers = 1, 0, {}
    for j, (arrays, _) in enumerate(counts):
        if j not in placed:
            parts.append(PartPlan(start, np.zeros(0, np.int64), {}, ranked, {}, {w: {} for w in ROWS}, False, False))
            continue
        edge, same = seams.edge[j], seams.same[j]
        counted = dict(zip(edge, _at(arrays["count"], edge).tolist()))
        counted.update((row, v["count"]) for row, v in seams.values[j].items())
        gone = sorted({*same, *(row for row in edge if row not in same and counted[row] < floor)})
        part = PartPlan(start, np.array(gone, np.int64), {}, ranked, seams.values[j], seams.owned[j], j == placed[0])
        for row, (i, other) in same.items():
            part.same[row] = numbers[(i, other)]
        for row in seams.shared[j]:
            if row not in same:  # an owner: its repeats are numbered as it is
                numbers[(j, row)] = part.node_of(row)
        parts.append(part)
        start += len(arrays["node"]) - 1 - len(gone)
        ranked += int(arrays["count"][0])
    return parts, start


def _joined_root(tries: list[dict], placed: list[int]) -> tuple[dict, dict]:
    """The joined root's row (the first count's, its figures added up over
    the counts) and its rows of years and collections."""
    first = tries[placed[0]]
    root = {name: np.array(first[name][0]) for name in first if name not in ROWS}
    for name in ("count", "games", "black_wins", "white_wins"):
        root[name] = sum((np.array(tries[j][name][0]) for j in placed[1:]), root[name])
    root_rows = {what: _summed(tries, what, [[(j, 0) for j in placed]])[0] for what in ROWS}
    years = root_rows["years"][0]
    root["first_year"], root["last_year"] = (
        (np.array(years[0]), np.array(years[-1])) if len(years) else (np.array(0), np.array(0))
    )
    return root, root_rows


def join_plan(counts: list[tuple[dict, int]], floor: int = 1) -> JoinPlan:
    """The plan of joining ``counts`` (``StreamCounter.finish`` of each and
    its number of nodes, in key order): reads each count's root and edge
    rows only (a column may be one of those rows alone, ``EdgeColumn``:
    ``len``, a row by index), and its rows of years and collections of
    those rows.  A count of no sequences is not placed (but where every
    count is empty: the first holds the root)."""
    tries = [arrays for arrays, _ in counts]
    placed = [j for j, t in enumerate(tries) if t["count"][0] > 0] or [0]
    seams = _seams(tries, placed)
    parts, stored = _part_plans(counts, placed, seams, floor)
    root, root_rows = _joined_root(tries, placed)
    nodes = 1 + sum(counts[j][1] - 1 for j in placed) - sum(len(seams.same[j]) for j in placed)
    return JoinPlan(dict(enumerate(parts)), root, root_rows, stored, nodes, _ranges(parts, stored))


def _fill(out: dict[str, np.ndarray], lo: int, arrays: dict, part: PartPlan, root: dict) -> np.ndarray:
    """Put a count's rows into ``out``: columns of the joined trie's nodes
    from ``lo``; gives its rows' nodes (``PartPlan.numbers``)."""
    n = len(arrays["node"])
    number, runs = part.numbers(n), part.runs(n)
    for name, column in out.items():
        if part.root:
            column[0 - lo] = root[name]
        source = arrays[name]
        for a, b in runs:
            at = int(number[a]) - lo
            into = column[at : at + b - a]
            if name == "node":
                into[:] = number[a:b]
                continue
            into[:] = source[a:b]
            if name == "parent":
                into[:] = number[into]
            elif name == "first":
                into += part.ranked
        for row, values in part.changed.items():
            at = int(number[row]) - lo
            if name in values and number[row] > 0 and 0 <= at < len(column):
                column[at] = values[name]
    return number


def _part_rows(rows: dict, number: np.ndarray, part: PartPlan, what: str, root_rows: dict) -> dict[str, np.ndarray]:
    """A count's rows of years or collections in the joined trie: its own
    nodes', renumbered, a shared node's added up where it owns it, the
    root's where it holds it (``root_rows``)."""
    node, index, games = (np.asarray(rows[c]) for c in ("node", "index", "games"))
    new = number[node] if part.placed else np.full(len(node), -1, np.int64)
    keep = new > 0
    special = np.array([*part.same, *part.rows[what]], np.int64)
    if len(special):
        keep &= ~np.isin(node, special)
    node, index, games = new[keep], index[keep], games[keep]
    owned = sorted((int(number[row]), idx, g) for row, (idx, g) in part.rows[what].items() if number[row] > 0)
    if owned:  # a node inserted at one place goes in node order
        at = np.concatenate([np.full(len(idx), np.searchsorted(node, r), np.int64) for r, idx, _ in owned])
        node = np.insert(node, at, np.concatenate([np.full(len(idx), r, node.dtype) for r, idx, _ in owned]))
        index = np.insert(index, at, np.concatenate([idx for _, idx, _ in owned]))
        games = np.insert(games, at, np.concatenate([g for _, _, g in owned]))
    if part.root:
        idx, g = root_rows[what]
        node = np.concatenate([np.zeros(len(idx), node.dtype), node])
        index, games = np.concatenate([idx.astype(index.dtype), index]), np.concatenate([g.astype(games.dtype), games])
    return {"node": node, "index": index, "games": games}


def end_to_end(shards: list[dict]) -> dict:
    """Shards' arrays (``place``'s, or what each keeps of them) laid end to
    end, their rows of years and collections too: the joined trie's."""
    out: dict = {}
    for name, value in shards[0].items():
        if isinstance(value, dict):
            out[name] = {sub: np.concatenate([shard[name][sub] for shard in shards]) for sub in value}
        else:
            out[name] = np.concatenate([shard[name] for shard in shards])
    return out


def place(arrays: dict, plan: JoinPlan, j: int) -> dict:
    """Count ``j``'s shard of the joined trie (``plan.shard``): the node
    arrays of its own nodes (and the root, where it holds it), with its
    rows of years and collections, as the joined trie holds them."""
    lo, hi = plan.shard(j)
    names = [name for name in arrays if name not in ROWS and name != "positions"]
    out = {name: np.empty((hi - lo, *arrays[name].shape[1:]), arrays[name].dtype) for name in names}
    number = _fill(out, lo, arrays, plan.parts[j], plan.root)
    for what in ROWS:
        out[what] = _part_rows(arrays[what], number, plan.parts[j], what, plan.root_rows)
    return out


def place_rows(arrays: dict, plan: JoinPlan, j: int, rows: np.ndarray) -> dict:
    """``place``'s arrays at the shard's ``rows`` alone (its places, as
    ``shard_candidates`` gives them), their rows of years and collections
    too: what the shard's candidates read, without placing every node."""
    part = plan.parts[j]
    lo, hi = plan.shard(j)
    number = part.numbers(len(arrays["node"]))
    picked = np.flatnonzero((number >= lo) & (number < hi))[rows]  # the count's rows, in node order
    out: dict = {}
    for name in (name for name in arrays if name not in ROWS and name != "positions"):
        source = arrays[name]
        column = np.empty((len(picked), *source.shape[1:]), source.dtype)
        if name == "node":
            column[:] = number[picked]
        elif name == "parent":
            column[:] = number[np.asarray(source[picked], np.int64)]
        else:
            column[:] = source[picked]
            if name == "first":
                column += part.ranked
        for row, values in part.changed.items():
            if name in values and number[row] > 0:
                column[picked == row] = values[name]
        if part.root:
            column[picked == 0] = plan.root[name]
        out[name] = column
    for what in ROWS:
        given = {c: np.asarray(arrays[what][c]) for c in ("node", "index", "games")}
        mine = np.isin(given["node"], picked)
        placed = _part_rows({c: a[mine] for c, a in given.items()}, number, part, what, plan.root_rows)
        kept = np.isin(placed["node"], out["node"])
        out[what] = {c: a[kept] for c, a in placed.items()}
    return out


def edge_replies(arrays: dict) -> dict[int, int]:
    """A count's side replies (``kinds.side_replies``) of its edge rows at
    the second entry, counted in its range alone: the plan adds them up
    (``shard_replies``)."""
    from joseki_miner.method.kinds import side_replies
    from joseki_miner.method.prune import parent_rows

    rows = [row for row in edge_rows(arrays) if arrays["depth"][row] == 2]
    if not rows:
        return {}
    node = np.asarray(arrays["node"], np.int64)
    replies = side_replies(
        parent_rows(node, np.asarray(arrays["parent"], np.int64)), arrays["depth"], arrays["key"], arrays["count"]
    )
    return {row: int(replies[row]) for row in rows}


def shard_replies(
    counts: list[tuple[dict, int]], replies: list[dict[int, int]], plan: JoinPlan
) -> list[dict[int, int]]:
    """Per count, the side replies of its edge rows at the second entry in
    the joined trie (``edge_replies`` of each, ``replies``, added up by
    node), less those of edge nodes the join drops (counted fewer than the
    floor times in all): what ``shard_codes`` weighs them by."""
    from joseki_miner.method.kinds import on_side

    total: dict[int, int] = {}
    for j, part in plan.parts.items():
        for row, n in replies[j].items():
            node = part.node_of(row)
            if node >= 0:
                total[node] = total.get(node, 0) + n
    for j, (part, (arrays, _)) in enumerate(zip(plan.parts.values(), counts)):
        for row in (int(r) for r in part.gone):
            if row in part.same or arrays["depth"][row] != 3:
                continue
            parent = int(arrays["parent"][row])
            node = part.node_of(parent)
            if node >= 0 and on_side(np.array([arrays["key"][row]]), np.array([3]))[0]:  # a side reply the join drops
                total[node] -= int(part.changed[row]["count"] if row in part.changed else arrays["count"][row])
    return [
        {row: total[part.node_of(row)] for row in replies[j] if part.node_of(row) >= 0}
        for j, part in plan.parts.items()
    ]


def shard_codes(arrays: dict, plan: JoinPlan, j: int, rules, replies: dict[int, int]) -> np.ndarray:
    """The kind codes (``kinds.of_arrays``) of count ``j``'s shard's nodes
    (``place``), as the joined trie's: read on the count's own rows, whose
    paths it holds whole, with the shared nodes' counts added up and the
    side replies of its edge nodes at the second entry counted in every
    range (``shard_replies``)."""
    from joseki_miner.method.kinds import of_arrays

    part = plan.parts[j]
    n = len(arrays["node"])
    number = part.numbers(n)
    count = np.array(arrays["count"], np.int64)
    for row, values in part.changed.items():
        count[row] = values["count"]
    code = of_arrays({**{k: arrays[k] for k in ("node", "parent", "depth", "key")}, "count": count}, rules, replies)
    lo, hi = plan.shard(j)
    return code[(number >= lo) & (number < hi)]


def _local(arrays: dict, part: PartPlan, plan_root: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A count's rows as the joined trie sees them: each row's parent row,
    its node there (``PartPlan.numbers``), and its count and games with a
    shared node's added up (0 where the join drops it)."""
    from joseki_miner.method.prune import parent_rows

    number = part.numbers(len(arrays["node"]))
    count = np.array(arrays["count"], np.int64)
    games = np.array(arrays["games"], np.int64)
    for row, values in part.changed.items():
        count[row], games[row] = values["count"], values["games"]
    count[number < 0] = games[number < 0] = 0
    count[0], games[0] = plan_root["count"], plan_root["games"]  # every range's sequences
    return (
        parent_rows(np.asarray(arrays["node"], np.int64), np.asarray(arrays["parent"], np.int64)),
        number,
        count,
        games,
    )


def shard_candidates(arrays: dict, plan: JoinPlan, j: int, cut) -> dict[str, np.ndarray]:
    """Which of count ``j``'s shard's nodes phase 2 may keep
    (``prune.candidates``, read on the count's rows, whose paths it holds
    whole): "rows", their places in the shard (``place``), and each one's
    tenuki child's count ("tenuki"); and those of the shared nodes it does
    not own, the root too ("shared": nodes, "shared_tenuki"), whose tenuki
    child may be here."""
    from joseki_miner.method.prune import candidates, tenuki_counts

    part = plan.parts[j]
    row, number, count, games = _local(arrays, part, plan.root)
    depth, key = np.asarray(arrays["depth"], np.int64), np.asarray(arrays["key"], np.int64)
    some = candidates(row, depth, count, cut, key, games)
    tenuki = tenuki_counts(row, key, count)
    lo, hi = plan.shard(j)
    own = (number >= lo) & (number < hi)
    repeats = np.array(
        [*([0] if part.placed and not part.root else []), *(r for r, node in part.same.items() if node >= 0)], np.int64
    )
    return {
        "rows": np.flatnonzero(some[own]),
        "tenuki": tenuki[own][some[own]],
        "shared": number[repeats],
        "shared_tenuki": tenuki[repeats],
    }


def shard_transposed(arrays: dict, plan: JoinPlan, j: int, positions: dict, wanted: dict) -> dict[str, np.ndarray]:
    """Count ``j``'s shard's nodes on the positions ``wanted`` (hi, lo:
    the kept nodes'): from the count's position index (``positions``,
    sorted by position), each one's node, position and transform, games
    and count in the joined trie, and its line of keys from the root
    ("keys", "ends": where each node's ends).  It reads the count's
    arrays at those nodes and their paths alone (a search of the index),
    so a count of more stored nodes costs it no more."""
    part = plan.parts[j]
    by_hi = np.asarray(positions["hi"], np.int64)
    asked = np.unique(np.asarray(wanted["hi"], np.int64))
    first, end = np.searchsorted(by_hi, asked), np.searchsorted(by_hi, asked, side="right")
    at = np.concatenate(
        [np.zeros(0, np.int64), *(np.arange(a, b) for a, b in zip(first.tolist(), end.tolist()) if b > a)]
    )
    pairs = set(zip(np.asarray(wanted["hi"]).tolist(), np.asarray(wanted["lo"]).tolist()))
    found_hi, found_lo = by_hi[at], np.asarray(positions["lo"], np.int64)[at]
    at = at[np.array([(h, low) in pairs for h, low in zip(found_hi.tolist(), found_lo.tolist())], bool)]
    local = np.asarray(positions["row"], np.int64)[at]
    node = part.numbers_at(local)
    lo, hi = plan.shard(j)
    mine = (node >= lo) & (node < hi)
    at, local, node = at[mine], local[mine], node[mine]
    count, games = (np.array(np.asarray(arrays[name])[local], np.int64) for name in ("count", "games"))
    for row, values in part.changed.items():
        count[local == row], games[local == row] = values["count"], values["games"]
    count[local == 0], games[local == 0] = plan.root["count"], plan.root["games"]  # every range's sequences
    depth, key = np.asarray(arrays["depth"]), np.asarray(arrays["key"])
    rows, parent = np.asarray(arrays["node"]), np.asarray(arrays["parent"])
    keys, ends = [], []
    for r in local.tolist():
        line = []
        while depth[r] > 0:
            line.append(int(key[r]))
            r = int(np.searchsorted(rows, parent[r]))  # a count numbers its nodes in row order
        keys += line[::-1]
        ends.append(len(keys))
    return {
        "node": node,
        "hi": np.asarray(positions["hi"])[at],
        "lo": np.asarray(positions["lo"])[at],
        "transform": np.asarray(positions["transform"])[at],
        "games": games,
        "count": count,
        "keys": np.array(keys, np.int64),
        "ends": np.array(ends, np.int64),
    }
