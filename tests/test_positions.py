"""The position a line reaches (joseki_miner.method.positions): its stones
with captures taken, under the 8 symmetries, and the player to move; the
compiled keys of a whole node table group nodes as the exact reading does."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from joseki_miner.book.lookup import query
from joseki_miner.method.board import Board
from joseki_miner.method.points import BLACK, SIZE, TENUKI, WHITE, point
from joseki_miner.method.positions import position_keys, position_of
from joseki_miner.method.symmetry import POINT_MAP


def keys(text: str) -> tuple[int, ...]:
    return query(text).keys


def test_two_orders_of_one_enclosure_are_one_position():
    """R16 tenuki P17 and P17 tenuki R16, the small knight's enclosure in
    either order (each in its own normal form), reach one position."""
    a, b = keys("R16 tenuki P17"), keys("P17 tenuki R16")
    assert a != b and position_of(a)[0] == position_of(b)[0]
    assert position_of(a[:2])[0] != position_of(b[:2])[0]  # the first stone alone: the 3-4 point, then the 4-3


def test_the_player_to_move_and_captures_are_part_of_the_position():
    one = keys("D16 F17")
    assert position_of(one)[0] != position_of(one + (TENUKI,))[0]  # White to move, then Black after a tenuki
    # Black's stone at A19 captured by White's B19 and A18: no black stone is left
    line = (point(0, 0), point(0, 1), TENUKI, point(1, 0))
    (black, white, _, _), _ = position_of(line)
    assert black == () and len(white) == 2


def test_a_ko_fought_back_and_forth_returns_to_a_position_of_its_own():
    """Black takes the ko at C18, White takes it back at B18: the stones and
    the player to move are those before, but the line has stood there once
    already, so it is another position (one line never holds one position
    twice: merged, its sequences would count twice)."""
    line = (
        point(0, 1),
        point(1, 1),
        point(1, 0),
        point(0, 2),
        point(2, 1),
        point(2, 2),
        TENUKI,
        point(1, 3),
        point(1, 2),
        point(1, 1),
    )
    before, after = position_of(line[:8])[0], position_of(line[:10])[0]
    assert before[:3] == after[:3] and (before[3], after[3]) == (0, 1)
    parent, depth, key, nodes = _table([line])
    hi, lo, _ = position_keys(parent, depth, key)
    eight, ten = nodes.index(line[:8]), nodes.index(line[:10])
    assert (hi[eight], lo[eight]) != (hi[ten], lo[ten])


def _table(paths):
    nodes = [()]
    for p in sorted({p[:i] for p in paths for i in range(1, len(p) + 1)}):  # sorted: a depth-first walk
        nodes.append(p)
    row = {p: i for i, p in enumerate(nodes)}
    parent = np.array([row[p[:-1]] if p else 0 for p in nodes], np.int64)
    depth = np.array([len(p) for p in nodes], np.int64)
    key = np.array([p[-1] if p else TENUKI for p in nodes], np.int64)
    return parent, depth, key, nodes


CORNER = st.integers(0, 4).flatmap(lambda r: st.integers(0, 4).map(lambda c: r * SIZE + c))  # a 5x5 corner: captures


@st.composite
def lines(draw):
    out = [draw(CORNER)]
    for _ in range(draw(st.integers(0, 9))):
        k = draw(st.one_of(CORNER, st.just(TENUKI)))
        if k == TENUKI and out[-1] == TENUKI or k in out:
            continue
        out.append(k)
    while out[-1] == TENUKI:
        out.pop()
    return tuple(out)


@settings(max_examples=150, deadline=None)
@given(st.lists(lines(), min_size=1, max_size=25))
def test_the_compiled_keys_group_nodes_as_the_exact_positions_do(paths):
    parent, depth, key, nodes = _table(paths)
    hi, lo, transform = position_keys(parent, depth, key)
    exact = [position_of(p) for p in nodes]
    by_key: dict = {}
    by_exact: dict = {}
    for i, (position, _) in enumerate(exact):
        by_key.setdefault((hi[i], lo[i]), set()).add(i)
        by_exact.setdefault(position, set()).add(i)
    assert sorted(map(sorted, by_key.values())) == sorted(map(sorted, by_exact.values()))
    # each node's transform takes its own stones to the one image its position has
    for members in by_key.values():
        images = set()
        for i in members:
            black, white = _stones(nodes[i])
            t = int(transform[i])
            images.add((tuple(sorted(POINT_MAP[t][p] for p in black)), tuple(sorted(POINT_MAP[t][p] for p in white))))
        assert len(images) == 1


@settings(max_examples=100, deadline=None)
@given(st.lists(lines(), min_size=1, max_size=25), st.data())
def test_same_position_names_every_other_node_on_a_nodes_position(paths, data):
    """The book's "also reached by": for each node asked, the other nodes
    whose exact position is its own, none left out, none added."""
    from joseki_miner.method.positions import same_position

    parent, depth, key, nodes = _table(paths)
    hi, lo, _ = position_keys(parent, depth, key)
    exact = [position_of(p)[0] for p in nodes]
    asked = data.draw(st.lists(st.integers(0, len(nodes) - 1), unique=True))
    found = same_position(hi, lo, asked)
    for r in asked:
        others = [o for o in range(len(nodes)) if o != r and exact[o] == exact[r]]
        assert found.get(r, []) == others


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), max_size=60))
def test_the_position_order_is_that_of_both_keys_then_the_row(keys):
    """``position_order`` sorts by the first hash alone where it can: rows
    sharing it share the second too, save a collision of first hashes
    (drawn here often), which it sorts by both, as lexsort does."""
    from joseki_miner.method.positions import position_order

    hi = np.array([h for h, _ in keys], np.int64)
    lo = np.array([x for _, x in keys], np.int64)
    assert position_order(hi, lo).tolist() == np.lexsort((np.arange(len(hi)), lo, hi)).tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), max_size=60), st.data())
def test_the_rows_on_a_position_are_those_of_both_keys(keys, data):
    """``same_position`` (and ``sorted_alike`` in the index's order, which it
    searches) names the other rows whose two keys are a row's own, in row
    order, where first hashes collide too (drawn here often)."""
    from joseki_miner.method.positions import same_position

    hi = np.array([h for h, _ in keys], np.int64)
    lo = np.array([x for _, x in keys], np.int64)
    asked = data.draw(st.lists(st.integers(0, max(0, len(keys) - 1)), unique=True)) if keys else []
    found = same_position(hi, lo, asked)
    for r in asked:
        others = [o for o in range(len(keys)) if o != r and keys[o] == keys[r]]
        assert found.get(r, []) == others


@settings(max_examples=60, deadline=None)
@given(st.lists(lines(), min_size=1, max_size=25), st.data())
def test_the_other_orders_read_from_the_position_index_are_those_found_again(paths, data):
    """Prune names each node's other move orders from the build's position
    index (trie_positions.parquet) as it would by finding every node's
    position again, whether the trie's nodes are numbered 0 to n - 1 or
    not; an index of other nodes is refused."""
    import pytest

    from joseki_miner.runs.errors import UsageError
    from joseki_miner.stages.build import position_index
    from joseki_miner.stages.prune import transpositions_table

    parent, depth, key, nodes = _table(paths)
    gap = data.draw(st.integers(0, 3))  # node numbers with gaps where gap > 0
    node = np.arange(len(nodes), dtype=np.int64) * (gap + 1)
    arrays = {
        "node": node,
        "parent": np.where(depth > 0, node[parent], -1),
        "depth": depth,
        "key": key,
        "games": np.array(data.draw(st.lists(st.integers(1, 9), min_size=len(nodes), max_size=len(nodes))), np.int64),
        "count": np.ones(len(nodes), np.int64),
    }
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=len(nodes), max_size=len(nodes))))
    keep[0] = True
    new_id = np.where(keep, np.cumsum(keep) - 1, -1)
    index = position_index(arrays)
    assert transpositions_table(arrays, keep, new_id, index).equals(transpositions_table(arrays, keep, new_id))
    if len(nodes) > 1:
        short = {name: column[1:] for name, column in index.items()}
        twice = {**index, "node": np.r_[index["node"][:-1], index["node"][0]]}  # one node twice, one left out
        beyond = {**index, "node": np.where(index["node"] == node[-1], node[-1] + 1, index["node"])}
        for wrong in (short, twice, beyond):
            with pytest.raises(UsageError, match="position index"):
                transpositions_table(arrays, keep, new_id, wrong)


def _stones(line: tuple[int, ...]) -> tuple[list[int], list[int]]:
    b = Board()
    for i, k in enumerate(line):
        if k != TENUKI:
            b.play(BLACK if i % 2 == 0 else WHITE, k)
    return (
        [p for p in range(SIZE * SIZE) if b.grid[p] == BLACK],
        [p for p in range(SIZE * SIZE) if b.grid[p] == WHITE],
    )
