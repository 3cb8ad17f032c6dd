"""Phase 2 (thesis 4.2, 6 and 7.3): threshold, pruning, minimum length."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import path_table
from joseki_miner.method.influence import INF_BLACK, INF_NEUTRAL, INF_WHITE
from joseki_miner.method.points import TENUKI, from_sgf
from joseki_miner.method.prune import leaves, prune
from joseki_miner.method.threshold import threshold
from joseki_miner.method.trie import COLUMNS, Trie
from joseki_miner.fast.tables import trie_table

N4 = (INF_NEUTRAL,) * 4


def table_of(*weighted):
    """A trie table from (count, "dd fc cc") pairs ("--" is a tenuki)."""
    t = Trie()
    for times, text in weighted:
        keys = [TENUKI if s == "--" else from_sgf(s) for s in text.split()]
        t.insert(keys, [N4] * len(keys), times=times)
    return trie_table(t)


def paths(table):
    return {p: v[0] for p, v in path_table(table).items()}


# -- threshold --------------------------------------------------------------------


def test_min_count_wins_over_min_fraction():
    assert threshold(1000, 7, 0.5) == 7
    assert threshold(13325, 150, 0.01) == 150  # the thesis' run
    assert threshold(10, 150, 0.01) == 150


def test_min_fraction_rounds_up():
    assert threshold(13325, None, 0.01) == 134  # 133.25 -> 134
    assert threshold(1000, None, 0.01) == 10
    assert threshold(100, None, 0.07) == 7  # 7.000000000000001 in floating point
    assert threshold(101, None, 0.01) == 2
    assert threshold(36692, None, 0.01) == 367


def test_threshold_never_below_one():
    assert threshold(10, None, 0.01) == 1
    assert threshold(0, None, 0.01) == 1
    assert threshold(100, None, 0.0) == 1
    assert threshold(100, 0, 0.5) == 1


# -- pruning ------------------------------------------------------------------------

TREE = table_of(
    (10, "dd fc cc ce"),  # 10 through dd fc cc ce
    (3, "dd fc cf"),
    (5, "dd cf fc"),
    (2, "cc dd"),
    (4, "dc -- cd dd"),
)


def test_subtrees_below_the_threshold_are_cut():
    out = paths(prune(TREE, 5, 0))
    assert out == {
        (): 24,
        ("dd",): 18,
        ("dd", "fc"): 13,
        ("dd", "fc", "cc"): 10,
        ("dd", "fc", "cc", "ce"): 10,
        ("dd", "cf"): 5,  # count equal to the threshold survives
        ("dd", "cf", "fc"): 5,
    }


def test_threshold_one_keeps_everything():
    assert paths(prune(TREE, 1, 0)) == paths(TREE)


def test_short_joseki_are_dropped():
    """min_length 3: a length-2 branch with a high count goes, a length-3
    branch survives, and its ancestors stay."""
    t = table_of((50, "dd fc"), (5, "dd cf cc"), (40, "cc cd"), (7, "dc -- cd"))
    out = paths(prune(t, 5, 3))
    assert out == {
        (): 102,
        ("dd",): 55,
        ("dd", "cf"): 5,
        ("dd", "cf", "cc"): 5,
        ("dc",): 7,
        ("dc", "--"): 7,
        ("dc", "--", "cd"): 7,  # a tenuki counts as a move
    }
    # below the threshold the length-3 branch goes too, and dd with it
    assert paths(prune(t, 6, 3)) == {(): 102, ("dc",): 7, ("dc", "--"): 7, ("dc", "--", "cd"): 7}


def test_min_length_applies_after_the_threshold():
    """A length-2 joseki whose longer continuation is pruned goes."""
    t = table_of((20, "dd fc"), (2, "dd fc cc"))
    assert paths(prune(t, 5, 3)) == {(): 22}
    assert paths(prune(t, 2, 3)) == {(): 22, ("dd",): 22, ("dd", "fc"): 22, ("dd", "fc", "cc"): 2}


def test_root_always_survives_and_ids_are_renumbered():
    out = prune(TREE, 1000, 3)
    assert out["node"].tolist() == [0] and out["parent"].tolist() == [-1]
    out = prune(TREE, 5, 3)
    assert out["node"].tolist() == list(range(len(out)))
    assert set(out["parent"][1:]) <= set(out["node"])
    assert tuple(out.columns) == COLUMNS
    assert out.equals(prune(out, 5, 3))  # pruning twice changes nothing


def test_leaves_are_the_joseki():
    out = prune(TREE, 5, 3)
    lv = leaves(out)
    assert sorted(lv["move"]) == ["ce", "fc"]
    assert sorted(lv["count"]) == [5, 10]
    assert leaves(prune(TREE, 1000, 3)).empty  # the root alone is no joseki
    # the leaves of the unpruned tree: one per distinct sequence end
    assert len(leaves(TREE)) == 5


# -- the thesis' law: thresholds a < b give tree(b) inside tree(a) ---------------------

KEYS = ["dd", "cf", "fc", "cc", "--"]


@st.composite
def tables(draw):
    seqs = draw(
        st.lists(
            st.tuples(st.integers(1, 20), st.lists(st.sampled_from(KEYS), min_size=1, max_size=6)),
            max_size=20,
        )
    )
    t = Trie()
    for times, keys in seqs:
        if keys[0] == "--":
            keys[0] = "dd"
        classes = [draw(st.tuples(*[st.sampled_from([INF_BLACK, INF_NEUTRAL, INF_WHITE])] * 4)) for _ in keys]
        t.insert([TENUKI if k == "--" else from_sgf(k) for k in keys], classes, times=times)
    return trie_table(t)


@settings(max_examples=200, deadline=None)
@given(table=tables(), a=st.integers(1, 60), gap=st.integers(1, 60), min_length=st.integers(0, 5))
def test_higher_threshold_gives_a_subtree_with_the_same_counts(table, a, gap, min_length):
    b = a + gap
    low = path_table(prune(table, a, min_length))
    high = path_table(prune(table, b, min_length))
    assert set(high) <= set(low)
    for path, value in high.items():
        assert low[path] == value  # count and all twelve counters
    # and a pruned tree is a subtree of the full one, counts unchanged
    full = path_table(table)
    assert all(full[p] == v for p, v in low.items())
    # the survivors are exactly the nodes at or above the threshold that
    # lead to a surviving path of min_length moves
    for path, (count, _) in low.items():
        if path:
            assert count >= a
    for path in low:
        if path and not any(q[: len(path)] == path and q != path for q in low):
            assert len(path) >= min_length  # every leaf is long enough


@settings(max_examples=100, deadline=None)
@given(table=tables(), a=st.integers(1, 30))
def test_prune_keeps_every_node_that_qualifies(table, a):
    """Without min_length, exactly the nodes with count >= threshold stay."""
    full = path_table(table)
    kept = path_table(prune(table, a, 0))
    assert set(kept) == {p for p, (c, _) in full.items() if c >= a or p == ()}


# -- the future work's rules (section 9): each off in the thesis' config ----------------

from joseki_miner.method.prune import PruneRules, tenuki_counts  # noqa: E402

# a line most players follow to its end, a popular position with a rare
# continuation, and a joseki after which a tenuki is common
FOLLOWED = table_of(
    (60, "dd fc cf db cc ic"),
    (10, "dd fc cf db cc hd"),
    (8, "dd fc hc"),
    (2, "dd fc eb"),
    (30, "dc ce cd"),
    (12, "dc ce cd -- de"),
    (3, "dc ce cd -- ed"),
)


def test_the_pruning_function_keeps_a_child_close_to_its_parents_count_below_the_threshold():
    """Threshold 65: only "dd fc cf db" holds 70 sequences; "cc" (70) too,
    "ic" (60) is 86% of its parent's: kept with follow 0.8, not 0.9."""
    assert ("dd", "fc", "cf", "db", "cc", "ic") not in paths(prune(FOLLOWED, 65, 3))
    kept = paths(prune(FOLLOWED, 65, 3, PruneRules(follow=0.8)))
    assert kept[("dd", "fc", "cf", "db", "cc", "ic")] == 60
    assert ("dd", "fc", "cf", "db", "cc", "hd") not in kept  # 14%: the continuations scatter
    assert ("dd", "fc", "cf", "db", "cc", "ic") not in paths(prune(FOLLOWED, 65, 3, PruneRules(follow=0.9)))


