"""The trie counted by sorting (fasttrie) is the trie of one-by-one inserts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import build
from joseki_miner.method.positions import position_order
from joseki_miner.cluster.shards import shard_positions, sorted_positions
from joseki_miner.stages.build import position_index
from joseki_miner.fast.joining import (
    edge_replies,
    end_to_end,
    join_plan,
    shard_transposed,
    kept_for_plan,
    planned_from,
    place,
    shard_codes,
    shard_replies,
)
from joseki_miner.method.kinds import KindRules, of_arrays
from joseki_miner.fast.fasttrie import (
    StreamCounter,
    classes_of,
    count_sequences,
    cut,
    in_order,
    deep_codes,
    deep_path,
    prefix_path,
    prefixes,
    merge_sorted,
    pack_classes,
    plain_payload,
    shared_prefixes,
    sort_sequences,
    width_of,
)
from joseki_miner.method.influence import INF_BLACK, INF_NEUTRAL, INF_WHITE
from joseki_miner.method.points import DEEP_END, PREFIX_KEYS, TENUKI
from joseki_miner.method.trie import GameStats, Trie, _slot

CLASSES = [INF_BLACK, INF_WHITE, INF_NEUTRAL]
FIRST_YEAR, YEARS, SOURCES = 2000, 4, 3


def arrays_of(seqs, games=None):
    """Offsets, keys, packed classes and payload of (keys, classes) pairs;
    ``games``: per sequence (game id, winner in the tree's colours, year or
    0, source), a game's sequences together (default: a game each)."""
    offsets = np.r_[0, np.cumsum([len(k) for k, _ in seqs])].astype(np.int64)
    keys = np.array([k for ks, _ in seqs for k in ks], dtype=np.int16)
    classes = np.array([[_slot(c) for c in row] for _, cs in seqs for row in cs], dtype=np.int8).reshape(-1, 4)
    payload = plain_payload(len(seqs))
    if games is not None:
        payload["game"] = [g[0] for g in games]
        payload["winner"] = [g[1] for g in games]
        payload["year"] = [g[2] for g in games]
        payload["source"] = [g[3] for g in games]
        payload["shared"] = shared_prefixes(payload["game"], offsets, keys)
    return offsets, keys, pack_classes(classes), payload


def reference(seqs, games=None) -> Trie:
    """The trie of one-by-one inserts, each game's sequences in order."""
    trie = Trie()
    for i, (keys, classes) in enumerate(seqs):
        trie.insert(keys, classes, game=GameStats(*games[i]) if games is not None else None)
    return trie


def assert_same(fast, slow):
    assert fast.keys() == slow.keys()
    for name in fast:
        if isinstance(fast[name], dict):  # rows of years or collections, as columns
            assert_same(fast[name], slow[name])
        else:
            np.testing.assert_array_equal(fast[name], slow[name], err_msg=name)


# few keys, so sequences share prefixes; long ones cross the 7-keys-a-word packing
KEYS = [0, 1, 60, 72, 360, TENUKI]
seq_st = st.integers(1, 20).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from(KEYS), min_size=n, max_size=n),
        st.lists(st.tuples(*[st.sampled_from(CLASSES)] * 4), min_size=n, max_size=n),
    )
)
# one first move, a second on the 7th line (116) or in the corner, replies on the side (117, 152) or
# not: approaches from the side, whose replies ranges cut anywhere share
approach_st = st.tuples(
    st.sampled_from([116, 0]), st.lists(st.sampled_from([117, 152, 0, TENUKI]), max_size=3)
).flatmap(
    lambda keys: st.tuples(
        st.just([60, keys[0], *keys[1]]),
        st.lists(st.tuples(*[st.sampled_from(CLASSES)] * 4), min_size=2 + len(keys[1]), max_size=2 + len(keys[1])),
    )
)


# per game: winner in the tree's colours, year (0: unknown), source
game_st = st.tuples(
    st.sampled_from([-1, 0, 1]),
    st.sampled_from([0, *range(FIRST_YEAR, FIRST_YEAR + YEARS)]),
    st.integers(0, SOURCES - 1),
)


