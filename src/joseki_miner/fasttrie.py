"""The counted trie of many sequences at once, by sorting (numba): the same
nodes, counts and counters as ``trie.Trie``, for millions of sequences.

Sort the sequences; then a node is a prefix, its count is the length of the
run of sorted sequences that share it, and the order in which prefixes first
appear is the trie's canonical order (depth-first pre-order, children by
key).  So one pass over the sorted sequences (``StreamCounter``) gives
every node without a node table or a hash: a node is closed, and its count
known, when the stream leaves its prefix, and only the nodes counted at
least ``min_count`` times are kept (the 96% of nodes that one sequence
alone reaches are never made when only nodes counted at least twice are
asked for).  What is held is the trie kept and the current path, so the
sorted stream can come a block at a time: ``merge_sorted`` merges sorted
runs (parts sorted as they come, ``sort_sequences``; on disk, for a large
collection) block by block.

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
def _less(x, a, y, b):
    """Does row a of words ``x`` sort before row b of words ``y``?"""
    for w in range(x.shape[1]):
        if x[a, w] != y[b, w]:
            return x[a, w] < y[b, w]
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
                if _less(words, order[b], words, order[a]):
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


def _max_depth(offsets: np.ndarray) -> int:
    return int(np.diff(offsets).max()) if len(offsets) > 1 else 0


def _words(offsets: np.ndarray, keys: np.ndarray, width: int) -> np.ndarray:
    words = np.zeros((len(offsets) - 1, width), dtype=np.uint64)
    _pack(offsets, keys, words)
    return words


def _sorted_order(words: np.ndarray) -> np.ndarray:
    """The stable sorted order of the rows of ``words`` (np.lexsort with the
    first word most significant): a merge sort, every row a run of its own,
    compiled; twice as fast as the five passes of lexsort."""
    return _merge_runs(words, np.arange(len(words), dtype=np.int64))


def sort_sequences(offsets: np.ndarray, keys: np.ndarray, classes: np.ndarray):
    """The sequences (offsets, keys, packed classes) reordered into sorted
    order: a stream sorts each part while it reads the next, and the count
    merges the sorted parts (``merge_sorted``) instead of sorting them all."""
    offsets = np.asarray(offsets, dtype=np.int64)
    keys = np.asarray(keys, dtype=np.int16)
    order = _sorted_order(_words(offsets, keys, width_of(_max_depth(offsets))))
    return _gather(order, offsets, keys, np.asarray(classes, dtype=np.uint8))


def count_sequences(offsets: np.ndarray, keys: np.ndarray, classes: np.ndarray,
                    min_count: int = 1) -> tuple[dict[str, np.ndarray], int]:
    """The trie of sequences keys[offsets[i]:offsets[i+1]] (``classes``: per
    key, the packed influence classes of ``classes_of``), as
    ``trie.Trie.to_arrays`` gives it: the root and the nodes counted at
    least ``min_count`` times, in canonical order.  Also returns the number
    of nodes of the whole trie.  One sort, then ``StreamCounter``; the
    build merges sorted runs into the counter instead."""
    offsets, keys, classes = sort_sequences(offsets, keys, classes)
    counter = StreamCounter(_max_depth(offsets), min_count)
    counter.add(offsets, keys, classes)
    return counter.finish()


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


def width_of(max_depth: int) -> int:
    """Words a packed sequence of up to ``max_depth`` keys takes (``_pack``)."""
    return max(1, -(-max_depth // _PER_WORD))


@njit(cache=True, nogil=True)
def _not_above(words, lo, last, row):
    """The number of sorted rows of ``words`` from ``lo`` on that do not sort
    after row ``row`` of ``last``."""
    a, b = lo, words.shape[0]
    while a < b:
        m = (a + b) // 2
        if _less(last, row, words, m):
            b = m
        else:
            a = m + 1
    return a - lo


def cut(block, lo: int, hi: int):
    """Sequences lo..hi of a block (offsets, keys, classes)."""
    offsets, keys, classes = block
    a, b = offsets[lo], offsets[hi]
    return offsets[lo:hi + 1] - a, keys[a:b], classes[a:b]


def merge_sorted(runs, width: int, step: int = 2048):
    """The blocks of sorted runs (each an iterable of sorted blocks:
    offsets, keys, packed classes), merged into sorted blocks: offsets,
    keys, classes and the order of their sequences (None when they are in
    order).  Keys fit in ``width`` words (``width_of``).  Each round takes,
    from the block at the head of every run, the sequences that sort no
    later than the smallest among the sequences ``step`` rows on in each
    (or their last): nothing still unread can sort before them, and a
    round is at most about ``step`` sequences a run, so the count can go
    on with one round while the next is merged."""
    iters = [iter(r) for r in runs]
    heads = [_next_head(it, width) for it in iters]  # per run: [block, words, first unread], None when done
    live = [i for i, h in enumerate(heads) if h is not None]
    while live:
        cutoff_run = min(live, key=lambda i: _step_key(heads[i], step))
        block, cutoff, at = heads[cutoff_run]
        row = min(at + step, len(cutoff)) - 1  # the cutoff: this row of that run
        pieces, words = [], []
        for i in live:
            block, w, at = heads[i]
            take = row + 1 - at if i == cutoff_run else _not_above(w, at, cutoff, row)
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


def _step_key(head, step: int) -> tuple:
    """The sequence ``step`` rows on in a run's head block (or its last)."""
    return tuple(head[1][min(head[2] + step, len(head[1])) - 1])


