"""What a node is (joseki_miner.method.kinds): the rules of the method
section, each on a line drawn as a board diagram, and the laws the node
table's codes keep.

A diagram is the upper left part of the board; ``X3`` is Black's third
move of the line, ``O2`` White's second.  Where one colour plays twice in
a row, the other played elsewhere: a tenuki is read between them.  The
line is turned to the tree's normal form before it is judged, so any
corner would do.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from joseki_miner.method import kinds
from joseki_miner.method.kinds import KindRules, codes, ends, kind_of, lines
from joseki_miner.book.lookup import query
from joseki_miner.method.points import SIZE, TENUKI, point

RULES = KindRules(region=9)  # the kinds of configs/default.yaml read from a line alone, before follow-ups were named
DEFAULT = KindRules(region=9, follow_up=True, approach=0.6)  # configs/default.yaml


def line(diagram: str) -> tuple[int, ...]:
    """The trie keys of a line drawn as a diagram (module docstring)."""
    moves = []
    for r, row in enumerate(diagram.strip("\n").splitlines()):
        for c, cell in enumerate(row.split()):
            if cell != ".":
                moves.append((int(cell[1:]), cell[0], point(r, c)))
    moves.sort()
    text = ";".join(
        f"{'B' if colour == 'X' else 'W'}[{'abcdefghijklmnopqrs'[p % SIZE]}{'abcdefghijklmnopqrs'[p // SIZE]}]"
        for _, colour, p in moves
    )
    return query(text).keys


def test_a_joseki_both_players_play_in_the_corner_and_stay_in_its_region():
    # the 4-4 point, the low approach, the knight's move
    keys = line("""
        .  .  .  .  .  .  .
        .  .  .  .  .  .  .
        .  .  .  .  . O2  .
        .  .  . X1  .  .  .
        .  .  .  .  .  .  .
        .  . X3  .  .  .  .
    """)
    assert kind_of(keys, RULES) == "joseki"


def test_a_pincer_on_the_ninth_line_is_still_joseki():
    # the 4-4 point, low approach, two-space low pincer: the ninth line from the left
    keys = line("""
        .  .  .  .  .  .  .  .  .
        .  .  .  .  .  .  .  .  .
        .  .  .  .  . O2  .  . X3
        .  .  . X1  .  .  .  .  .
    """)
    assert max(lines(k) for k in keys) == 9
    assert kind_of(keys, RULES) == "joseki"


def test_an_enclosure_the_corners_first_player_plays_again_before_the_other_answers():
    # the 3-4 point and the small knight's enclosure: White played elsewhere
    keys = line("""
        .  .  .  .  .
        .  .  .  .  .
        .  .  . X1  .
        .  .  .  .  .
        .  . X2  .  .
    """)
    assert keys[1] == TENUKI
    assert kind_of(keys, RULES) == "enclosure"


def test_a_tenuki_later_in_the_line_keeps_it_a_joseki_without_follow_ups():
    # the 4-4 point, the low approach, Black elsewhere, White's double approach (a follow-up where they are named)
    keys = line("""
        .  .  .  .  .  .  .
        .  .  .  .  .  .  .
        .  .  .  .  . O2  .
        .  .  . X1  .  .  .
        .  .  .  .  .  .  .
        .  . O3  .  .  .  .
    """)
    assert TENUKI in keys and keys[1] != TENUKI
    assert kind_of(keys, RULES) == "joseki" and kind_of(keys, DEFAULT) == "follow-up"


def test_a_line_that_goes_on_after_a_tenuki_is_a_follow_up():
    # the 4-4 point, the low approach, the knight's move, the slide, the block; White elsewhere (the joseki
    # ended: White's extension is missing), and later Black's pincer: the corner's later life, not the joseki
    keys = line("""
        .  .  .  .  .  .  .  .
        .  .  . O4  .  .  .  .
        .  . X5  .  . O2  . X6
        .  .  . X1  .  .  .  .
        .  .  .  .  .  .  .  .
        .  . X3  .  .  .  .  .
    """)
    assert keys[5] == TENUKI and len(keys) == 7
    assert kind_of(keys, DEFAULT) == "follow-up" and kind_of(keys[:5], DEFAULT) == "joseki"
    assert kind_of(keys[:6], DEFAULT) == "joseki"  # a line that ends on its tenuki: the joseki ended there
    assert kind_of(keys, RULES) == "joseki"  # kinds.follow_up: false keeps it a joseki
    # a tenuki at the second entry makes an enclosure, not a follow-up: the corner's first player plays again
    enclosure = line("""
        .  .  .  .  .
        .  .  .  .  .
        .  .  . X1  .
        .  .  .  .  .
        .  . X2  . O3
    """)
    assert enclosure[1] == TENUKI and kind_of(enclosure, DEFAULT) == "enclosure"


def test_an_approach_from_the_side_answered_on_the_side_is_a_fuseki_shape():
    """The second player's first move, on the 7th line or beyond, whose
    replies are mostly side moves (on the 7th line or beyond): the
    approach's purpose is the whole board.  Its kind needs the counts of
    its replies; an approach answered in the corner stays a joseki."""
    dd, id_, gc, hc, fc, cf, db = (
        point(3, 3),
        point(3, 8),
        point(2, 6),
        point(2, 7),
        point(2, 5),
        point(5, 2),
        point(1, 3),
    )
    weighted = {
        (dd, id_, gc): 30,
        (dd, id_, hc): 20,
        (dd, id_, cf): 15,  # 50 of 65 on the side: 77%
        (dd, fc, cf): 60,
        (dd, fc, db): 10,
        (dd, hc, cf): 40,
        (dd, hc, id_): 10,
    }  # hc: 20% on the side
    parent, depth, key, nodes = _table(list(weighted))
    count = np.array([sum(n for p, n in weighted.items() if p[: len(q)] == q) for q in nodes], np.int64)
    code = dict(zip(nodes, kinds.names(codes(parent, depth, key, DEFAULT, count))))
    assert code[(dd, id_)] == code[(dd, id_, cf)] == "approach"  # the line keeps the kind it turned to
    assert code[(dd, hc)] == code[(dd, hc, cf)] == code[(dd, fc, cf)] == "joseki"
    # at 0.8 the approach's 77% is too few; without the rule (kinds.approach: null) nothing is an approach
    assert (
        dict(zip(nodes, kinds.names(codes(parent, depth, key, KindRules(9, True, 0.8), count))))[(dd, id_)] == "joseki"
    )
    assert "approach" not in kinds.names(codes(parent, depth, key, KindRules(9, True, None), count))
    # the approaches a fuseki shape: where a joseki ends, none is
    assert {
        nodes[i] for i in np.flatnonzero(ends(parent, depth, key, codes(parent, depth, key, DEFAULT, count), 3))
    } == {(dd, fc, cf), (dd, fc, db), (dd, hc, cf), (dd, hc, id_)}


def test_an_extension_a_move_on_the_central_line():
    # the 4-4 point, the low approach, the knight's move, White's extension to K16
    keys = line("""
        .  .  .  .  .  .  .  .  .  .
        .  .  .  .  .  .  .  .  .  .
        .  .  .  .  . O2  .  .  .  .
        .  .  . X1  .  .  .  .  . O4
        .  .  .  .  .  .  .  .  .  .
        .  . X3  .  .  .  .  .  .  .
    """)
    assert lines(keys[-1]) == 10  # the central line
    assert kind_of(keys[:3], RULES) == "joseki" and kind_of(keys, RULES) == "extension"
    assert kind_of(keys, KindRules(region=10)) == "joseki"  # a region that holds the central line


def test_an_extension_outweighs_an_enclosure():
    # the 3-4 point and the 3-10 point: the Chinese opening's corner
    keys = line("""
        .  .  .  .  .  .  .  .  .  .
        .  .  .  .  .  .  .  .  .  .
        .  .  . X1  .  .  .  .  . X2
    """)
    assert kind_of(keys, RULES) == "extension"


def test_a_line_played_on_the_side_far_from_the_corner_is_an_extension():
    # the side star point and an approach to it (a first move this far up the side starts no sequence where
    # corner.start keeps sequences near the corners; in the thesis it starts one)
    keys = line("""
        .  .  .  .  .  .  .  .  .  .
        .  .  .  .  .  .  .  .  .  .
        .  .  .  .  .  .  .  . O2  .
        .  .  .  .  .  .  .  .  . X1
    """)
    assert kind_of(keys, RULES) == "extension"


def _table(paths: list[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[int, ...]]]:
    """A node table (parents first) of the prefix-closed set of ``paths``."""
    nodes = sorted({p[:i] for p in paths for i in range(len(p) + 1)}, key=lambda p: (len(p), p))
    row = {p: i for i, p in enumerate(nodes)}
    parent = np.array([row[p[:-1]] if p else 0 for p in nodes], np.int64)
    depth = np.array([len(p) for p in nodes], np.int64)
    key = np.array([p[-1] if p else TENUKI for p in nodes], np.int64)
    return parent, depth, key, nodes


POINTS = st.integers(0, SIZE * SIZE - 1)
ENTRY = st.one_of(POINTS, st.just(TENUKI))


@st.composite
def lines_(draw):
    first = draw(POINTS)
    rest = draw(st.lists(ENTRY, max_size=8))
    out = [first]
    for k in rest:  # no two tenuki in a row, none at the end
        if k == TENUKI and out[-1] == TENUKI:
            continue
        out.append(k)
    while out[-1] == TENUKI:
        out.pop()
    return tuple(out)


@settings(max_examples=150, deadline=None)
@given(st.lists(lines_(), min_size=1, max_size=12), st.integers(1, 12), st.booleans())
def test_the_table_codes_are_each_paths_kind_and_never_go_back(paths, region, follow_up):
    rules = KindRules(region, follow_up)
    parent, depth, key, nodes = _table(paths)
    code = codes(parent, depth, key, rules)
    for i, path in enumerate(nodes):
        if path:
            assert kinds.KINDS[code[i]] == kind_of(path, rules)
            assert code[i] >= code[parent[i]]  # joseki < follow-up < approach < enclosure < extension, never back


def test_where_a_joseki_ends():
    """A joseki move with no joseki continuation, of at least min_length
    moves; a continuation through a tenuki counts where a joseki move
    follows it; a line that goes on only into fuseki ends where it turns."""
    dd, fc, cf, jd, cc = point(3, 3), point(2, 5), point(5, 2), point(3, 9), point(2, 2)
    paths = [
        (dd, fc, cf, jd),  # joseki for three moves, then an extension: ends at cf
        (dd, fc, TENUKI, cf, cc),  # goes on through a tenuki: ends at cc, not at fc
        (dd, fc, cc),  # ends at its last move
        (dd, TENUKI, fc),  # an enclosure: no joseki ends in it
    ]
    parent, depth, key, nodes = _table(paths)
    code = codes(parent, depth, key, RULES)
    got = {nodes[i] for i in np.flatnonzero(ends(parent, depth, key, code, 3))}
    assert got == {(dd, fc, cf), (dd, fc, TENUKI, cf, cc), (dd, fc, cc)}
    # with follow-ups named, the line after the tenuki is none: (dd, fc) is two moves, so no joseki ends there
    code = codes(parent, depth, key, DEFAULT)
    assert {nodes[i] for i in np.flatnonzero(ends(parent, depth, key, code, 3))} == {(dd, fc, cf), (dd, fc, cc)}
    assert {nodes[i] for i in np.flatnonzero(ends(parent, depth, key, code, 2))} >= {(dd, fc, cf), (dd, fc, cc)}
    # two moves are shorter than min_length: (dd, fc) is no joseki of its own even where nothing follows it
    parent, depth, key, nodes = _table([(dd, fc, jd)])
    code = codes(parent, depth, key, RULES)
    assert not ends(parent, depth, key, code, 3).any()
    assert {nodes[i] for i in np.flatnonzero(ends(parent, depth, key, code, 2))} == {(dd, fc)}