def test_a_child_of_a_node_let_through_may_be_let_through_but_not_one_of_a_node_cut():
    kept = paths(prune(FOLLOWED, 75, 3, PruneRules(follow=0.8)))
    assert kept[("dd", "fc", "cf", "db", "cc", "ic")] == 60  # cf 70 of 80, db 70, cc 70, ic 60: a chain
    assert ("dc", "ce", "cd") not in paths(prune(FOLLOWED, 46, 3, PruneRules(follow=0.8)))  # dc 45: cut, and its line


def test_the_minimum_share_cuts_a_rare_move_at_a_popular_position():
    assert ("dd", "fc", "hc") in paths(prune(FOLLOWED, 5, 3))
    kept = paths(prune(FOLLOWED, 5, 3, PruneRules(min_share=0.15)))
    assert ("dd", "fc", "hc") not in kept  # 8 of 80: 10%
    assert ("dd", "fc", "cf", "db", "cc", "ic") in kept


def test_a_tenuki_no_kept_move_follows_is_folded_into_its_parent():
    """ "dc ce cd --" (15) is a leaf once "de" (12) and "ed" (3) fall below
    13: folded, "dc ce cd" ends the line, and its tenuki count says how
    often players went elsewhere; a tenuki that a kept move follows stays."""
    thesis = paths(prune(FOLLOWED, 13, 3))
    assert ("dc", "ce", "cd", "--") in thesis
    folded = prune(FOLLOWED, 13, 3, PruneRules(fold_tenuki=True))
    assert ("dc", "ce", "cd", "--") not in paths(folded) and ("dc", "ce", "cd") in paths(folded)
    assert ("dc", "ce", "cd", "--", "de") in paths(prune(FOLLOWED, 12, 3, PruneRules(fold_tenuki=True)))
    # a line that reaches min_length only by its trailing tenuki is no joseki once it is folded
    short = table_of((20, "dd fc --"), (3, "dd fc -- cf"))
    assert ("dd", "fc", "--") in paths(prune(short, 10, 3))
    assert paths(prune(short, 10, 3, PruneRules(fold_tenuki=True))) == {(): 23}
    node = FOLLOWED["node"].to_numpy()
    row = {n: i for i, n in enumerate(node)}
    parent_row = [row.get(p, 0) for p in FOLLOWED["parent"]]
    keys = [TENUKI if m == "" else from_sgf(m) for m in FOLLOWED["move"]]
    counted = dict(zip(path_table(FOLLOWED), tenuki_counts(parent_row, keys, FOLLOWED["count"].to_numpy())))
    assert counted[("dc", "ce", "cd")] == 15 and counted[("dc", "ce")] == 0


