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
