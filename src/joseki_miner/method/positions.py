"""The position a corner sequence reaches: its stones as the board holds
them (captures taken, as ``board`` replays them), read under the 8 board
symmetries, with the player to move.  Two move orders that reach one
position reach one node where orders are merged (``orders``), whatever
corner and orientation each was played in.

* ``position_of``: the position of one line of trie keys, exactly: the
  least of its 8 images (black stones, white stones, sorted), the player
  to move (a tenuki passes the move), how many times the line stood on it
  before (a ko fought back and forth returns to a position: each return is
  a position of its own, so one line never holds one position twice), and
  the transform to that image;
* ``position_keys``: every node of a node table at once, compiled: one
  replay of the table's paths, each node's position as a 128-bit key (two
  independent Zobrist hashes of the image the first hash finds least) and
  the transform to it.  Nodes share a key exactly when ``position_of``
  gives them one position (a collision of both 64-bit hashes aside);
* ``key_of``: the key of stones given, as a node standing on them first
  would have it (``joseki position``);
* ``position_order``: nodes in the order of their keys (the position
  index's order);
* ``same_position``: the other nodes on a node's position (the book's
  "also reached by"); ``sorted_alike`` finds them in the index itself.

Colours are the tree's (its Black starts the corner): a position and its
colours swapped are two positions here.  Knows trie keys, the board and
the symmetries; nothing of counts, games or files.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from joseki_miner.method.board import Board
from joseki_miner.method.points import BLACK, NPOINTS, TENUKI, WHITE, neighbours
from joseki_miner.method.symmetry import POINT_MAP, TRANSFORMS

SEED = 20070523  # the hashes' random table: any fixed seed gives the same grouping
REPEATS = 64  # returns to one position a line may make and keep apart (a longer ko fight shares the last)


def position_of(keys: Sequence[int]) -> tuple[tuple[tuple[int, ...], tuple[int, ...], int, int], int]:
    """The position after the trie keys ``keys`` (Black first, colours
    alternating, TENUKI a move elsewhere): (least image: black points,
    white points, the player to move: 0 Black, 1 White, and how many
    times the line stood on it before) and the first transform that gives
    it."""
    board = Board()
    seen = []  # the least image after each entry, the last one's at the end
    t = 0
    for i, k in enumerate([None, *keys]):
        if k is not None and k != TENUKI:
            board.play(BLACK if (i - 1) % 2 == 0 else WHITE, k)
        black = [p for p in range(NPOINTS) if board.grid[p] == BLACK]
        white = [p for p in range(NPOINTS) if board.grid[p] == WHITE]
        b, w, t = min(
            (tuple(sorted(POINT_MAP[t][p] for p in black)), tuple(sorted(POINT_MAP[t][p] for p in white)), t)
            for t in TRANSFORMS
        )
        seen.append((b, w))
    last = len(keys)
    repeat = sum(1 for j in range(last % 2, last, 2) if seen[j] == seen[last])
    return (*seen[last], last % 2, repeat), t


def _tables() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(SEED)
    zobrist = rng.integers(0, 2**63 - 1, size=(2, 2, NPOINTS), dtype=np.int64)  # hash, colour, point
    to_move = rng.integers(0, 2**63 - 1, size=2, dtype=np.int64)
    repeat = rng.integers(0, 2**63 - 1, size=(2, REPEATS), dtype=np.int64)
    point_map = np.array([POINT_MAP[t][:NPOINTS] for t in TRANSFORMS], np.int64)
    nb = np.full((NPOINTS, 4), -1, np.int64)
    for p in range(NPOINTS):
        for j, q in enumerate(neighbours(p)):
            nb[p, j] = q
    return zobrist, to_move, repeat, point_map, nb


def _keys_loop(parent_row, depth, key, zobrist, to_move, repeat, point_map, nb, hi, lo, transform):
    n = len(parent_row)
    levels = int(depth.max()) + 1 if n else 1
    grid = np.zeros((levels, NPOINTS), np.int8)
    h = np.zeros((levels, 2, 8), np.int64)  # per level: each hash under each transform
    least = np.zeros((levels, 2), np.int64)  # per level: the least image's hashes
    at_level = np.full(levels, -1, np.int64)
    mark = np.zeros(NPOINTS, np.int64)
    stamp = 0
    stack = np.empty(NPOINTS, np.int64)
    chain = np.empty(NPOINTS, np.int64)
    for i in range(n):
        d = depth[i]
        if d > 0:
            if at_level[d - 1] != parent_row[i]:
                return -1 - i  # not parents-first in walk order: the caller falls back
            grid[d] = grid[d - 1]
            h[d] = h[d - 1]
            k = key[i]
            if k >= 0 and k < NPOINTS:
                colour = 1 if d % 2 == 1 else 2  # 1 black, 2 white
                c = colour - 1
                if grid[d, k] != 0:  # overwritten (FF[5]): the old stone goes first
                    old = grid[d, k] - 1
                    for t in range(8):
                        h[d, 0, t] ^= zobrist[0, old, point_map[t, k]]
                        h[d, 1, t] ^= zobrist[1, old, point_map[t, k]]
                grid[d, k] = colour
                for t in range(8):
                    h[d, 0, t] ^= zobrist[0, c, point_map[t, k]]
                    h[d, 1, t] ^= zobrist[1, c, point_map[t, k]]
                captured = False
                for j in range(5):  # the opponent's chains beside the move, then the mover's own (suicide)
                    start = nb[k, j] if j < 4 else k
                    if start < 0:
                        continue
                    want = 3 - colour if j < 4 else colour
                    if grid[d, start] != want or (j == 4 and captured):
                        continue
                    stamp += 1
                    top = 0
                    size = 0
                    stack[top] = start
                    top += 1
                    mark[start] = stamp
                    free = False
                    while top > 0:
                        top -= 1
                        p = stack[top]
                        chain[size] = p
                        size += 1
                        for m in range(4):
                            q = nb[p, m]
                            if q < 0 or mark[q] == stamp:
                                continue
                            if grid[d, q] == 0:
                                free = True
                            elif grid[d, q] == want:
                                mark[q] = stamp
                                stack[top] = q
                                top += 1
                    if not free:
                        gone = want - 1
                        for s in range(size):
                            p = chain[s]
                            grid[d, p] = 0
                            for t in range(8):
                                h[d, 0, t] ^= zobrist[0, gone, point_map[t, p]]
                                h[d, 1, t] ^= zobrist[1, gone, point_map[t, p]]
                        if j < 4:
                            captured = True
        at_level[d] = i
        best = 0
        for t in range(1, 8):
            a, b = h[d, 0, t], h[d, 0, best]
            if a < b or (a == b and h[d, 1, t] < h[d, 1, best]):
                best = t
        least[d, 0] = h[d, 0, best]
        least[d, 1] = h[d, 1, best]
        times = 0  # the line stood on this position before (a ko fought back and forth)
        for e in range(d - 2, -1, -2):
            if least[e, 0] == least[d, 0] and least[e, 1] == least[d, 1]:
                times += 1
        times = min(times, REPEATS - 1)
        side = d % 2
        hi[i] = least[d, 0] ^ to_move[side] ^ repeat[0, times]
        lo[i] = least[d, 1] ^ to_move[1 - side] ^ repeat[1, times]
        transform[i] = best
    return n


@functools.cache
def _compiled():
    from numba import njit

    return njit(cache=True)(_keys_loop)


def position_keys(
    parent_row: np.ndarray, depth: np.ndarray, key: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each node's position (module docstring) as two int64 hashes and the
    transform to its least image; rows parents first in the order of a
    depth-first walk (a trie table's), the root first."""
    parent_row = np.asarray(parent_row, np.int64)
    depth = np.asarray(depth, np.int64)
    key = np.asarray(key, np.int64)
    n = len(parent_row)
    hi, lo, transform = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int8)
    done = _compiled()(parent_row, depth, key, *_tables(), hi, lo, transform)
    if done != n:
        raise ValueError(f"row {-1 - done} does not follow its parent in a depth-first walk")
    return hi, lo, transform