@st.composite
def games_st(draw, max_size=40, sequences=seq_st):
    """Sequences grouped into games: (seqs, per sequence (game, winner, year, source))."""
    seqs = draw(st.lists(sequences, max_size=max_size))
    sizes, left = [], len(seqs)
    while left:
        sizes.append(draw(st.integers(1, min(left, 5))))
        left -= sizes[-1]
    games = []
    for g, size in enumerate(sizes):
        winner, year, source = draw(game_st)
        for _ in range(size):  # each sequence of a game may have had its colours swapped: its own winner
            games.append((g, winner * draw(st.sampled_from([1, -1])), year, source))
    return seqs, games


@settings(max_examples=300, deadline=None)
@given(seqs=st.lists(seq_st, max_size=40), min_count=st.integers(1, 4))
def test_sorting_gives_the_nodes_counts_and_counters_of_inserting(seqs, min_count):
    trie = build(seqs)
    fast, total = count_sequences(*arrays_of(seqs), min_count=min_count)
    assert total == len(trie)
    assert_same(fast, trie.to_arrays(min_count))


@settings(max_examples=300, deadline=None)
@given(data=games_st(), min_count=st.integers(1, 4))
def test_sorting_gives_the_statistics_of_inserting_game_by_game(data, min_count):
    """Games, wins in the tree's colours, years and collections per node, and
    each node's first rank, as the plain trie counts them."""
    seqs, games = data
    fast, total = count_sequences(
        *arrays_of(seqs, games), min_count=min_count, years=(FIRST_YEAR, YEARS), sources=SOURCES
    )
    slow = reference(seqs, games)
    assert total == len(slow)
    assert_same(fast, slow.to_arrays(min_count))


@settings(max_examples=200, deadline=None)
@given(data=games_st())
def test_statistics_laws(data):
    """Per node: wins <= games <= count; the years' games add up to the
    games with a year; a child's games never exceed its parent's; a node's
    sequences are a range inside its parent's."""
    seqs, games = data
    a, _ = count_sequences(*arrays_of(seqs, games), min_count=1, years=(FIRST_YEAR, YEARS), sources=SOURCES)
    assert (a["black_wins"] + a["white_wins"] <= a["games"]).all() and (a["games"] <= a["count"]).all()
    by_year = np.bincount(a["years"]["node"], weights=a["years"]["games"], minlength=len(a["node"]))
    by_source = np.bincount(a["sources"]["node"], weights=a["sources"]["games"], minlength=len(a["node"]))
    assert (by_year <= a["games"]).all() and (by_source == a["games"]).all()
    child = a["parent"] >= 0
    assert (a["games"][child] <= a["games"][a["parent"][child]]).all()
    parent = a["parent"][child]
    assert (a["first"][child] >= a["first"][parent]).all()
    assert (a["first"][child] + a["count"][child] <= a["first"][parent] + a["count"][parent]).all()
    if len(seqs):
        assert a["games"][0] == len({g[0] for g in games})


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
    fast, total = count_sequences(np.zeros(1, np.int64), np.zeros(0, np.int16), np.zeros(0, np.uint8))
    assert total == 1 and fast["count"].tolist() == [0] and fast["parent"].tolist() == [-1]
    assert fast["games"].tolist() == [0] and len(fast["years"]["node"]) == 0


def test_classes_pack_two_bits_a_direction():
    scores = np.array([[-6, 6, 5, -5], [0, -100, 100, 0]], dtype=np.int16)
    packed = classes_of(scores, neutral=5)
    assert packed.tolist() == [0 | 1 << 2 | 2 << 4 | 2 << 6, 2 | 0 << 2 | 1 << 4 | 2 << 6]
    assert packed.tolist() == pack_classes([[0, 1, 2, 2], [2, 0, 1, 2]]).tolist()


