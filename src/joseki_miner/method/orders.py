"""Move orders merged where the position is the same (prune.merge_orders;
our answer to section 9's "a smarter mechanism"): "R16 tenuki P17" and
"P17 tenuki R16" are one small knight's enclosure, one node.

The positions of a trie's nodes (``positions``) form a graph in which a
position may have several parents, one an order.  The merged tree keeps
one node a position, under the parent of its most played order (its
*representative*, the member with the largest count; the first in the
table among equals), so it stays a tree for SGF.  Its moves are written
in one frame from the empty corner down (each node's display frame: its
representative's parent's, so a line reads as the most played order
played it), and a node counts every sequence that reached its position by
any order: its members' counts and influence counters added (the
counters turned into the node's frame; the trie stores the nodes counted
at least twice, so an order played once is not among them).  A line that
returns to a position (a ko fought back and forth) stands on another
position each time (``positions``): one line is never counted twice.  The games, wins, years and
collections of a node of several members are not sums (a game may reach
one position in two corners by two orders): ``stages.orders`` counts them
again from the members' sequences.

Counts need not fall from a node to its children any more: a position
reached by two orders may be played more often than the one its line
comes from.  Knows node arrays, positions and symmetries; nothing of files.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from joseki_miner.method.points import NPOINTS, TENUKI
from joseki_miner.method.symmetry import DIRECTION_MAP, POINT_MAP, TRANSFORMS, compose, inverse

_COMPOSE = np.array([[compose(a, b) for b in TRANSFORMS] for a in TRANSFORMS], np.int64)  # first b, then a
_INVERSE = np.array([inverse(t) for t in TRANSFORMS], np.int64)
_POINTS = np.array([list(POINT_MAP[t][:NPOINTS]) + [TENUKI] for t in TRANSFORMS], np.int64)  # TENUKI last


@dataclass(frozen=True)
class Merged:
    """The merged tree: ``group`` maps each row of the trie's table to its
    position's node; per node (in the merged tree's order: depth-first,
    children by move), its representative row, parent node (-1 at the
    root), depth and trie key in the display frame; ``frame`` maps each
    row's frame to its node's display frame (a transform)."""

    group: np.ndarray
    representative: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    key: np.ndarray
    frame: np.ndarray

    def members(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows ordered by node, where each node's rows start: an offsets
        array of len(nodes) + 1)."""
        order = np.argsort(self.group, kind="stable")
        starts = np.searchsorted(self.group[order], np.arange(len(self.parent) + 1))
        return order, starts


def merge(
    parent_row: np.ndarray, count: np.ndarray, key: np.ndarray, hi: np.ndarray, lo: np.ndarray, transform: np.ndarray
) -> Merged:
    """The merged tree of a trie's node table (rows parents first, the root
    first) whose nodes have the position keys ``hi``, ``lo`` and transforms
    to their least images ``transform`` (``positions.position_keys``)."""
    parent_row = np.asarray(parent_row, np.int64)
    count = np.asarray(count, np.int64)
    key = np.asarray(key, np.int64)
    transform = np.asarray(transform, np.int64)
    n = len(parent_row)
    # per position, its rows by count descending, then by row: the first is its representative
    order = np.lexsort((np.arange(n), -count, lo, hi))
    head = np.r_[True, (hi[order][1:] != hi[order][:-1]) | (lo[order][1:] != lo[order][:-1])]
    rep = np.empty(n, np.int64)
    rep[order] = order[np.maximum.accumulate(np.where(head, np.arange(n), 0))]
    reps = np.flatnonzero(rep == np.arange(n))  # ascending rows
    # display frames from the root down, each representative after its parent position's (the counts of the
    # representatives never fall along a parent link, and among equals the rows do: the links form a tree),
    # a level of the merged tree at a time
    display = np.zeros(n, np.int64)  # per representative: its position's least image -> its display frame
    shown = np.full(n, TENUKI, np.int64)  # per representative: its move in the display frame
    depth = np.zeros(n, np.int64)
    done = np.zeros(n, bool)
    done[0] = True
    pending = reps[1:]
    up = rep[parent_row[pending]]  # each one's parent position, by its representative
    while len(pending):
        now = done[up]
        if not now.any():
            raise ValueError("the positions' parents do not form a tree")
        r, p = pending[now], up[now]
        u = parent_row[r]
        to_display = _COMPOSE[display[p], transform[u]]  # u's frame -> its position's display frame
        shown[r] = _POINTS[to_display, np.where(key[r] == TENUKI, NPOINTS, key[r])]
        display[r] = _COMPOSE[to_display, _INVERSE[transform[r]]]
        depth[r] = depth[p] + 1
        done[r] = True
        pending, up = pending[~now], up[~now]
    # the merged tree's nodes in a depth-first walk, children by their key (a tenuki last), as a trie's are:
    # their lines from the empty corner in order, a line before those it begins
    height = int(depth[reps].max()) if len(reps) else 0
    slot = np.full(n, -1, np.int64)  # a representative's row of ``line``
    slot[reps] = np.arange(len(reps))
    line = np.full((len(reps), max(height, 1)), -1, np.int16)
    for d in range(1, height + 1):
        at = reps[depth[reps] == d]
        line[slot[at]] = line[slot[rep[parent_row[at]]]]
        line[slot[at], d - 1] = shown[at]
    rows = reps[np.lexsort([line[:, j] for j in range(line.shape[1] - 1, -1, -1)])]
    node_of = np.full(n, -1, np.int64)
    node_of[rows] = np.arange(len(rows))
    parent = np.where(rows == 0, -1, node_of[rep[parent_row[rows]]])
    return Merged(node_of[rep], rows, parent, depth[rows], shown[rows], _COMPOSE[display[rep], transform])


def turn_counters(counters: np.ndarray, frame: np.ndarray) -> np.ndarray:
    """Influence counters (rows of up, right, down, left x black, white,
    neutral) of rows in their own frames, turned into the frames
    ``frame`` maps them to (the directions permuted, colours kept)."""
    counters = np.asarray(counters)
    out = np.empty_like(counters)
    for t in TRANSFORMS:
        rows = np.flatnonzero(frame == t)
        if not len(rows):
            continue
        for d in range(4):
            to = DIRECTION_MAP[t][d]
            out[rows, 3 * to : 3 * to + 3] = counters[rows, 3 * d : 3 * d + 3]
    return out


__all__ = ["Merged", "merge", "turn_counters"]