# the evidence at the position, off or (share, games, confidence)
POSITION = st.one_of(
    st.none(), st.tuples(st.floats(0.05, 0.9), st.integers(2, 40), st.one_of(st.none(), st.floats(0.5, 0.99)))
)


def with_position(rules, position):
    """``rules`` with the evidence at the position (``POSITION``) where drawn."""
    from dataclasses import replace

    if position is None:
        return rules
    share, games, confidence = position
    return replace(rules, position_share=share, position_games=games, position_confidence=confidence)


def test_a_move_players_choose_at_its_position_enters_below_the_threshold():
    """The evidence at the position: dc ce dg is played by 40 of the 50
    sequences at dc ce (80%), below a threshold of 45; with position_share
    0.5 and 30 games it enters (so its line reaches min_length), and its
    rarer sibling (10 of 50) does not; with 41 games asked, or a share of
    0.9, it does not, and the lower end of the 95% interval of 40 of 50
    (0.67) reaches 0.6 but not 0.7."""
    from dataclasses import replace

    t = table_of((200, "dd fc cf"), (40, "dc ce dg"), (10, "dc ce df"))
    base = PruneRules()
    assert ("dc", "ce", "dg") not in paths(prune(t, 45, 3, base))
    kept = paths(prune(t, 45, 3, replace(base, position_share=0.5, position_games=30)))
    assert ("dc", "ce", "dg") in kept and ("dc", "ce", "df") not in kept and ("dd", "fc", "cf") in kept
    assert ("dc", "ce", "dg") not in paths(prune(t, 45, 3, replace(base, position_share=0.5, position_games=41)))
    assert ("dc", "ce", "dg") not in paths(prune(t, 45, 3, replace(base, position_share=0.9, position_games=30)))
    at_95 = replace(base, position_games=30, position_confidence=0.95)
    assert ("dc", "ce", "dg") in paths(prune(t, 45, 3, replace(at_95, position_share=0.6)))
    assert ("dc", "ce", "dg") not in paths(prune(t, 45, 3, replace(at_95, position_share=0.7)))