def position_order(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """The rows in the order of their keys (``hi``, then ``lo``), the rows
    of one key in row order.  A stable sort by ``hi`` alone gives it, in
    a third of the time of a lexsort by three keys: rows share ``hi`` only
    where they share the position, unless two positions' first hashes
    collide, which a sort by both keys then orders."""
    hi, lo = np.asarray(hi, np.int64), np.asarray(lo, np.int64)
    order = np.argsort(hi, kind="stable")
    by_hi, by_lo = hi[order], lo[order]
    tie = np.flatnonzero(by_hi[1:] == by_hi[:-1])
    if len(tie) and bool((by_lo[tie + 1] < by_lo[tie]).any()):
        order = np.lexsort((lo, hi))  # stable too: one key's rows stay in row order
    return order


def same_position(
    hi: np.ndarray, lo: np.ndarray, rows: Sequence[int], order: np.ndarray | None = None
) -> dict[int, list[int]]:
    """For each of ``rows``, the other rows standing on its position (the
    same key: the other move orders that reach it), in row order; rows
    alone on theirs are left out.  ``order``: ``position_order`` of the
    keys, where it is known."""
    hi, lo = np.asarray(hi, np.int64), np.asarray(lo, np.int64)
    if order is None:
        order = position_order(hi, lo)
    at = np.empty(len(hi), np.int64)
    at[order] = np.arange(len(hi))
    rows = list(rows)
    found = sorted_alike(hi[order], lo[order], at[np.asarray(rows, np.int64)])
    return {r: order[found[a]].tolist() for r, a in zip(rows, at[rows].tolist()) if a in found}


def sorted_alike(hi: np.ndarray, lo: np.ndarray, at: np.ndarray) -> dict[int, np.ndarray]:
    """For each of rows ``at`` of keys in ``position_order`` (the position
    index's order), the other rows with its key, in order; rows alone on
    theirs are left out.  It searches the asked rows' keys alone, so it
    costs the rows asked, not the index."""
    at = np.asarray(at, np.int64)
    first = np.searchsorted(hi, hi[at], "left")
    last = np.searchsorted(hi, hi[at], "right")
    found = {}
    for a, x, y in zip(at.tolist(), first.tolist(), last.tolist()):
        if y - x > 1:
            same = x + np.flatnonzero(lo[x:y] == lo[a])  # a collision of first hashes is told apart here
            if len(same) > 1:
                found[a] = same[same != a]
    return found


def key_of(black: Sequence[int], white: Sequence[int], to_move: int) -> tuple[int, int, int]:
    """The key ``position_keys`` gives a node standing on these stones
    (points; the tree's colours) with ``to_move`` (0 Black, 1 White) to
    play, reached for the first time; and the transform to its least
    image."""
    zobrist, to_move_table, repeat, point_map, _ = _tables()
    h = np.zeros((2, 8), np.int64)
    for colour, stones in ((0, black), (1, white)):
        for p in stones:
            for t in range(8):
                h[0, t] ^= zobrist[0, colour, point_map[t, p]]
                h[1, t] ^= zobrist[1, colour, point_map[t, p]]
    best = 0
    for t in range(1, 8):
        if (h[0, t], h[1, t]) < (h[0, best], h[1, best]):
            best = t
    hi = int(h[0, best] ^ to_move_table[to_move] ^ repeat[0, 0])
    lo = int(h[1, best] ^ to_move_table[1 - to_move] ^ repeat[1, 0])
    return hi, lo, best


__all__ = ["position_of", "position_keys", "key_of", "position_order", "same_position", "sorted_alike", "SEED"]
