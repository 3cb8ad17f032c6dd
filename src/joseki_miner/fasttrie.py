"""The counted trie of many sequences at once, by sorting (numba): the same
nodes, counts and counters as ``trie.Trie``, for millions of sequences.

Sort the sequences; then a node is a prefix, its count is the length of the
run of sorted sequences that share it, and the order in which prefixes first
appear is the trie's canonical order (depth-first pre-order, children by
key).  So one pass over the sorted sequences and their common-prefix lengths
gives every node without a node table or a hash: memory is the sequences
themselves, and the 96% of nodes that one sequence alone reaches are never
made when only nodes counted at least twice are asked for.

Knows trie keys and influence classes; nothing of boards, games or files.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_KEY_BITS = 9  # keys 0..361 stored as key + 1; 0 marks "sequence ended"
_PER_WORD = 64 // _KEY_BITS


@njit(cache=True, nogil=True)
def _pack(offsets, keys, words):
    """Row i of ``words``: sequence i, 7 keys a word, so that comparing rows
    word by word is comparing sequences (a prefix sorts first)."""
    for s in range(len(offsets) - 1):
        for j in range(offsets[s], offsets[s + 1]):
            d = j - offsets[s]
            w = d // _PER_WORD
            shift = 63 - _KEY_BITS * (d % _PER_WORD + 1)
            words[s, w] |= np.uint64(keys[j] + 1) << np.uint64(shift)


@njit(cache=True, inline="always")
def _less(words, a, b):
    """Does row a of ``words`` sort before row b?"""
    for w in range(words.shape[1]):
        if words[a, w] != words[b, w]:
            return words[a, w] < words[b, w]
    return False


@njit(cache=True, nogil=True)
def _merge_runs(words, starts):
    """The sorted order of rows made of sorted runs that begin at ``starts``
    (and end at the next start or the last row): runs merged pairwise, the
    earlier run first among equal rows (as a stable sort)."""
    n = words.shape[0]
    order = np.arange(n)
    spare = np.empty(n, np.int64)
    bounds = np.append(starts, n)
    while len(bounds) > 2:
        merged = np.empty((len(bounds) + 2) // 2, np.int64)
        k = 0
        for i in range(0, len(bounds) - 1, 2):
            lo = bounds[i]
            mid = bounds[i + 1]
            hi = bounds[i + 2] if i + 2 < len(bounds) else mid
            a, b, out = lo, mid, lo
            while a < mid and b < hi:
                if _less(words, order[b], order[a]):
                    spare[out] = order[b]
                    b += 1
                else:
                    spare[out] = order[a]
                    a += 1
                out += 1
            while a < mid:
                spare[out] = order[a]
                a += 1
                out += 1
            while b < hi:
                spare[out] = order[b]
                b += 1
                out += 1
            merged[k] = lo
            k += 1
        merged[k] = n
        order, spare = spare, order
        bounds = merged[: k + 1]
    return order


@njit(cache=True, nogil=True)
def _gather(order, offsets, keys, classes):
    """The sequences in ``order``: their offsets, keys and classes."""
    new_offsets = np.zeros(len(order) + 1, np.int64)
    new_keys = np.empty_like(keys)
    new_classes = np.empty_like(classes)
    at = 0
    for r in range(len(order)):
        s = order[r]
        for j in range(offsets[s], offsets[s + 1]):
            new_keys[at] = keys[j]
            new_classes[at] = classes[j]
            at += 1
        new_offsets[r + 1] = at
    return new_offsets, new_keys, new_classes


@njit(cache=True, nogil=True)
def _common_prefixes(order, offsets, keys):
    """lcp[r]: length of the common prefix of sorted sequences r - 1 and r."""
    lcp = np.zeros(len(order), np.int64)
    for r in range(1, len(order)):
        a, b = order[r - 1], order[r]
        a0, b0 = offsets[a], offsets[b]
        m = min(offsets[a + 1] - a0, offsets[b + 1] - b0)
        k = 0
        while k < m and keys[a0 + k] == keys[b0 + k]:
            k += 1
        lcp[r] = k
    return lcp


@njit(cache=True, nogil=True)
def _kept_depths(order, offsets, lcp, min_count, max_depth):
    """kept[r]: the deepest node first reached by sorted sequence r that is
    counted at least ``min_count`` times (lcp[r] when none).  A node's count
    is the number of sorted sequences from the one that opened it to the
    one that leaves it; counts only fall with depth, so a sequence's kept
    new nodes are those down to kept[r]."""
    n = len(order)
    kept = lcp.copy()
    opened = np.zeros(max_depth + 1, np.int64)  # rank that opened the node at each depth of the path
    top = 0
    for r in range(n + 1):
        common = lcp[r] if r < n else 0
        for d in range(top, common, -1):  # close the path's nodes below the common prefix
            if r - opened[d] >= min_count and kept[opened[d]] < d:
                kept[opened[d]] = d
        if r == n:
            break
        s = order[r]
        length = offsets[s + 1] - offsets[s]
        for d in range(common + 1, length + 1):
            opened[d] = r
        top = length
    return kept


@njit(cache=True, nogil=True)
def _fill(order, offsets, keys, classes, lcp, kept, max_depth, parent, depth, key, count, counters):
    """Number the kept nodes in order of first appearance (pre-order) and
    add every sequence to the kept nodes of its path."""
    path = np.zeros(max_depth + 1, np.int64)  # node number at each depth of the path; 0 is the root
    n_nodes = 1
    top = 0  # deepest kept node on the path
    for r in range(len(order)):
        s = order[r]
        base = offsets[s]
        if kept[r] > lcp[r]:
            for d in range(lcp[r] + 1, kept[r] + 1):
                parent[n_nodes] = path[d - 1]
                depth[n_nodes] = d
                key[n_nodes] = keys[base + d - 1]
                path[d] = n_nodes
                n_nodes += 1
            top = kept[r]
        elif lcp[r] < top:
            top = lcp[r]
        count[0] += 1
        for d in range(1, top + 1):
            node = path[d]
            count[node] += 1
            packed = classes[base + d - 1]
            for direction in range(4):
                counters[node, 3 * direction + ((packed >> (2 * direction)) & 3)] += 1


def _max_depth(offsets: np.ndarray) -> int:
    return int(np.diff(offsets).max()) if len(offsets) > 1 else 0


def _words(offsets: np.ndarray, keys: np.ndarray, max_depth: int) -> np.ndarray:
    words = np.zeros((len(offsets) - 1, max(1, -(-max_depth // _PER_WORD))), dtype=np.uint64)
    _pack(offsets, keys, words)
    return words


def _sorted_order(words: np.ndarray) -> np.ndarray:
    return np.lexsort(words.T[::-1]) if len(words) else np.zeros(0, np.int64)  # first word most significant


def sort_sequences(offsets: np.ndarray, keys: np.ndarray, classes: np.ndarray):
    """The sequences (offsets, keys, packed classes) reordered into sorted
    order: parts sorted this way, joined, count with ``runs`` (a merge, not
    a sort), so a stream can sort each part while it reads the next."""
    offsets = np.asarray(offsets, dtype=np.int64)
    keys = np.asarray(keys, dtype=np.int16)
    order = _sorted_order(_words(offsets, keys, _max_depth(offsets)))
    return _gather(order, offsets, keys, np.asarray(classes, dtype=np.uint8))


def count_sequences(offsets: np.ndarray, keys: np.ndarray, classes: np.ndarray,
                    min_count: int = 1, runs: np.ndarray | None = None) -> tuple[dict[str, np.ndarray], int]:
    """The trie of sequences keys[offsets[i]:offsets[i+1]] (``classes``: per
    key, the packed influence classes of ``classes_of``), as
    ``trie.Trie.to_arrays`` gives it: the root and the nodes counted at
    least ``min_count`` times, in canonical order.  Also returns the number
    of nodes of the whole trie.  ``runs``: the first sequence of each run
    already in sorted order (``sort_sequences``), when that is so."""
    offsets = np.asarray(offsets, dtype=np.int64)
    keys = np.asarray(keys, dtype=np.int16)
    classes = np.asarray(classes, dtype=np.uint8)
    n = len(offsets) - 1
    max_depth = _max_depth(offsets)
    words = _words(offsets, keys, max_depth)
    if runs is not None and n:
        order = _merge_runs(words, np.asarray(runs, dtype=np.int64))
    else:
        order = _sorted_order(words)
    del words
    lcp = _common_prefixes(order, offsets, keys)
    total = 1 + int(offsets[-1] - offsets[0] - lcp.sum())
    kept = _kept_depths(order, offsets, lcp, max(1, min_count), max_depth)
    size = 1 + int((kept - lcp).sum())
    parent = np.full(size, -1, np.int64)
    depth = np.zeros(size, np.int64)
    key = np.full(size, -1, np.int16)
    count = np.zeros(size, np.int64)
    counters = np.zeros((size, 12), np.int32)
    _fill(order, offsets, keys, classes, lcp, kept, max_depth, parent, depth, key, count, counters)
    arrays = {"node": np.arange(size, dtype=np.int64), "parent": parent, "depth": depth, "key": key,
              "count": count, "counters": counters}
    return arrays, total


def pack_classes(classes: np.ndarray) -> np.ndarray:
    """Per key, its four direction classes (n, 4) in one byte, 2 bits each
    (up in the lowest): a quarter of the memory for the sequences kept."""
    c = np.asarray(classes, dtype=np.uint8).reshape(-1, 4)
    return c[:, 0] | (c[:, 1] << 2) | (c[:, 2] << 4) | (c[:, 3] << 6)


def classes_of(scores: np.ndarray, neutral: int) -> np.ndarray:
    """Packed influence classes of scores (n, 4): per direction 0 black
    (< -neutral), 1 white (> neutral), 2 neutral (as influence.classify, by
    trie slot), 2 bits each, as ``pack_classes``."""
    scores = np.ascontiguousarray(scores, dtype=np.int16).reshape(-1, 4)
    out = np.empty(len(scores), dtype=np.uint8)
    _classes(scores, neutral, out)
    return out


@njit(cache=True, nogil=True)
def _classes(scores, neutral, out):
    for i in range(len(scores)):
        packed = 0
        for direction in range(4):
            s = scores[i, direction]
            packed |= (0 if s < -neutral else 1 if s > neutral else 2) << (2 * direction)
        out[i] = packed


# --- Counting a stream of sorted sequences in bounded memory ---------------
#
# The sequences of millions of games need not all be in memory at once: sorted
# runs of them (kept on disk by the caller) are merged a block at a time
# (``merge_sorted``), and ``StreamCounter`` counts the merged stream as it
# passes.  A node is closed, and its count known, when the stream leaves its
# prefix; only the nodes counted at least ``min_count`` times are kept, so
# what is held is the trie itself plus the open path.  Kept nodes are
# numbered at the end in the order they were opened (the rank of the first
# sequence through them, then depth), which is the canonical pre-order of
# ``count_sequences``.


def width_of(max_depth: int) -> int:
    """Words a packed sequence of up to ``max_depth`` keys takes (``_pack``)."""
    return max(1, -(-max_depth // _PER_WORD))


@njit(cache=True, nogil=True)
def _not_above(words, lo, row):
    """The number of sorted rows of ``words`` from ``lo`` on that do not sort
    after ``row``."""
    a, b = lo, words.shape[0]
    while a < b:
        m = (a + b) // 2
        after = False
        for w in range(words.shape[1]):
            if words[m, w] != row[w]:
                after = words[m, w] > row[w]
                break
        if after:
            b = m
        else:
            a = m + 1
    return a - lo


def _block_words(block, width: int) -> np.ndarray:
    offsets, keys, _ = block
    words = np.zeros((len(offsets) - 1, width), dtype=np.uint64)
    _pack(offsets, keys, words)
    return words


def cut(block, lo: int, hi: int):
    """Sequences lo..hi of a block (offsets, keys, classes)."""
    offsets, keys, classes = block
    a, b = offsets[lo], offsets[hi]
    return offsets[lo:hi + 1] - a, keys[a:b], classes[a:b]


def merge_sorted(runs, width: int):
    """The blocks of sorted runs (each an iterable of sorted blocks:
    offsets, keys, packed classes), merged into sorted blocks: offsets,
    keys, classes and the order of their sequences (None when they are in
    order).  Keys fit in ``width`` words (``width_of``).  Each round takes,
    from the block at the head of every run, the sequences that sort no
    later than the smallest last sequence among those blocks: nothing still
    unread can sort before them."""
    iters = [iter(r) for r in runs]
    heads = [_next_head(it, width) for it in iters]  # per run: [block, words, first unread], None when done
    live = [i for i, h in enumerate(heads) if h is not None]
    while live:
        cutoff_run = min(live, key=lambda i: _last_key(heads[i]))
        cutoff = heads[cutoff_run][1][-1]
        pieces, words = [], []
        for i in live:
            block, w, at = heads[i]
            take = len(w) - at if i == cutoff_run else _not_above(w, at, cutoff)
            if take:
                pieces.append(cut(block, at, at + take))
                words.append(w[at:at + take])
                heads[i][2] = at + take
        if len(pieces) == 1:
            yield (*pieces[0], None)
        else:
            starts = np.cumsum([0] + [len(w) for w in words[:-1]]).astype(np.int64)
            yield (*_concat(pieces), _merge_runs(np.concatenate(words), starts))
        for i in live:
            if heads[i][2] == len(heads[i][1]):
                heads[i] = _next_head(iters[i], width)
        live = [i for i in live if heads[i] is not None]


def in_order(offsets, keys, classes, order):
    """A block of ``merge_sorted`` with its sequences in order."""
    return (offsets, keys, classes) if order is None else _gather(order, offsets, keys, classes)


def _last_key(head) -> tuple:
    return tuple(head[1][-1])


def _next_head(it, width: int):
    for block in it:
        if len(block[0]) > 1:
            return [block, _block_words(block, width), 0]
    return None


def _concat(pieces):
    offsets = [np.zeros(1, np.int64)]
    at = 0
    for o, k, _ in pieces:
        offsets.append(o[1:] + at)
        at += len(k)
    return (np.concatenate(offsets), np.concatenate([k for _, k, _ in pieces]),
            np.concatenate([c for _, _, c in pieces]))


@njit(cache=True, nogil=True)
def _count_block(offsets, keys, classes, order, min_count, rank, final, path_keys, path_first, state, opened,
                 counters, out_opened, out_depth, out_key, out_count, out_counters):
    """Count a block of sequences, sorted in ``order``, whose first has
    global rank ``rank``, after the path the blocks before left
    (``path_keys``, the classes of the sequence that opened each node
    ``path_first``, ``opened`` and ``counters``, by depth; ``state``: the
    path's depth and the nodes seen so far); ``final``: then close the
    whole path.  Writes the nodes it closes counted at least ``min_count``
    times to the out arrays (with the rank that opened them); returns how
    many.  A node's counters hold the sequences after the one that opened
    it; the opener's classes are added when it closes, so the 96% of
    nodes that one sequence alone reaches cost no counting."""
    n = len(order)
    n_out = 0
    for r in range(n + 1):
        if r == n and not final:
            break
        common = 0
        length = 0
        base = 0
        if r < n:
            s = order[r]
            base = offsets[s]
            length = offsets[s + 1] - base
            m = min(length, state[0])
            while common < m and keys[base + common] == path_keys[common + 1]:
                common += 1
        for d in range(state[0], common, -1):  # close the path's nodes below the common prefix
            c = rank + r - opened[d]
            if c >= min_count:
                out_opened[n_out] = opened[d]
                out_depth[n_out] = d
                out_key[n_out] = path_keys[d]
                out_count[n_out] = c
                first = path_first[d]
                for direction in range(4):
                    counters[d, 3 * direction + ((first >> (2 * direction)) & 3)] += 1
                out_counters[n_out] = counters[d]
                n_out += 1
            counters[d] = 0
        if r == n:
            break
        for d in range(1, common + 1):
            packed = classes[base + d - 1]
            for direction in range(4):
                counters[d, 3 * direction + ((packed >> (2 * direction)) & 3)] += 1
        for d in range(common + 1, length + 1):
            opened[d] = rank + r
            path_keys[d] = keys[base + d - 1]
            path_first[d] = classes[base + d - 1]
        state[1] += length - common
        state[0] = length
    return n_out


@njit(cache=True)
def _parents(depth):
    """Each node's parent in pre-order (0 is the root, at depth 0): the last
    node before it one level up."""
    last = np.zeros(depth.max() + 1 if len(depth) else 1, np.int64)
    parent = np.empty(len(depth), np.int64)
    for i in range(len(depth)):
        d = depth[i]
        parent[i] = last[d - 1] if d > 0 else -1
        last[d] = i
    return parent


_KEPT_TYPES = (np.int64, np.int64, np.int16, np.int64, np.int32)  # opened, depth, key, count, counters


class StreamCounter:
    """The trie of sequences given in sorted order, block by block (``add``),
    as ``count_sequences`` gives it (``finish``), holding only the nodes
    counted at least ``min_count`` times and the current path."""

    def __init__(self, max_depth: int, min_count: int = 1) -> None:
        self.min_count = max(1, min_count)
        self.levels = max_depth + 1
        self.path_keys = np.zeros(self.levels, np.int16)
        self.path_first = np.zeros(self.levels, np.uint8)  # the classes of the sequence that opened each node
        self.opened = np.zeros(self.levels, np.int64)  # the rank that opened each node of the path
        self.counters = np.zeros((self.levels, 12), np.int64)
        self.state = np.zeros(2, np.int64)  # the path's depth; the nodes seen
        self.sequences = 0
        self.kept: list[tuple] = []

    def add(self, offsets: np.ndarray, keys: np.ndarray, classes: np.ndarray, order: np.ndarray | None = None) -> None:
        """The next block of the sorted stream (in ``order``, when given)."""
        n = len(offsets) - 1
        order = np.arange(n) if order is None else order
        self._count(np.asarray(offsets, np.int64), np.asarray(keys, np.int16), np.asarray(classes, np.uint8),
                    order, False)
        self.sequences += n

    def _count(self, offsets, keys, classes, order, final: bool) -> None:
        out = self._out(len(keys) + self.levels)  # a node closes at most once a key, and the path at the end
        n = _count_block(offsets, keys, classes, order, self.min_count, self.sequences, final, self.path_keys,
                         self.path_first, self.state, self.opened, self.counters, *out)
        if n:
            self.kept.append(tuple(a[:n].copy() for a in out))

    @staticmethod
    def _out(room: int) -> tuple[np.ndarray, ...]:
        return tuple(np.empty((room, 12) if i == 4 else room, t) for i, t in enumerate(_KEPT_TYPES))

    def finish(self) -> tuple[dict[str, np.ndarray], int]:
        """The node arrays (the root, then the kept nodes in canonical order)
        and the number of nodes of the whole trie."""
        self._count(np.zeros(1, np.int64), np.zeros(0, np.int16), np.zeros(0, np.uint8), np.zeros(0, np.int64), True)
        columns = [list(c) for c in zip(self._out(0), *self.kept)]
        self.kept = []
        opened, depth = (np.concatenate(columns[i]) for i in (0, 1))
        # canonical pre-order: by the rank that opened the node, then depth
        order = np.argsort(opened * self.levels + depth, kind="stable")
        del opened
        depth = np.r_[0, depth[order]]
        arrays = {"node": np.arange(len(depth), dtype=np.int64), "parent": _parents(depth), "depth": depth}
        # the rest a column at a time, each dropped as it is placed: a large
        # trie's columns are gigabytes
        for name, i, root in (("key", 2, -1), ("count", 3, self.sequences), ("counters", 4, 0)):
            column = np.concatenate(columns[i])
            columns[i] = None
            placed = np.empty((len(depth),) + column.shape[1:], column.dtype)
            placed[0] = root
            np.take(column, order, axis=0, out=placed[1:])
            del column
            arrays[name] = placed
        return arrays, 1 + int(self.state[1])