@settings(max_examples=150, deadline=None)
@given(
    table=tables(),
    a=st.integers(1, 60),
    gap=st.integers(1, 60),
    min_length=st.integers(0, 5),
    follow=st.one_of(st.none(), st.floats(0.05, 1.0)),
    min_share=st.floats(0, 0.6),
    fold=st.booleans(),
)
def test_the_subtree_law_holds_with_every_rule(table, a, gap, min_length, follow, min_share, fold):
    rules = PruneRules(follow, min_share, fold)
    low = path_table(prune(table, a, min_length, rules))
    high = path_table(prune(table, a + gap, min_length, rules))
    assert set(high) <= set(low) and all(low[p] == v for p, v in high.items())
    full = path_table(table)
    for path, (count, _) in low.items():
        if path:
            parent = full[path[:-1]][0]
            assert count >= a or (follow is not None and count >= follow * parent)
            assert count >= min_share * parent
            if fold and path[-1] == "--" and not any(q[: len(path)] == path and q != path for q in low):
                raise AssertionError(f"a tenuki leaf stayed: {path}")


# -- a book that grows with the games and stays right (the evidence threshold, min_games, natural ends) ---------

from joseki_miner.method.trie import GameStats  # noqa: E402


def test_no_node_of_fewer_games_than_min_games_whatever_the_rule():
    """A line played 12 times in 4 games (one game with it in every corner,
    and three more) passes a count of 10 but has 4 games: min_games 5 cuts
    it, whatever the threshold or the pruning function says."""
    t = Trie()
    for g in range(20):
        t.insert([from_sgf(k) for k in "dd fc cf".split()], [N4] * 3, game=GameStats(g))
    t.insert([from_sgf(k) for k in "dc ce dg".split()], [N4] * 3, times=9, game=GameStats(100))
    for g in range(101, 104):
        t.insert([from_sgf(k) for k in "dc ce dg".split()], [N4] * 3, game=GameStats(g))
    table = trie_table(t)
    assert ("dc", "ce", "dg") in paths(prune(table, 10, 3))
    for rules in (PruneRules(min_games=5), PruneRules(min_games=5, follow=0.5), PruneRules(min_games=5, on_games=True)):
        kept = paths(prune(table, 1 if rules.on_games else 10, 3, rules))
        assert ("dc", "ce", "dg") not in kept and ("dd", "fc", "cf") in kept, rules


