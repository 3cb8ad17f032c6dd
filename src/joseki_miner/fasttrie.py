"""The counted trie on flat arrays (numba): the same trie as ``trie.Trie``,
for millions of sequences.

Nodes live in parallel arrays (parent, key, depth, count, 12 influence
counters); children are found through an open-addressing hash table keyed by
``parent * 362 + key``.  Tries merge by adding counts, and ``arrays()`` gives
the same canonical node order as ``trie.Trie.to_table`` (depth-first
pre-order, children by key), so both paths write identical tables.

Knows trie keys and influence classes; nothing of boards, games or files.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_EMPTY = -1


@njit(cache=True)
def _hash(k, mask):
    h = (k * 0x9E3779B97F4A7C15) & 0x7FFFFFFFFFFFFFFF
    return (h >> 17) & mask


@njit(cache=True)
def _find_or_add(table_keys, table_nodes, mask, parent_arr, key_arr, depth_arr, n_nodes, parent, key):
    k = parent * 362 + key
    i = _hash(k, mask)
    while True:
        tk = table_keys[i]
        if tk == k:
            return table_nodes[i], n_nodes
        if tk == _EMPTY:
            table_keys[i] = k
            table_nodes[i] = n_nodes
            parent_arr[n_nodes] = parent
            key_arr[n_nodes] = key
            depth_arr[n_nodes] = depth_arr[parent] + 1
            return n_nodes, n_nodes + 1
        i = (i + 1) & mask


@njit(cache=True, nogil=True)
def _insert(table_keys, table_nodes, parent_arr, key_arr, depth_arr, count, counters, n_nodes,
            offsets, keys, classes, weight):
    """Insert sequences (keys[offsets[i]:offsets[i+1]], classes per key per
    direction: 0 black, 1 white, 2 neutral); return the new node count."""
    mask = len(table_keys) - 1
    for s in range(len(offsets) - 1):
        node = 0
        count[0] += weight
        for j in range(offsets[s], offsets[s + 1]):
            node, n_nodes = _find_or_add(table_keys, table_nodes, mask, parent_arr, key_arr, depth_arr,
                                         n_nodes, node, keys[j])
            count[node] += weight
            for d in range(4):
                counters[node, 3 * d + classes[j, d]] += weight
    return n_nodes


@njit(cache=True)
def _merge(table_keys, table_nodes, parent_arr, key_arr, depth_arr, count, counters, n_nodes,
           o_parent, o_key, o_count, o_counters, o_n):
    mask = len(table_keys) - 1
    mapping = np.empty(o_n, dtype=np.int64)
    mapping[0] = 0
    count[0] += o_count[0]
    for n in range(1, o_n):  # parents come before children
        mine, n_nodes = _find_or_add(table_keys, table_nodes, mask, parent_arr, key_arr, depth_arr,
                                     n_nodes, mapping[o_parent[n]], o_key[n])
        mapping[n] = mine
        count[mine] += o_count[n]
        for i in range(12):
            counters[mine, i] += o_counters[n, i]
    return n_nodes


@njit(cache=True)
def _rehash(table_keys, table_nodes, parent_arr, key_arr, n_nodes):
    mask = len(table_keys) - 1
    for n in range(1, n_nodes):
        k = parent_arr[n] * 362 + key_arr[n]
        i = _hash(k, mask)
        while table_keys[i] != _EMPTY:
            i = (i + 1) & mask
        table_keys[i] = k
        table_nodes[i] = n


@njit(cache=True)
def _preorder(parent, key, n):
    """Depth-first pre-order, children by key (as trie.Trie.canonical_order)."""
    by = np.argsort(parent[1:n].astype(np.int64) * 362 + key[1:n], kind="mergesort") + 1
    first = np.full(n + 1, -1, dtype=np.int64)
    last = np.full(n + 1, -1, dtype=np.int64)
    for i in range(len(by)):
        p = parent[by[i]]
        if first[p] < 0:
            first[p] = i
        last[p] = i
    order = np.empty(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    top = 1
    stack[0] = 0
    k = 0
    while top > 0:
        top -= 1
        node = stack[top]
        order[k] = node
        k += 1
        if first[node] >= 0:
            for i in range(last[node], first[node] - 1, -1):
                stack[top] = by[i]
                top += 1
    return order


class FastTrie:
    """A mergeable counted trie on numpy arrays; node 0 is the root."""

    def __init__(self, capacity: int = 1 << 16) -> None:
        self.n = 1
        # 32-bit parents and counters: enough below 2**31 nodes and sequences
        # a node, and they halve the trie's memory
        self.parent = np.full(capacity, -1, dtype=np.int32)
        self.key = np.full(capacity, -1, dtype=np.int16)
        self.depth = np.zeros(capacity, dtype=np.int16)
        self.count = np.zeros(capacity, dtype=np.int64)
        self.counters = np.zeros((capacity, 12), dtype=np.int32)
        self._table(capacity)

    def __len__(self) -> int:
        return self.n

    def _table(self, capacity: int) -> None:
        size = 1 << int(2 * capacity - 1).bit_length()
        self.table_keys = np.full(size, _EMPTY, dtype=np.int64)
        self.table_nodes = np.zeros(size, dtype=np.int32)
        _rehash(self.table_keys, self.table_nodes, self.parent, self.key, self.n)

    def reserve(self, more: int) -> None:
        """Make room for ``more`` new nodes (the hash stays under half full)."""
        need = self.n + more
        if need <= len(self.parent):
            return
        capacity = max(need, 2 * len(self.parent))
        for name in ("parent", "key", "depth", "count"):
            old = getattr(self, name)
            new = np.full(capacity, -1, dtype=old.dtype) if name in ("parent", "key") else np.zeros(capacity, dtype=old.dtype)
            new[: self.n] = old[: self.n]
            setattr(self, name, new)
        counters = np.zeros((capacity, 12), dtype=np.int32)
        counters[: self.n] = self.counters[: self.n]
        self.counters = counters
        self._table(capacity)

    def insert_many(self, offsets: np.ndarray, keys: np.ndarray, classes: np.ndarray, weight: int = 1) -> None:
        """Add sequences: keys[offsets[i]:offsets[i+1]] with classes (0 black,
        1 white, 2 neutral) per key and direction."""
        self.reserve(len(keys))
        self.n = _insert(self.table_keys, self.table_nodes, self.parent, self.key, self.depth, self.count,
                         self.counters, self.n, np.asarray(offsets, dtype=np.int64),
                         np.asarray(keys, dtype=np.int16), np.asarray(classes, dtype=np.int8), weight)

    def merge(self, other: "FastTrie") -> "FastTrie":
        """Add the counts of ``other`` into this trie (in place)."""
        self.reserve(other.n)
        self.n = _merge(self.table_keys, self.table_nodes, self.parent, self.key, self.depth, self.count,
                        self.counters, self.n, other.parent, other.key, other.count, other.counters, other.n)
        return self

    def arrays(self, min_count: int = 1) -> dict[str, np.ndarray]:
        """The nodes counted at least ``min_count`` times (and the root) in
        canonical order, renumbered: node, parent, depth, key, count and the
        (n, 12) counters."""
        return union_arrays([self], min_count)


def union_arrays(tries: list[FastTrie], min_count: int = 1) -> dict[str, np.ndarray]:
    """``FastTrie.arrays`` of the union of tries that share no child of the
    root (sequences split by their first move), without merging them."""
    root_count = sum(int(t.count[0]) for t in tries)
    parts = {"parent": [np.array([-1])], "key": [np.array([-1], np.int16)], "depth": [np.zeros(1, np.int16)],
             "count": [np.array([root_count])], "counters": [np.zeros((1, 12), np.int32)]}
    base = 1
    for t in tries:
        n = t.n
        kept = np.flatnonzero(t.count[1:n] >= min_count) + 1
        local = np.full(n, -1, dtype=np.int64)
        local[0] = 0
        local[kept] = base + np.arange(len(kept))
        parts["parent"].append(local[t.parent[kept]])
        for name in ("key", "depth", "count", "counters"):
            parts[name].append(getattr(t, name)[kept])
        base += len(kept)
    parent, key, depth, count, counters = (np.concatenate(parts[k]) for k in ("parent", "key", "depth", "count", "counters"))
    order = _preorder(parent, key, len(parent))
    new_id = np.empty(len(parent), dtype=np.int64)
    new_id[order] = np.arange(len(parent))
    parent = parent[order]
    return {
        "node": np.arange(len(parent), dtype=np.int64),
        "parent": np.where(parent < 0, -1, new_id[np.maximum(parent, 0)]),
        "depth": depth[order].astype(np.int64),
        "key": key[order],
        "count": count[order],
        "counters": counters[order],
    }


def classes_of(scores: np.ndarray, neutral: int) -> np.ndarray:
    """Influence classes of scores: 0 black (< -neutral), 1 white
    (> neutral), 2 neutral (as influence.classify, by trie slot)."""
    out = np.full(scores.shape, 2, dtype=np.int8)
    out[scores < -neutral] = 0
    out[scores > neutral] = 1
    return out
