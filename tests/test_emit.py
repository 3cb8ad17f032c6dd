"""Tests of the SGF and DOT writers (joseki_miner.emit)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time

import pandas as pd
import pytest
from sgfmill import sgf

from joseki_miner.emit import (
    children_order,
    influence_dot,
    node_comment,
    to_dot,
    to_sgf,
)
from joseki_miner.points import DIRECTIONS

DOT = "/usr/bin/dot" if os.path.exists("/usr/bin/dot") else shutil.which("dot")


def make_table(rows):
    """rows: (node, parent, color, move, count, {dir: (b, w, n)}); counters
    default to all-neutral.  Depth is derived from the parent."""
    depth = {}
    out = []
    for node, parent, color, move, count, inf in rows:
        depth[node] = 0 if parent < 0 else depth[parent] + 1
        rec = dict(node=node, parent=parent, depth=depth[node], color=color, move=move, count=count)
        for d in DIRECTIONS:
            if parent < 0:
                b, w, n = 0, 0, 0
            else:
                b, w, n = (inf or {}).get(d, (0, 0, count))
            rec[f"{d}_black"], rec[f"{d}_white"], rec[f"{d}_neutral"] = b, w, n
        out.append(rec)
    return pd.DataFrame(out)


# Root 300 sequences.  Children of the root: dd 150 > cd 100 (tie with tenuki
# "" at 100: tenuki first) ...  ids deliberately not in output order.
ROWS = [
    (0, -1, "", "", 300, None),
    (1, 0, "B", "cd", 50, {"right": (20, 5, 25), "down": (20, 20, 10)}),
    (2, 0, "B", "dd", 150, {"right": (60, 15, 75), "down": (5, 5, 140)}),
    (3, 0, "B", "", 50, None),  # black tenuki at depth 1, tie with cd -> first
    (4, 0, "B", "dc", 50, None),  # tie with cd: "cd" < "dc"
    (5, 2, "W", "cf", 60, {"right": (0, 40, 20)}),
    (6, 2, "W", "fc", 90, {"up": (0, 2, 88)}),
    (7, 6, "B", "", 90, None),  # black tenuki under fc, single child
    (8, 7, "W", "cc", 90, {"down": (27, 27, 36)}),  # exactly 30%: none
    (9, 5, "B", "dg", 30, None),
    (10, 5, "B", "ch", 30, None),  # tie with dg: "ch" < "dg"
    (11, 1, "W", "dc", 50, None),
]


@pytest.fixture
def table():
    return make_table(ROWS)


def sgf_move(node):
    """(colour, SGF point or "" for a pass) of an sgfmill node.  sgfmill
    counts rows from the bottom: convert back to SGF letters."""
    colour, move = node.get_move()
    if move is None:
        return colour, ""
    row, col = move
    return colour, "abcdefghijklmnopqrs"[col] + "abcdefghijklmnopqrs"[18 - row]


def walk(node):
    """Preorder (move, comment, children) tree of an sgfmill node."""
    colour, move = sgf_move(node)
    comment = node.get("C") if node.has_property("C") else None
    return (colour, move, comment, [walk(c) for c in node])


def expected_tree(tbl, share=0.30):
    order = children_order(tbl)
    rows = {int(r["node"]): r for _, r in tbl.iterrows()}

    def build(n):
        r = rows[n]
        colour = r["color"].lower()
        pc = int(rows[int(r["parent"])]["count"])
        return (colour, r["move"], node_comment(r, pc, share), [build(c) for c in order[n]])

    return [build(c) for c in order[0]]


# ---------------------------------------------------------------- ordering


def test_children_order_by_count_then_move(table):
    order = children_order(table)
    assert order[0] == [2, 3, 1, 4]  # 150, then ties at 50: "" < "cd" < "dc"
    assert order[2] == [6, 5]  # 90 before 60
    assert order[5] == [10, 9]  # tie 30: "ch" < "dg"
    assert order[6] == [7]
    assert order[9] == [] and order[11] == []
    assert set(order) == set(table["node"])


def test_children_order_independent_of_row_order(table):
    shuffled = table.sample(frac=1.0, random_state=7).reset_index(drop=True)
    assert children_order(shuffled) == children_order(table)
    assert to_sgf(shuffled) == to_sgf(table)
    # dot lists nodes in table order by design; the edges are the same
    edges = lambda s: sorted(l for l in s.splitlines() if "->" in l)  # noqa: E731
    assert edges(to_dot(shuffled)) == edges(to_dot(table))


# ---------------------------------------------------------------- comments


def comment_for(b, w, n, share=0.30):
    row = make_table([(0, -1, "", "", 100, None), (1, 0, "B", "dd", b + w + n, {"right": (b, w, n)})]).iloc[1]
    return node_comment(row, 100, share)


def test_comment_verdicts():
    assert "right: 40/10/50 black" in comment_for(40, 10, 50)
    assert "right: 10/40/50 white" in comment_for(10, 40, 50)
    assert "right: 40/40/20 any" in comment_for(40, 40, 20)
    assert "right: 10/10/80 none" in comment_for(10, 10, 80)
    # exactly 30% is not *more than* 30%
    assert "right: 30/31/39 white" in comment_for(30, 31, 39)
    assert "right: 30/30/40 none" in comment_for(30, 30, 40)
    # the share parameter is honoured
    assert "right: 30/30/40 any" in comment_for(30, 30, 40, share=0.25)


def test_comment_format_exact(table):
    row = table[table["node"] == 2].iloc[0]
    assert node_comment(row, 300, 0.30) == (
        "Count: 150 (50.0% of parent)\n"
        "Influence (black/white/neutral, verdict):\n"
        "up: 0/0/150 none\n"
        "right: 60/15/75 black\n"
        "down: 5/5/140 none\n"
        "left: 0/0/150 none"
    )


def test_comment_has_all_twelve_counters(table):
    row = table[table["node"] == 1].iloc[0]
    text = node_comment(row, 300, 0.30)
    assert text.startswith("Count: 50 (16.7% of parent)\n")
    for d in DIRECTIONS:
        b, w, n = row[f"{d}_black"], row[f"{d}_white"], row[f"{d}_neutral"]
        assert re.search(rf"^{d}: {b}/{w}/{n} (black|white|any|none)$", text, re.M)
    assert "right: 20/5/25 black" in text
    assert "down: 20/20/10 any" in text


def test_comment_accepts_dict_and_namedtuple(table):
    series = table.iloc[5]
    as_dict = series.to_dict()
    as_tuple = next(table.iloc[5:6].itertuples(index=False))
    assert node_comment(series, 150, 0.3) == node_comment(as_dict, 150, 0.3) == node_comment(as_tuple, 150, 0.3)


def test_tenuki_comment(table):
    row = table[table["node"] == 7].iloc[0]
    text = node_comment(row, 90, 0.30)
    assert "Tenuki: B plays elsewhere" in text
    assert "(100.0% of parent)" in text
    normal = node_comment(table[table["node"] == 6].iloc[0], 150, 0.30)
    assert "Tenuki" not in normal


def test_root_comment_without_parent(table):
    text = node_comment(table.iloc[0], None, 0.30)
    assert text.startswith("Count: 300\n")
    assert "of parent" not in text


# ---------------------------------------------------------------- SGF


def test_sgf_rereads_to_same_tree(table):
    text = to_sgf(table)
    game = sgf.Sgf_game.from_string(text)
    root = game.get_root()
    assert game.get_size() == 19
    assert root.get("FF") == 4 and root.get("GM") == 1
    assert root.get("AP") == ("joseki-miner", "0.1")
    assert root.get("GN") == "Joseki tree"
    assert root.get_move() == (None, None)
    got = [walk(c) for c in root]
    assert got == expected_tree(table)


def test_sgf_structure_details(table):
    text = to_sgf(table)
    game = sgf.Sgf_game.from_string(text)
    root = game.get_root()
    kids = list(root)
    # children order: dd (150), tenuki (50), cd (50), dc (50)
    assert [sgf_move(k) for k in kids] == [("b", "dd"), ("b", ""), ("b", "cd"), ("b", "dc")]
    assert kids[1].get_move() == ("b", None)  # a real pass
    # tenuki written as a FF[4] pass "B[]"
    assert ";B[]C[" in text and "tt" not in text
    # single-child chain fc -> tenuki -> cc continues without parentheses
    assert re.search(r";W\[fc\]C\[[^\]]*\];B\[\]C\[[^\]]*\];W\[cc\]", text)
    # comments carry count and share
    dd = kids[0]
    assert dd.get("C").startswith("Count: 150 (50.0% of parent)")
    fc, cf = list(dd)
    assert sgf_move(fc) == ("w", "fc") and sgf_move(cf) == ("w", "cf")
    assert fc.get("C").startswith("Count: 90 (60.0% of parent)")
    assert cf.get("C").startswith("Count: 60 (40.0% of parent)")
    assert "right: 0/40/20 white" in cf.get("C")
    cc = list(list(fc)[0])[0]
    assert "down: 27/27/36 none" in cc.get("C")
    # root comment: leaves, nodes, sequences
    rc = root.get("C")
    assert "Joseki (leaves): 6" in rc  # nodes 3, 4, 8, 9, 10, 11
    assert "Nodes: 11" in rc
    assert "Sequences: 300" in rc
    # one game tree
    assert text.startswith("(;FF[4]GM[1]SZ[19]CA[UTF-8]AP[joseki-miner:0.1]")
    assert text.rstrip().endswith(")")
    assert len(sgf.Sgf_game.from_string(text).get_main_sequence()) >= 1


def test_sgf_share_parameter(table):
    # node 1 right: 20/5/25 -> black at 30%, but white 5/50 = 10% > 5%: any
    loose = sgf.Sgf_game.from_string(to_sgf(table, share=0.05))
    cd = list(loose.get_root())[2]
    assert "right: 20/5/25 any" in cd.get("C")


def test_sgf_escaping_title():
    tbl = make_table([(0, -1, "", "", 10, None), (1, 0, "B", "dd", 10, None)])
    title = "odd ] title \\ with [brackets]\nand a newline"
    text = to_sgf(tbl, title=title)
    assert "odd \\] title \\\\ with [brackets\\]" in text
    root = sgf.Sgf_game.from_string(text).get_root()
    assert root.get("GN") == "odd ] title \\ with [brackets] and a newline"
    assert root.get("C").startswith(title + "\n")
    assert [sgf_move(c) for c in root] == [("b", "dd")]


def test_sgf_root_only():
    tbl = make_table([(0, -1, "", "", 0, None)])
    text = to_sgf(tbl)
    root = sgf.Sgf_game.from_string(text).get_root()
    assert len(root) == 0
    assert "Joseki (leaves): 0" in root.get("C")


def test_sgf_large_tree_fast():
    # a breadth-first synthetic tree of 100k nodes, four children per node
    n_nodes = 100_000
    letters = "abcdefghijklmnopqrs"
    node = list(range(n_nodes))
    parent = [-1] + [(i - 1) // 4 for i in range(1, n_nodes)]
    depth = [0] * n_nodes
    for i in range(1, n_nodes):
        depth[i] = depth[parent[i]] + 1
    data = dict(
        node=node,
        parent=parent,
        depth=depth,
        color=["" if d == 0 else ("B" if d % 2 else "W") for d in depth],
        move=[""] + [letters[(i - 1) % 4] + letters[i % 19] for i in range(1, n_nodes)],
        count=[10**6] + [1000 - (i - 1) % 4 for i in range(1, n_nodes)],
    )
    for d in DIRECTIONS:
        data[f"{d}_black"] = [0] * n_nodes
        data[f"{d}_white"] = [0] * n_nodes
        data[f"{d}_neutral"] = data["count"]
    tbl = pd.DataFrame(data)
    t0 = time.perf_counter()
    text = to_sgf(tbl)
    assert time.perf_counter() - t0 < 20
    assert text.count(";") == n_nodes
    t0 = time.perf_counter()
    dot = to_dot(tbl)
    assert time.perf_counter() - t0 < 20
    assert dot.count("->") == n_nodes - 1
    game = sgf.Sgf_game.from_string(text)
    assert len(game.get_root()) == 4


# ---------------------------------------------------------------- DOT


def node_lines(dot):
    return [l for l in dot.splitlines() if re.match(r"^\s*n\d+ \[label=", l)]


def edge_lines(dot):
    return [l.strip() for l in dot.splitlines() if "->" in l]


def test_dot_structure(table):
    dot = to_dot(table)
    assert dot.startswith('digraph "joseki" {')
    assert dot.rstrip().endswith("}")
    nodes = node_lines(dot)
    assert len(nodes) == len(table)
    # node lines in id order
    assert [int(re.match(r"\s*n(\d+)", l).group(1)) for l in nodes] == sorted(table["node"])
    edges = edge_lines(dot)
    assert len(edges) == len(table) - 1
    expected = {f"n{int(p)} -> n{int(n)};" for n, p in zip(table["node"], table["parent"]) if p >= 0}
    assert set(edges) == expected
    # children edges in children_order
    assert [e for e in edges if e.startswith("n0 ")] == ["n0 -> n2;", "n0 -> n3;", "n0 -> n1;", "n0 -> n4;"]
    assert 'n0 [label="empty board\\n300"' in dot
    assert 'n2 [label="B dd\\n150"' in dot
    assert 'n3 [label="B tenuki\\n50"' in dot
    assert 'n8 [label="W cc\\n90"' in dot
    # every label carries its count
    for n, c in zip(table["node"], table["count"]):
        line = next(l for l in nodes if l.strip().startswith(f"n{n} ["))
        assert f"\\n{c}\"" in line


def test_dot_title_escaped(table):
    dot = to_dot(table, title='my "joseki" \\ tree')
    assert dot.startswith('digraph "my \\"joseki\\" \\\\ tree" {')


def test_influence_dot_letters(table):
    dot = influence_dot(table)
    nodes = node_lines(dot)
    assert len(nodes) == len(table)
    assert len(edge_lines(dot)) == len(table) - 1
    assert 'n0 [label="empty board"' in dot
    assert 'n2 [label="B dd\\nR:B D: "' in dot  # right black, down none
    assert 'n1 [label="B cd\\nR:B D:A"' in dot  # right black, down any
    assert 'n5 [label="W cf\\nR:W D: "' in dot  # right white
    assert 'n8 [label="W cc\\nR:  D: "' in dot  # exactly 30% -> none
    assert 'n7 [label="B tenuki\\nR:  D: "' in dot
    # only right and down: no up/left letters, no counts
    for l in nodes:
        label = re.search(r'label="([^"]*)"', l).group(1)
        if label == "empty board":
            continue
        first, second = label.split("\\n")
        assert re.fullmatch(r"R:[BWA ] D:[BWA ]", second), label
    # node 6 has white up-influence (2/90 -> none anyway); counters of up and
    # left never show: make left strongly white and check the label ignores it
    t2 = table.copy()
    i = t2.index[t2["node"] == 4][0]
    t2.loc[i, ["left_black", "left_white", "left_neutral", "up_black", "up_white", "up_neutral"]] = [0, 50, 0, 50, 0, 0]
    assert 'n4 [label="B dc\\nR:  D: "' in influence_dot(t2)


def test_influence_dot_share_and_start(table):
    assert 'n2 [label="B dd\\nR:A D: "' in influence_dot(table, share=0.05)
    sub = influence_dot(table, start=2)
    ids = sorted(int(re.match(r"\s*n(\d+)", l).group(1)) for l in node_lines(sub))
    assert ids == [2, 5, 6, 7, 8, 9, 10]
    assert len(edge_lines(sub)) == len(ids) - 1


def test_dot_renders_with_graphviz(table, tmp_path):
    if DOT is None:
        pytest.skip("Graphviz 'dot' program not installed (/usr/bin/dot missing)")
    for text in (to_dot(table, title='t "q" \\'), influence_dot(table), influence_dot(table, start=2)):
        res = subprocess.run([DOT, "-Tsvg"], input=text.encode(), capture_output=True, timeout=60)
        assert res.returncode == 0, res.stderr.decode()
        assert b"<svg" in res.stdout


# ---------------------------------------------------------------- determinism


def test_deterministic(table):
    again = make_table(ROWS)
    assert to_sgf(table) == to_sgf(again) == to_sgf(table)
    assert to_dot(table) == to_dot(again)
    assert influence_dot(table) == influence_dot(again)
    assert children_order(table) == children_order(again)