def _next_head(it, width: int):
    for block in it:
        if len(block[0]) > 1:
            return [block, _words(block[0], block[1], width), 0]
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
def _count_block(offsets, keys, classes, order, min_count, rank, final, segments, path_keys, path_first, counters,
                 state, parent, depth, key, count, node_counters):
    """Count a block of sequences, sorted in ``order``, whose first has
    global rank ``rank``, after the path the blocks before left; ``final``:
    then close the whole path.  The nodes it closes counted at least
    ``min_count`` times go to the node arrays at their numbers.

    The path is held by depth (``path_keys``; ``path_first``, the classes
    of the sequence that opened the node; ``counters`` of the sequences
    after that one) and as segments, the nodes one sequence opened
    together (``segments``: first depth, the sequence's rank, the nodes
    kept before it opened them); ``state``: the path's depth, the number
    of segments, the nodes seen and the nodes kept so far.

    - The nodes of a segment share their count, so a segment that one
      sequence alone reached (most nodes) closes at once.
    - A node's number is known when it opens: before it in pre-order come
      the root, the kept nodes closed by then and its ancestors, which are
      kept if it is (counts fall with depth).
    - Counters start at the second sequence through a node (the opener's
      classes are added when it is kept), so nodes of count 1 cost none."""
    n = len(order)
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
        top = state[0]
        while state[1] > 0 and top > common:  # close the path's nodes below the common prefix
            g = state[1] - 1
            start = segments[g, 0]
            low = max(start, common + 1)
            c = rank + r - segments[g, 1]
            if c >= min_count:
                for d in range(top, low - 1, -1):
                    i = segments[g, 2] + d
                    if d > start:
                        parent[i] = i - 1
                    else:
                        parent[i] = segments[g - 1, 2] + d - 1 if g > 0 else 0
                    depth[i] = d
                    key[i] = path_keys[d]
                    count[i] = c
                    first = path_first[d]
                    for direction in range(4):
                        counters[d, 3 * direction + ((first >> (2 * direction)) & 3)] += 1
                    node_counters[i] = counters[d]
                    counters[d] = 0
                    state[3] += 1
            elif c > 1:
                for d in range(low, top + 1):
                    counters[d] = 0
            if low == start:
                state[1] -= 1
            top = low - 1
        if r == n:
            break
        for d in range(1, common + 1):
            packed = classes[base + d - 1]
            for direction in range(4):
                counters[d, 3 * direction + ((packed >> (2 * direction)) & 3)] += 1
        if length > common:
            g = state[1]
            segments[g, 0] = common + 1
            segments[g, 1] = rank + r
            segments[g, 2] = state[3]  # a node's number: the root, the kept nodes closed, its ancestors
            state[1] += 1
            for d in range(common + 1, length + 1):
                path_keys[d] = keys[base + d - 1]
                path_first[d] = classes[base + d - 1]
        state[2] += length - common
        state[0] = length


