"""The trie counted by sorting (fasttrie) is the trie of one-by-one inserts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import build
from joseki_miner.fasttrie import count_sequences
from joseki_miner.influence import INF_BLACK, INF_NEUTRAL, INF_WHITE
from joseki_miner.points import TENUKI
from joseki_miner.trie import _slot

CLASSES = [INF_BLACK, INF_WHITE, INF_NEUTRAL]


def arrays_of(seqs):
    offsets = np.r_[0, np.cumsum([len(k) for k, _ in seqs])].astype(np.int64)
    keys = np.array([k for ks, _ in seqs for k in ks], dtype=np.int16)
    classes = np.array([[_slot(c) for c in row] for _, cs in seqs for row in cs], dtype=np.int8).reshape(-1, 4)
    return offsets, keys, classes


def assert_same(fast, slow):
    assert fast.keys() == slow.keys()
    for name in fast:
        np.testing.assert_array_equal(fast[name], slow[name], err_msg=name)


# few keys, so sequences share prefixes; long ones cross the 7-keys-a-word packing
KEYS = [0, 1, 60, 72, 360, TENUKI]
seq_st = st.integers(1, 20).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from(KEYS), min_size=n, max_size=n),
        st.lists(st.tuples(*[st.sampled_from(CLASSES)] * 4), min_size=n, max_size=n),
    )
)


@settings(max_examples=300, deadline=None)
@given(seqs=st.lists(seq_st, max_size=40), min_count=st.integers(1, 4))
def test_sorting_gives_the_nodes_counts_and_counters_of_inserting(seqs, min_count):
    trie = build(seqs)
    fast, total = count_sequences(*arrays_of(seqs), min_count=min_count)
    assert total == len(trie)
    assert_same(fast, trie.to_arrays(min_count))


def test_sequences_that_differ_only_past_the_first_word():
    a = [1] * 7 + [60, 72]
    b = [1] * 7 + [60, 0]
    seqs = [(s, [(INF_NEUTRAL,) * 4] * len(s)) for s in (a, b, a, a[:8])]
    fast, total = count_sequences(*arrays_of(seqs), min_count=2)
    assert total == 1 + 9 + 1  # shared path of 8, two leaves
    assert fast["count"].tolist() == [4] + [4] * 8 + [2]
    assert fast["key"].tolist()[-1] == 72


def test_a_prefix_sorts_before_its_extensions_and_tenuki_last():
    n4 = [(INF_NEUTRAL,) * 4]
    seqs = [([60, TENUKI], n4 * 2), ([60], n4), ([60, 0], n4 * 2)]
    fast, _ = count_sequences(*arrays_of(seqs), min_count=1)
    assert fast["key"].tolist() == [-1, 60, 0, TENUKI]
    assert fast["parent"].tolist() == [-1, 0, 1, 1]
    assert fast["count"].tolist() == [3, 3, 1, 1]


def test_no_sequences():
    fast, total = count_sequences(np.zeros(1, np.int64), np.zeros(0, np.int16), np.zeros((0, 4), np.int8))
    assert total == 1 and fast["count"].tolist() == [0] and fast["parent"].tolist() == [-1]