def test_the_threshold_on_games_counts_a_line_once_a_game():
    t = Trie()
    t.insert([from_sgf(k) for k in "dc ce dg".split()], [N4] * 3, times=30, game=GameStats(1))
    for g in range(2, 12):
        t.insert([from_sgf(k) for k in "dd fc cf".split()], [N4] * 3, game=GameStats(g))
    table = trie_table(t)
    assert set(paths(prune(table, 10, 3))) >= {("dc", "ce", "dg"), ("dd", "fc", "cf")}  # on counts: 30 and 10
    assert set(paths(prune(table, 10, 3, PruneRules(on_games=True)))) == {(), ("dd",), ("dd", "fc"), ("dd", "fc", "cf")}


def test_no_line_ends_one_move_before_a_reply_nearly_every_game_plays():
    """The issue's line: 83% go on with B[jc].  With follow 0.8 the reply
    is kept below the threshold when it has the games; where it has too
    few to be kept (min_games), the line ends where it last could, one
    move earlier, not just before the reply most games play."""
    t = table_of(
        (80, "dd fc cf db cc ic"), (30, "dd fc cf db hc"), (25, "dd fc cf db cc hd gc"), (130, "dd fc cf db cc hd jc")
    )
    # hd: 155 of 235 (66%, no forced reply at cc); jc: 130 of 155 (84%)
    assert ("dd", "fc", "cf", "db", "cc", "hd") in paths(prune(t, 150, 3))
    assert ("dd", "fc", "cf", "db", "cc", "hd", "jc") not in paths(prune(t, 150, 3))
    kept = paths(prune(t, 150, 3, PruneRules(follow=0.8)))
    assert ("dd", "fc", "cf", "db", "cc", "hd", "jc") in kept  # extended to its natural end
    # jc in too few games to keep: hd is not where the line ends, cc is (its replies scatter: ic, hd)
    few = paths(prune(t, 150, 3, PruneRules(follow=0.8, min_games=131)))
    assert ("dd", "fc", "cf", "db", "cc", "hd") not in few and ("dd", "fc", "cf", "db", "cc") in few


@settings(max_examples=150, deadline=None)
@given(
    table=tables(),
    a=st.integers(1, 60),
    gap=st.integers(1, 60),
    min_length=st.integers(0, 5),
    follow=st.one_of(st.none(), st.floats(0.05, 1.0)),
    min_games=st.integers(1, 30),
    on_games=st.booleans(),
    fold=st.booleans(),
    position=POSITION,
)
def test_the_subtree_law_holds_with_the_evidence_rules(
    table, a, gap, min_length, follow, min_games, on_games, fold, position
):
    """Thresholds a < b: tree(b) inside tree(a), counts unchanged; no kept
    node of fewer than min_games games; no kept leaf with a reply of at
    least ``follow`` of its count (its line would end just before it)."""
    rules = with_position(PruneRules(follow, 0.0, fold, min_games, on_games), position)
    low_table = prune(table, a, min_length, rules)
    low = path_table(low_table)
    high = path_table(prune(table, a + gap, min_length, rules))
    assert set(high) <= set(low) and all(low[p] == v for p, v in high.items())
    assert (low_table["games"][low_table["depth"] > 0] >= min_games).all()
    full = path_table(table)
    if follow is not None:
        for path in low:
            if path and not any(q[: len(path)] == path and q != path for q in low):
                replies = [full[q][0] for q in full if len(q) == len(path) + 1 and q[:-1] == path and q[-1] != "--"]
                assert all(r < follow * full[path][0] for r in replies), path