@settings(max_examples=200, deadline=None)
@given(
    data=games_st(),
    cuts=st.lists(st.integers(0, 40), max_size=6),
    block=st.integers(1, 7),
    min_count=st.integers(1, 3),
    step=st.integers(1, 9),
    bounded=st.booleans(),
    listed=st.booleans(),
)
def test_sorted_runs_merged_a_block_at_a_time_stream_into_the_same_trie(
    data, cuts, block, min_count, step, bounded, listed
):
    """merge_sorted over runs read ``block`` sequences at a time, merging at
    most about ``step`` a run a round, gives every sequence once, in sorted
    order, whether each run is a list (its last block known: the runs all
    at theirs are merged in one round) or an iterator (read as it goes);
    StreamCounter counts that stream, a block at a time, into the
    trie of one sort, its node arrays grown between blocks (while deep nodes
    kept wait for their ancestors to close), or only up to the most nodes
    the keys can keep.  Equal sequences keep their order (the stream is
    sorted by keys, then by where a sequence was given)."""
    seqs, games = data
    whole, total = count_sequences(
        *arrays_of(seqs, games), min_count=min_count, years=(FIRST_YEAR, YEARS), sources=SOURCES
    )
    everything = arrays_of(seqs, games)
    everything[3]["sequence"] = np.arange(len(seqs))  # where each was given
    bounds = sorted({0, len(seqs), *[c for c in cuts if c <= len(seqs)]})
    parts = [sort_sequences(*cut(everything, a, b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    runs = [[cut(p, lo, min(len(p[0]) - 1, lo + block)) for lo in range(0, len(p[0]) - 1, block)] for p in parts]
    runs = runs if listed else [iter(run) for run in runs]
    depth = max((len(k) for k, _ in seqs), default=0)
    most = sum(len(k) for k, _ in seqs) // min_count if bounded else None
    counter = StreamCounter(depth, min_count, room=1, most=most, years=(FIRST_YEAR, YEARS), sources=SOURCES)
    merged = []
    for piece in merge_sorted(runs, width_of(depth), step=step):
        offsets, keys, classes, payload = in_order(*piece)
        merged += [(tuple(keys[a:b]), int(i)) for a, b, i in zip(offsets[:-1], offsets[1:], payload["sequence"])]
        counter.add(*piece)
    assert merged == sorted((tuple(k), i) for i, (k, _) in enumerate(seqs))
    streamed, streamed_total = counter.finish()
    assert streamed_total == total
    assert_same(streamed, whole)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.lists(st.integers(0, 3), min_size=3, max_size=3), max_size=60))
def test_the_row_sort_is_lexsort_first_word_first(rows):
    """The compiled sort of packed sequences gives np.lexsort's order (first
    word most significant, equal rows in their order): ties are common."""
    from joseki_miner.fast.fasttrie import _sorted_order

    words = np.array(rows, dtype=np.uint64).reshape(-1, 3)
    assert _sorted_order(words).tolist() == np.lexsort(words.T[::-1]).tolist()


@settings(max_examples=100, deadline=None)
@given(seqs=st.lists(seq_st, min_size=1, max_size=30), seed=st.integers(0, 2**32 - 1))
def test_the_sorted_sequences_do_not_depend_on_the_order_they_come_in(seqs, seed):
    """Equal sequences sort by game and number: a stream's batches (finished
    by its threads in any order) and sequences.parquet's rows give the same
    sorted_sequences.parquet."""
    seqs = seqs + seqs[: len(seqs) // 2]  # equal sequences of other games
    offsets, keys, classes, payload = arrays_of(seqs)
    payload["sequence"] = np.arange(len(seqs)) % 3
    shuffled = np.random.default_rng(seed).permutation(len(seqs))
    given = [seqs[i] for i in shuffled]
    again = arrays_of(given)
    again[3][:] = payload[shuffled]
    first, second = sort_sequences(offsets, keys, classes, payload), sort_sequences(*again)
    for a, b in zip(first, second):
        assert np.array_equal(a, b)


@settings(max_examples=300, deadline=None)
@given(data=games_st(), cuts=st.sets(st.sampled_from(KEYS)), min_count=st.integers(1, 3))
def test_subtrees_counted_apart_join_into_the_trie_of_one_count(data, cuts, min_count):
    """The root's subtrees, cut into ranges of first keys (at ``cuts``) and
    counted apart (each range's sequences, their payload as the whole
    games gave it), join into the very arrays of counting them all: node
    numbers, parents, first ranks, the root's games, wins and years."""
    seqs, games = data
    whole, total = count_sequences(
        *arrays_of(seqs, games), min_count=min_count, years=(FIRST_YEAR, YEARS), sources=SOURCES
    )
    offsets, keys, classes, payload = arrays_of(seqs, games)
    first = keys[offsets[:-1]] if len(seqs) else np.zeros(0, np.int16)
    bounds = sorted({min(KEYS), max(KEYS) + 1, *cuts})
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        chosen = [i for i in range(len(seqs)) if lo <= first[i] < hi]
        part = [seqs[i] for i in chosen]
        o, k, c, _ = arrays_of(part)
        parts.append(
            count_sequences(o, k, c, payload[chosen], min_count=min_count, years=(FIRST_YEAR, YEARS), sources=SOURCES)
        )
    joined, joined_total, _ = _joined(parts)
    assert joined_total == total
    assert_same(joined, whole)


def _line(trie, node: int) -> list[int]:
    """The keys from the root to ``node`` of a trie numbered by row."""
    line = []
    while trie["depth"][node] > 0:
        line.append(int(trie["key"][node]))
        node = int(trie["parent"][node])
    return line[::-1]


def _joined(parts, floor=1):
    """The counts ``parts`` joined: each placed as the shard of its node
    range (``place``), laid end to end, by the plan of what each kept of
    its edges alone (``kept_for_plan``, as the build saves it); the nodes
    counted, and the plan."""
    plan = join_plan([(planned_from(kept_for_plan(part))[0], nodes) for part, nodes in parts], floor)
    return end_to_end([place(part, plan, j) for j, (part, _) in enumerate(parts)]), plan.nodes, plan


def _counted_apart(data, cuts, min_count):
    """The trie of counting ``data``'s sequences at once, its number of
    nodes, and the counts of its ranges cut (``deep_codes``: below their
    first keys too) at ``cuts``."""
    seqs, games = data
    whole, total = count_sequences(
        *arrays_of(seqs, games), min_count=min_count, years=(FIRST_YEAR, YEARS), sources=SOURCES
    )
    offsets, keys, classes, payload = arrays_of(seqs, games)
    code = deep_codes(offsets, keys)
    known = sorted(set(code))
    bounds = sorted({0, DEEP_END, *[known[c % len(known)] for c in cuts if known]})
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        chosen = [i for i in range(len(seqs)) if lo <= code[i] < hi]
        o, k, c, _ = arrays_of([seqs[i] for i in chosen])
        edges = (deep_path(lo), deep_path(hi))
        parts.append(
            count_sequences(
                o, k, c, payload[chosen], min_count=min_count, years=(FIRST_YEAR, YEARS), sources=SOURCES, edges=edges
            )
        )
    return whole, total, parts


@settings(max_examples=300, deadline=None)
@given(data=games_st(), cuts=st.sets(st.integers(0, 10**6)), min_count=st.integers(1, 4))
def test_subtrees_cut_anywhere_join_into_the_trie_of_one_count(data, cuts, min_count):
    """Cut by their first keys (``prefixes``) between any two sequences, so
    that ranges share the nodes on the paths between them (each kept in
    its range whatever its count: ``edges``), counted apart and joined: the
    very arrays of counting them all, a shared node's count, influence
    counters, games, wins, years and collections added up, the nodes
    counted fewer than ``min_count`` times in all dropped, and the nodes
    seen counted once; the shards' position indexes, laid end to end and
    sorted by position, are the whole trie's."""
    whole, total, parts = _counted_apart(data, cuts, min_count)
    joined, joined_total, plan = _joined(parts, min_count)
    assert joined_total == total
    assert_same(joined, whole)
    assert [plan.shard(j)[0] for j in range(len(parts))] == sorted(plan.shard(j)[0] for j in range(len(parts)))
    shards = [shard_positions(sorted_positions(part), plan, j, len(part["node"])) for j, (part, _) in enumerate(parts)]
    index = {name: np.concatenate([shard[name] for shard in shards]) for name in ("hi", "lo", "node", "transform")}
    order, whole_index = position_order(index["hi"], index["lo"]), position_index(whole)
    assert all(np.array_equal(index[name][order], whole_index[name]) for name in ("hi", "lo", "node", "transform"))
    # each shard's nodes on some positions (a run's kept nodes'), searched in its count's index: the whole trie's
    wanted = {"hi": whole_index["hi"][::3], "lo": whole_index["lo"][::3]}
    pairs = set(zip(wanted["hi"].tolist(), wanted["lo"].tolist()))
    on = [(h, lo) in pairs for h, lo in zip(whole_index["hi"].tolist(), whole_index["lo"].tolist())]
    found = [
        shard_transposed(part, plan.only(j), j, sorted_positions(part), wanted) for j, (part, _) in enumerate(parts)
    ]
    node = np.concatenate([f["node"] for f in found])
    assert sorted(node.tolist()) == sorted(whole_index["node"][on].tolist())
    at = dict(zip(whole_index["node"].tolist(), range(len(whole_index["node"]))))
    for f in found:
        assert np.array_equal(f["count"], whole["count"][f["node"]]) and np.array_equal(
            f["games"], whole["games"][f["node"]]
        )
        mine = [at[n] for n in f["node"].tolist()]  # each node's position and transform, in the index's order
        assert all(np.array_equal(f[k], whole_index[k][mine]) for k in ("hi", "lo", "transform"))
        assert np.array_equal(f["hi"], np.sort(f["hi"]))
        for n, line in zip(f["node"].tolist(), np.split(f["keys"], f["ends"][:-1])):
            assert line.tolist() == _line(whole, n)
    for j, (part, _) in enumerate(parts):  # a row's node, alone, as all rows' numbers give it
        number = plan.parts[j].numbers(len(part["node"]))
        rows = np.random.default_rng(j).permutation(np.repeat(np.arange(len(number)), 2))  # any order, repeated
        assert np.array_equal(plan.parts[j].numbers_at(rows), number[rows])
    # each shard's kinds read on its own count: the whole trie's (an approach's weighs all its replies)
    rules = KindRules(follow_up=True, approach=0.4)
    replies = shard_replies(parts, [edge_replies(part) for part, _ in parts], plan)
    codes = [shard_codes(part, plan, j, rules, replies[j]) for j, (part, _) in enumerate(parts)]
    assert np.array_equal(np.concatenate(codes), of_arrays(whole, rules))


@settings(max_examples=300, deadline=None)
@given(
    data=games_st(sequences=approach_st),
    cuts=st.sets(st.integers(0, 10**6)),
    min_count=st.integers(1, 3),
    share=st.sampled_from([0.3, 0.5, 0.7]),
)
def test_shards_read_kinds_as_the_whole_trie(data, cuts, min_count, share):
    """Each shard's kinds, read on its own count, are the joined trie's
    where an approach from the side has replies in several ranges, some
    of them counted too few times in all to be kept."""
    whole, _, parts = _counted_apart(data, cuts, min_count)
    kept = [(planned_from(kept_for_plan(part)), nodes) for part, nodes in parts]  # as the build plans from them
    plan = join_plan([(edges, nodes) for (edges, _), nodes in kept], floor=min_count)
    replies = shard_replies([(edges, nodes) for (edges, _), nodes in kept], [r for (_, r), _ in kept], plan)
    rules = KindRules(follow_up=True, approach=share)
    codes = [shard_codes(part, plan, j, rules, replies[j]) for j, (part, _) in enumerate(parts)]
    assert np.array_equal(np.concatenate(codes), of_arrays(whole, rules))


@given(st.lists(st.lists(st.sampled_from(KEYS), min_size=1, max_size=9), min_size=2, max_size=20))
def test_prefixes_keep_the_trie_order_and_name_their_paths(seqs):
    """Numbers in the sorted order of the sequences (a sequence before its
    extensions), equal where the first PREFIX_KEYS keys are; each names
    those keys."""
    offsets = np.r_[0, np.cumsum([len(s) for s in seqs])].astype(np.int64)
    code = prefixes(offsets, np.array([k for s in seqs for k in s], np.int16)).tolist()
    for a, b, x, y in zip(seqs, seqs[1:], code, code[1:]):
        head = (a[:PREFIX_KEYS], b[:PREFIX_KEYS])
        assert (x < y) == (head[0] < head[1]) and (x == y) == (head[0] == head[1])
    assert [prefix_path(c) for c in code] == [s[:PREFIX_KEYS] for s in seqs]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(KEYS[:3]), min_size=1, max_size=18), min_size=1, max_size=40),
    st.lists(st.integers(0, 10**6), min_size=2, max_size=6),
    st.integers(1, 8),
)
def test_deep_codes_cut_a_crowded_opening_below_its_first_keys(seqs, picks, most):
    """Deep codes order the sequences by their first 2 * PREFIX_KEYS keys
    and name them; a range of them (lo..hi-1) is the sequences
    ``in_deep_range`` finds in any order, and a slice of the sorted ones
    (``deep_rank``); sampled, every sequence counts once, at a code of its
    own or an earlier one's, and the sample cuts below the first keys."""
    from joseki_miner.fast.fasttrie import deep_rank, in_deep_range
    from joseki_miner.cluster.shards import sampled

    def arrays(ss):
        return np.r_[0, np.cumsum([len(s) for s in ss])].astype(np.int64), np.array(
            [k for s in ss for k in s], np.int16
        )

    deep = 2 * PREFIX_KEYS
    ordered = sorted(seqs, key=lambda s: s[:deep])
    offsets, keys = arrays(ordered)
    code = deep_codes(offsets, keys)
    assert code == sorted(code)
    for a, b, x, y in zip(ordered, ordered[1:], code, code[1:]):
        assert (x == y) == (a[:deep] == b[:deep])
    assert [deep_path(c) for c in code] == [s[:deep] for s in ordered]
    cuts = sorted({0, DEEP_END, *(code[p % len(code)] + p % 2 for p in picks)})
    first, deeper = prefixes(offsets, keys), prefixes(offsets, keys, PREFIX_KEYS)
    for lo, hi in zip(cuts, cuts[1:]):
        inside = [lo <= c < hi for c in code]
        shuffled = list(range(len(seqs)))[::-1]
        o, k = arrays([ordered[i] for i in shuffled])
        assert in_deep_range(o, k, prefixes(o, k), lo, hi).tolist() == [inside[i] for i in shuffled]
        a, b = deep_rank(first, deeper, lo), deep_rank(first, deeper, hi)
        assert inside == [a <= i < b for i in range(len(code))]
    sample = sampled(first, most, deeper)
    assert sum(sample.values()) == len(code) and set(sample) <= set(code) and len(sample) <= most
    for at in sample:
        assert sum(c < at for c in code) <= sum(n for s, n in sample.items() if s < at) <= sum(c <= at for c in code)


