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
            for direction in range(4):
                counters[node, 3 * direction + classes[base + d - 1, direction]] += 1


def count_sequences(offsets: np.ndarray, keys: np.ndarray, classes: np.ndarray,
                    min_count: int = 1) -> tuple[dict[str, np.ndarray], int]:
    """The trie of sequences keys[offsets[i]:offsets[i+1]] (classes per key
    and direction: 0 black, 1 white, 2 neutral), as ``trie.Trie.to_arrays``
    gives it: the root and the nodes counted at least ``min_count`` times,
    in canonical order.  Also returns the number of nodes of the whole trie."""
    offsets = np.asarray(offsets, dtype=np.int64)
    keys = np.asarray(keys, dtype=np.int16)
    classes = np.asarray(classes, dtype=np.int8).reshape(-1, 4)
    n = len(offsets) - 1
    lengths = np.diff(offsets)
    max_depth = int(lengths.max()) if n else 0
    words = np.zeros((n, max(1, -(-max_depth // _PER_WORD))), dtype=np.uint64)
    _pack(offsets, keys, words)
    order = np.lexsort(words.T[::-1]) if n else np.zeros(0, np.int64)  # first word most significant
    del words
    lcp = _common_prefixes(order, offsets, keys)
    total = 1 + int(lengths.sum() - lcp.sum())
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


def classes_of(scores: np.ndarray, neutral: int) -> np.ndarray:
    """Influence classes of scores: 0 black (< -neutral), 1 white
    (> neutral), 2 neutral (as influence.classify, by trie slot)."""
    out = np.full(scores.shape, 2, dtype=np.int8)
    out[scores < -neutral] = 0
    out[scores > neutral] = 1
    return out