@settings(max_examples=200, deadline=None)
@given(
    table=tables(),
    a=st.integers(1, 60),
    min_length=st.integers(0, 5),
    follow=st.one_of(st.none(), st.floats(0.05, 1.0)),
    min_share=st.floats(0, 0.6),
    min_games=st.integers(1, 30),
    on_games=st.booleans(),
    fold=st.booleans(),
    position=POSITION,
)
def test_pruning_the_candidates_alone_keeps_what_pruning_all_keeps(
    table, a, min_length, follow, min_share, min_games, on_games, fold, position
):
    """A trie kept as shards is pruned on its candidates alone (the rows
    let through, and the replies that would end no line before them): the
    same rows kept as pruning every row."""
    from joseki_miner.method.prune import Cut

    rules = with_position(PruneRules(follow, min_share, fold, min_games, on_games), position)
    _candidates_keep_the_same(table, Cut(a, min_length, rules))


def _candidates_keep_the_same(table, cut) -> None:
    """The candidates of ``table`` at ``cut`` hold every row it keeps, and
    pruning them alone keeps the same rows."""
    from joseki_miner.method.prune import candidates, keep_mask, parent_rows

    node, parent = table["node"].to_numpy(np.int64), table["parent"].to_numpy(np.int64)
    row = parent_rows(node, parent)
    depth, count, games = (table[c].to_numpy(np.int64) for c in ("depth", "count", "games"))
    key = np.array([TENUKI if m == "" else from_sgf(m) for m in table["move"].tolist()], np.int64)
    whole = keep_mask(row, depth, count, cut, key, games)
    some = candidates(row, depth, count, cut, key, games)
    assert not (whole & ~some).any()
    at = np.flatnonzero(some)
    new_row = np.full(len(node), -1, np.int64)
    new_row[at] = np.arange(len(at))
    alone = keep_mask(new_row[row[at]], depth[at], count[at], cut, key[at], games[at])
    assert np.array_equal(alone, whole[at])


@st.composite
def example_streams(draw):
    """Sequences in trie order (their games and numbers in them), the
    games' dates, and nodes whose sequences are ranges of them (a node's
    ranges apart, as merged orders give them)."""
    games = draw(st.integers(1, 8))
    day = draw(st.lists(st.sampled_from([0, 20040300, 20040301, 20171230]), min_size=games, max_size=games))
    rows = draw(st.integers(0, 40))
    game = draw(st.lists(st.integers(0, games - 1), min_size=rows, max_size=rows))
    sequence = draw(st.permutations(range(rows)))  # a (game, sequence) once
    node, first, count = [], [], []
    for n in range(draw(st.integers(0, 6)) if rows else 0):
        points = sorted(draw(st.sets(st.integers(0, rows), min_size=2, max_size=4)))
        for lo, hi in zip(points[::2], points[1::2]):
            node.append(n)
            first.append(lo)
            count.append(hi - lo)
    segments = {
        "node": np.array(node, np.int64),
        "first": np.array(first, np.int64),
        "count": np.array(count, np.int64),
    }
    return np.array(day, np.int64), np.array(game, np.int64), np.array(sequence, np.int64), segments


@settings(max_examples=300, deadline=None)
@given(stream=example_streams(), cuts=st.sets(st.integers(0, 40)), per_node=st.integers(0, 4))
def test_the_shards_example_games_are_those_of_the_whole(stream, cuts, per_node):
    """The sequences cut anywhere into shards, each shard's candidates
    (its nodes' most recent games among its rows) merged pick what the
    whole picks: the same games, at the same sequences and segments, in
    the same order."""
    import pyarrow as pa

    from joseki_miner.method.prune import top_games
    from joseki_miner.stages.prune import best_examples, recency, shard_examples

    day, game, sequence, segments = stream
    rank = recency(day[game], game, len(day))
    node_of, picks, segment = top_games(
        segments["first"], segments["count"], rank, sequence, per_node, segments["node"]
    )
    table = pa.table({"game": game, "sequence": sequence, "start": np.arange(len(game)), "orientation": game % 16})
    bounds = [0, *sorted(c for c in cuts if 0 < c < len(game)), len(game)]
    found = [
        shard_examples(table.slice(a, b - a), a, rank[a:b], segments, per_node) for a, b in zip(bounds, bounds[1:])
    ]
    picked = best_examples(found, per_node)
    assert np.array_equal(picked["node"], node_of)
    assert np.array_equal(picked["game"], game[picks]) and np.array_equal(picked["sequence"], sequence[picks])
    assert np.array_equal(picked["start"], picks) and np.array_equal(picked["segment"], segment)