@settings(max_examples=200, deadline=None)
@given(
    data=games_st(),
    cuts=st.sets(st.integers(0, 10**6)),
    min_count=st.integers(1, 3),
    threshold=st.integers(1, 6),
    follow=st.sampled_from([None, 0.3, 0.8]),
    min_share=st.sampled_from([0.0, 0.2]),
)
def test_shards_find_the_candidates_of_the_whole_trie(data, cuts, min_count, threshold, follow, min_share):
    """Each shard's candidates for phase 2, read on its own count (whose
    paths it holds whole, the shared nodes' and the root's figures added
    up), laid end to end, are the whole trie's; with their tenuki
    children's counts, a shared node's the greatest its shards give; and
    placed alone, as the whole shard places them."""
    from joseki_miner.fast.joining import place_rows, shard_candidates
    from joseki_miner.method.prune import Cut, PruneRules, candidates, parent_rows, tenuki_counts

    whole, _, parts = _counted_apart(data, cuts, min_count)
    plan = join_plan(parts, floor=min_count)
    cut = Cut(max(threshold, min_count), 0, PruneRules(follow, min_share, True, 1, False))
    nodes, tenuki, shared = [], [], {}
    for j, (part, _) in enumerate(parts):
        found = shard_candidates(part, plan.only(j), j, cut)  # a shard's task reads its part of the plan alone
        placed, rows = place(part, plan.only(j), j), found["rows"]
        picked = place_rows(part, plan.only(j), j, rows)  # what the candidates' task places: those rows alone
        for name, column in placed.items():
            if isinstance(column, dict):
                kept = np.isin(column["node"], placed["node"][rows])
                assert all(np.array_equal(picked[name][c], a[kept]) for c, a in column.items()), name
            else:
                assert np.array_equal(picked[name], column[rows]) and picked[name].dtype == column.dtype, name
        nodes.append(placed["node"][rows])
        tenuki.append(found["tenuki"])
        for node, t in zip(found["shared"].tolist(), found["shared_tenuki"].tolist()):
            shared[node] = max(shared.get(node, 0), t)
    node, tenuki = np.concatenate(nodes), np.concatenate(tenuki)
    for i, n in enumerate(node.tolist()):
        tenuki[i] = max(tenuki[i], shared.get(n, 0))
    row = parent_rows(whole["node"], whole["parent"])
    depth, key = whole["depth"], whole["key"].astype(np.int64)
    some = candidates(row, depth, whole["count"], cut, key, whole["games"])
    assert np.array_equal(node, np.flatnonzero(some))
    assert np.array_equal(tenuki, tenuki_counts(row, key, whole["count"])[some])
