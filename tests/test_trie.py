"""The counted trie (thesis 4.1 and section 8)."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import build
from joseki_miner.method.influence import INF_BLACK, INF_NEUTRAL, INF_WHITE
from joseki_miner.method.points import TENUKI, from_sgf
from joseki_miner.method.trie import COLUMNS, COUNTER_COLUMNS, Trie
from joseki_miner.fast.tables import trie_table

N, K, Wh = INF_NEUTRAL, INF_BLACK, INF_WHITE
NEUTRAL4 = (N, N, N, N)
dd, cf, fc, cc, ce = (from_sgf(s) for s in ("dd", "cf", "fc", "cc", "ce"))


def seq(*keys, cls=NEUTRAL4):
    return list(keys), [cls] * len(keys)


def rows(trie):
    """path (SGF moves, "--" for tenuki) -> row dict of its table."""
    table = trie_table(trie)
    out, path = {}, {}
    for r in table.to_dict("records"):
        p = () if r["parent"] < 0 else path[r["parent"]] + (r["move"] or "--",)
        path[r["node"]] = p
        out[p] = r
    return out


def test_counts_are_the_number_of_sequences_through_a_node():
    t = build([seq(dd, fc, cc), seq(dd, fc, cf), seq(dd, cf), seq(cc)])
    assert t.paths() == {
        (): 4,
        (dd,): 3,
        (dd, fc): 2,
        (dd, fc, cc): 1,
        (dd, fc, cf): 1,
        (dd, cf): 1,
        (cc,): 1,
    }
    assert len(t) == 7


def test_a_repeated_sequence_adds_to_the_same_nodes():
    t = build([seq(dd, fc), seq(dd, fc), seq(dd, fc)])
    assert t.paths() == {(): 3, (dd,): 3, (dd, fc): 3}
    u = Trie()
    u.insert(*seq(dd, fc), times=3)
    assert trie_table(u).equals(trie_table(t))


def test_children_are_keyed_by_point_or_tenuki():
    t = build([seq(dd, TENUKI, fc), seq(dd, fc), seq(dd, TENUKI, cf)])
    r = rows(t)
    assert r[("dd", "--")]["count"] == 2
    assert r[("dd", "--")]["move"] == ""
    assert r[("dd", "--")]["color"] == "W"  # the tenuki of white at depth 2
    assert r[("dd", "--", "fc")]["color"] == "B"
    assert r[("dd", "fc")]["count"] == 1  # fc after tenuki is another node
    assert t.paths()[(dd, TENUKI)] == 2


def test_colours_alternate_with_depth_and_the_root_is_empty():
    r = rows(build([seq(dd, fc, cc, ce)]))
    assert [r[p]["color"] for p in [(), ("dd",), ("dd", "fc"), ("dd", "fc", "cc"), ("dd", "fc", "cc", "ce")]] == [
        "",
        "B",
        "W",
        "B",
        "W",
    ]
    assert r[()]["move"] == "" and r[()]["parent"] == -1 and r[()]["node"] == 0
    assert [r[p]["depth"] for p in r] == [0, 1, 2, 3, 4]


def test_influence_counters_per_direction():
    # up, right, down, left classes of each move
    t = Trie()
    t.insert([dd, fc], [(N, K, Wh, N), (K, K, N, Wh)])
    t.insert([dd, fc], [(N, K, K, N), (K, Wh, N, Wh)])
    t.insert([dd, cf], [(Wh, N, K, N), (N, N, N, N)])
    r = rows(t)
    d = r[("dd",)]
    assert [d[c] for c in COUNTER_COLUMNS] == [
        # up: black, white, neutral; right ...; down ...; left ...
        0,
        1,
        2,
        2,
        0,
        1,
        2,
        1,
        0,
        0,
        0,
        3,
    ]
    f = r[("dd", "fc")]
    assert (f["up_black"], f["right_black"], f["right_white"], f["left_white"], f["down_neutral"]) == (2, 1, 1, 2, 2)
    assert all(r[()][c] == 0 for c in COUNTER_COLUMNS)


def test_columns():
    t = build([seq(dd)])
    table = trie_table(t)
    assert tuple(table.columns) == COLUMNS
    assert list(COUNTER_COLUMNS[:3]) == ["up_black", "up_white", "up_neutral"]
    assert COUNTER_COLUMNS[-1] == "left_neutral"
    assert str(table["count"].dtype) == "int64" and table["move"].tolist() == ["", "dd"]


# -- properties -------------------------------------------------------------------

KEYS = [dd, cf, fc, cc, TENUKI]
cls_st = st.tuples(*[st.sampled_from([K, N, Wh])] * 4)


@st.composite
def seq_st(draw):
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=6))
    keys[0] = draw(st.sampled_from(KEYS[:-1]))  # never starts with a tenuki
    classes = draw(st.lists(cls_st, min_size=len(keys), max_size=len(keys)))
    return keys, classes


seqs_st = st.lists(seq_st(), max_size=25)


@settings(max_examples=100, deadline=None)
@given(seqs=seqs_st)
def test_counters_per_direction_sum_to_count(seqs):
    t = build(seqs)
    table = trie_table(t)
    for d in ("up", "right", "down", "left"):
        total = table[f"{d}_black"] + table[f"{d}_white"] + table[f"{d}_neutral"]
        assert (total[1:] == table["count"][1:]).all()
    # and a node's count is at least the sum of its children's
    child_sum = table.groupby("parent")["count"].sum()
    for node, s in child_sum.items():
        if node >= 0:
            assert table.loc[table["node"] == node, "count"].item() >= s
    assert table["count"].iloc[0] == len(seqs)


@settings(max_examples=200, deadline=None)
@given(seqs=seqs_st, data=st.data())
def test_merge_of_partial_tries_equals_the_trie_of_everything(seqs, data):
    """Split the sequences into parts in any order, build a trie per part,
    merge them in any order: the same table as one trie of all sequences."""
    order = data.draw(st.permutations(range(len(seqs))))
    k = data.draw(st.integers(1, 4))
    part_of = data.draw(st.lists(st.integers(0, k - 1), min_size=len(seqs), max_size=len(seqs)))
    parts = [[seqs[i] for i in order if part_of[i] == j] for j in range(k)]
    tries = [build(p) for p in parts]
    merge_order = data.draw(st.permutations(range(k)))
    total = Trie()
    for j in merge_order:
        total.merge(tries[j])
    pd.testing.assert_frame_equal(trie_table(total), trie_table(build(seqs)))
    # merging into a non-empty trie works the same
    first, *rest = [tries[j] for j in merge_order]
    again = build(parts[merge_order[0]])
    for t in rest:
        again = again.merge(t)
    pd.testing.assert_frame_equal(trie_table(again), trie_table(build(seqs)))


@settings(max_examples=100, deadline=None)
@given(seqs=seqs_st, data=st.data())
def test_the_table_is_canonical_whatever_the_insertion_order(seqs, data):
    shuffled = data.draw(st.permutations(seqs))
    a, b = trie_table(build(seqs)), trie_table(build(shuffled))
    pd.testing.assert_frame_equal(a, b)
    # depth-first pre-order, parents first, node ids 0..n-1 in order
    assert a["node"].tolist() == list(range(len(a)))
    assert all(p < n for n, p in zip(a["node"], a["parent"]) if n)


@settings(max_examples=100, deadline=None)
@given(seqs=seqs_st)
def test_from_table_round_trips(seqs):
    table = trie_table(build(seqs))
    again = Trie.from_table(table)
    pd.testing.assert_frame_equal(trie_table(again), table)
    assert again.paths() == build(seqs).paths()


def test_canonical_order_is_preorder_by_key_with_tenuki_last():
    t = build([seq(fc, cc), seq(dd, TENUKI), seq(dd, ce), seq(cf)])
    # keys: dd = 60, cf = 97, fc = 43, cc = 40, ce = 78, tenuki = 361
    moves = trie_table(t)["move"].tolist()
    assert moves == ["", "fc", "cc", "dd", "ce", "", "cf"]


def test_merge_adds_counts_and_counters():
    a = Trie()
    a.insert([dd, fc], [(K, N, N, N), (N, N, N, N)])
    b = Trie()
    b.insert([dd, cf], [(Wh, N, N, N), (N, N, N, N)], times=2)
    a.merge(b)
    r = rows(a)
    assert r[()]["count"] == 3
    assert r[("dd",)]["count"] == 3
    assert (r[("dd",)]["up_black"], r[("dd",)]["up_white"]) == (1, 2)
    assert r[("dd", "cf")]["count"] == 2
    assert len(b) == 3  # the other trie is left alone