def test_recency_ranks_the_most_recent_first_then_by_game():
    """A game's rank of its own date and number: the later date first,
    a tie by the game's number, the undated last."""
    from joseki_miner.stages.prune import recency

    day = np.array([20040301, 0, 20171230, 20040301, 20040300])
    assert np.argsort(recency(day, np.arange(5), 5)).tolist() == [2, 0, 3, 4, 1]


# -- opening families ------------------------------------------------------------------

# the 4-4 point is common; the 5-4 point (ed) a family of 40 games, its main line played by 12 of them; the
# 6-4 point (fd) as often, but a side's stone, not a corner's
FAMILIES = table_of(
    (200, "dd cc dc cd"),
    (40, "ed cd dg"),
    (28, "ed cc cd"),
    (12, "ed dc dg"),
    (40, "fd cd dg"),
    (30, "fd dc cd"),
)


def test_an_opening_family_keeps_its_main_lines_below_the_threshold():
    """A corner point played in enough games keeps the lines that a share
    of its own games plays (here 25%: 20 of its 80), where the threshold
    on all the games (50) cuts its whole book; a rarer line of it, and a
    side's stone as often played, go; the thesis' prune (no families) is
    unchanged."""
    rules = PruneRules(family_games=60, family_fraction=0.25)
    kept = paths(prune(FAMILIES, 50, 3, rules))
    assert ("ed", "cd", "dg") in kept and ("ed", "cc", "cd") in kept
    assert ("ed", "dc", "dg") not in kept  # 12 of its 80: under a quarter
    assert not any(p[:1] == ("fd",) for p in kept)  # F16: the 6th line, no corner point
    assert ("dd", "cc", "dc", "cd") in kept
    assert paths(prune(FAMILIES, 50, 3)) == {p: v for p, v in kept.items() if p[:1] != ("ed",)}


def test_a_family_threshold_is_never_above_the_threshold():
    """A common family keeps what the threshold keeps: its share of its
    own games would ask more of it."""
    rules = PruneRules(family_games=60, family_fraction=0.9)
    assert paths(prune(FAMILIES, 50, 3, rules)) == paths(prune(FAMILIES, 50, 3))


def test_a_first_move_under_family_games_is_no_family():
    rules = PruneRules(family_games=81, family_fraction=0.25)
    assert not any(p[:1] == ("ed",) for p in paths(prune(FAMILIES, 50, 3, rules)))


@settings(max_examples=60)
@given(
    st.integers(1, 80),
    st.integers(1, 120),
    st.floats(0.05, 0.9),
    st.sampled_from([None, 0.95]),
)
def test_families_pruned_on_candidates_alone_give_the_same_rows(threshold_, family_games, fraction, confidence):
    """The law the dask engine's shards rely on holds with families: the
    candidates (read without them, at the least threshold any family can
    have) hold every row kept, and pruning them alone keeps the same."""
    from joseki_miner.method.prune import Cut

    rules = PruneRules(family_games=family_games, family_fraction=fraction, family_confidence=confidence)
    _candidates_keep_the_same(FAMILIES, Cut(threshold_, 3, rules))


def test_the_quantiles_kept_are_those_statistics_gives():
    """threshold.QUANTILES (read without loading statistics) are
    NormalDist's to the last bit, so every threshold stays the same."""
    from statistics import NormalDist

    from joseki_miner.method.threshold import QUANTILES, z_of

    for confidence, z in QUANTILES.items():
        assert z == NormalDist().inv_cdf((1 + confidence) / 2)
    assert z_of(0.97) == NormalDist().inv_cdf(0.985) and z_of(None) == 0.0