class StreamCounter:
    """The trie of sequences given in sorted order, block by block (``add``),
    as ``count_sequences`` gives it (``finish``), holding only the nodes
    counted at least ``min_count`` times and the current path."""

    def __init__(self, max_depth: int, min_count: int = 1, room: int = 1 << 12, most: int | None = None) -> None:
        """``room``: nodes the arrays start with, at most; ``most``: the most
        nodes the stream can keep, if known (its keys over ``min_count``),
        so the arrays need not grow past it."""
        self.min_count = max(1, min_count)
        self.levels = max_depth + 1
        self.spare = 2 * self.levels + 1  # room past the kept nodes: a block's path, twice over
        self.most = most
        room = self._capped(room)
        self.segments = np.zeros((self.levels, 3), np.int64)
        self.path_keys = np.zeros(self.levels, np.int16)
        self.path_first = np.zeros(self.levels, np.uint8)
        self.counters = np.zeros((self.levels, 12), np.int64)
        self.state = np.zeros(4, np.int64)  # the path's depth; its segments; the nodes seen; the nodes kept
        self.sequences = 0
        self.nodes = _node_arrays(room)  # grown as needed

    def _capped(self, room: int) -> int:
        """``room`` nodes, but no more than the stream can keep (and the spare)."""
        return room if self.most is None else min(room, self.most + self.spare)

    def add(self, offsets: np.ndarray, keys: np.ndarray, classes: np.ndarray, order: np.ndarray | None = None) -> None:
        """The next block of the sorted stream (in ``order``, when given)."""
        n = len(offsets) - 1
        order = np.arange(n) if order is None else order
        self._count(np.asarray(offsets, np.int64), np.asarray(keys, np.int16), np.asarray(classes, np.uint8),
                    order, False)
        self.sequences += n

    def _count(self, offsets, keys, classes, order, final: bool) -> None:
        # the largest number a block can give: a node kept a key, and the spare
        room = self._capped(int(self.state[3]) + len(keys) + self.spare)
        if room > len(self.nodes["count"]):
            grown = _node_arrays(max(room, 2 * len(self.nodes["count"])))
            # the nodes written: the kept ones, and past them a node closed
            # under ancestors still open (numbered after them: at most the
            # depth further)
            written = min(len(self.nodes["count"]), int(self.state[3]) + self.levels + 1)
            for name, a in self.nodes.items():
                grown[name][:written] = a[:written]
            self.nodes = grown
        nodes = self.nodes
        _count_block(offsets, keys, classes, order, self.min_count, self.sequences, final, self.segments, self.path_keys,
                     self.path_first, self.counters, self.state, nodes["parent"], nodes["depth"], nodes["key"],
                     nodes["count"], nodes["counters"])

    def finish(self) -> tuple[dict[str, np.ndarray], int]:
        """The node arrays (the root, then the kept nodes in canonical order)
        and the number of nodes of the whole trie."""
        self._count(np.zeros(1, np.int64), np.zeros(0, np.int16), np.zeros(0, np.uint8), np.zeros(0, np.int64), True)
        size = int(self.state[3]) + 1
        arrays = {"node": np.arange(size, dtype=np.int64)}
        for name, a in self.nodes.items():
            a.resize((size,) + a.shape[1:], refcheck=False)  # drop the spare room, in place
            arrays[name] = a
        self.nodes = {}
        arrays["parent"][0], arrays["depth"][0], arrays["key"][0] = -1, 0, -1
        arrays["count"][0], arrays["counters"][0] = self.sequences, 0
        return arrays, 1 + int(self.state[2])


def _node_arrays(room: int) -> dict[str, np.ndarray]:
    return {"parent": np.empty(room, np.int64), "depth": np.empty(room, np.int64), "key": np.empty(room, np.int16),
            "count": np.empty(room, np.int64), "counters": np.empty((room, 12), np.int32)}
