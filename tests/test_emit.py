"""Tests of the SGF and DOT writers (joseki_miner.book.emit)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time

import pandas as pd
import pyarrow as pa
import pytest
from sgfmill import sgf

from joseki_miner import __version__
from joseki_miner.book.words import About, make_book
from joseki_miner.book.emit import children_order, influence_dot, node_comment, root_comment, to_dot, to_sgf
from joseki_miner.method.points import DIRECTIONS, from_sgf

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
    book = make_book(tbl, about=About(share=share))

    def build(n):
        return (
            book.get(n, "color").lower(),
            book.get(n, "move"),
            node_comment(book, n),
            [build(c) for c in book.children(n)],
        )

    return [build(c) for c in book.children(book.root)]


def stats_book(share=0.30):
    """ROWS with statistics: games (one fewer than the count where a game
    played the shape twice), wins, years; years and examples of node 2."""
    tbl = make_table(ROWS)
    tbl["games"] = tbl["count"] - (tbl["node"] == 2)
    tbl["black_wins"] = tbl["games"] // 2
    tbl["white_wins"] = tbl["games"] // 4
    tbl["first_year"], tbl["last_year"] = 2004, 2017
    years = pa.table({"node": [2, 2, 2], "year": [2004, 2011, 2017], "games": [9, 120, 20]})
    examples = pa.table(
        {
            "node": [2, 2],
            "black": ["Lee Sedol", "A"],
            "black_rank": ["9p", ""],
            "white": ["Gu Li", "B"],
            "white_rank": ["9p", ""],
            "date": ["2014-01-05", "2010"],
            "result": ["B+R", "W+2.5"],
            "collection": ["/data/pro", "/data/kgs"],
            "move": [23, 5],
            "corner": ["upper right", "lower left"],
            "source": ["/data/pro/x.sgf", "/data/kgs/y.sgf"],
            "location": ["", ""],
        }
    )
    about = About(
        games=200,
        games_by_year={2004: 100, 2011: 1000, 2017: 100},
        games_by_collection={"/data/pro": 100, "/data/kgs": 100},
        first_date="2004-03-01",
        last_date="2017-12-30",
        threshold=30,
        min_length=3,
        share=share,
    )
    return make_book(tbl, years, None, examples, about)


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
    edges = lambda s: sorted(line_ for line_ in s.splitlines() if "->" in line_)  # noqa: E731
    assert edges(to_dot(shuffled)) == edges(to_dot(table))


# ---------------------------------------------------------------- comments


def comment_for(b, w, n, share=0.30, counters=True):
    tbl = make_table([(0, -1, "", "", 100, None), (1, 0, "B", "dd", b + w + n, {"right": (b, w, n)})])
    return node_comment(make_book(tbl, about=About(share=share)), 1, counters)


def test_comment_verdicts_in_words_and_counters():
    assert "right 40/10/50 black" in comment_for(40, 10, 50)
    assert "Black's influence to the right." in comment_for(40, 10, 50)
    assert "right 10/40/50 white" in comment_for(10, 40, 50)
    assert "White's influence to the right." in comment_for(10, 40, 50)
    assert "right 40/40/20 any" in comment_for(40, 40, 20)
    assert "Both colours' influence to the right." in comment_for(40, 40, 20)
    assert "right 10/10/80 none" in comment_for(10, 10, 80)
    assert "influence" not in comment_for(10, 10, 80, counters=False)  # a direction that says nothing is not said
    # exactly 30% is not *more than* 30%
    assert "right 30/31/39 white" in comment_for(30, 31, 39)
    assert "right 30/30/40 none" in comment_for(30, 30, 40)
    # the share parameter is honoured
    assert "right 30/30/40 any" in comment_for(30, 30, 40, share=0.25)


def test_comment_for_players_exact():
    book = stats_book()
    assert node_comment(book, 2) == (
        "149 games (50% of the moves here); Black wins 67% (57-75%); 2004-2017, most popular in 2017\n"
        "Black's influence to the right.\n"
        "Played 150 times: some games play it in more than one corner.\n"
        "Games: Lee Sedol 9p (B) - Gu Li 9p (W), 2014-01-05, B+R (pro: x.sgf, move 23, upper right); "
        "A (B) - B (W), 2010, W+2.5 (kgs: y.sgf, move 5, lower left).\n"
        "Next: F17 60%, C14 40%."
    )


def test_raw_counters_only_when_asked(table):
    book = make_book(table, about=About())
    plain, raw = node_comment(book, 1), node_comment(book, 1, counters=True)
    assert raw.startswith(plain + "\n")
    assert (
        "Count 50 sequences; influence (black/white/neutral, verdict): up 0/0/50 none, right 20/5/25 black, "
        "down 20/20/10 any, left 0/0/50 none." in raw
    )
    assert "/" not in plain.split("\n")[0]


def test_tenuki_comment_says_who_plays_elsewhere(table):
    book = make_book(table, about=About())
    first = node_comment(book, 7).splitlines()[0]
    assert first == "Black tenuki: plays elsewhere; 90 times (100% of the moves here)"
    assert "tenuki" not in node_comment(book, 8).splitlines()[0]
    assert node_comment(book, 6).endswith("Next: tenuki 100%.")  # a tenuki child is named


def test_root_comment_says_how_to_read_the_tree():
    text = root_comment(stats_book())
    assert text.startswith("Joseki mined from 200 games (pro, kgs; 2004-2017)")
    assert "A tenuki (shown as a pass) means the player played elsewhere" in text
    assert "more than 30% of the games" in text
    assert "Kept: moves played at least 30 times and joseki of at least 3 moves." in text
    assert "Joseki: 6; moves in the tree: 11; sequences read: 300." in text
    assert text.endswith("First moves: D16 50%, tenuki 17%, C16 17%, D17 17%.")


# ---------------------------------------------------------------- SGF


def test_sgf_rereads_to_same_tree(table):
    text = to_sgf(table)
    game = sgf.Sgf_game.from_string(text)
    root = game.get_root()
    assert game.get_size() == 19
    assert root.get("FF") == 4 and root.get("GM") == 1
    assert root.get("AP") == ("joseki-miner", __version__)
    assert root.get("GN") == "Joseki tree (joseki-miner)"
    assert root.get_move() == (None, None)
    assert [walk(c) for c in root] == expected_tree(table)


def test_sgf_game_information_for_viewers():
    root = sgf.Sgf_game.from_string(to_sgf(stats_book())).get_root()
    assert root.get("GN") == "Joseki of 200 games: pro, kgs, 2004-2017"
    assert root.get("SO") == "pro, kgs"
    assert root.get("DT") == "2004-03-01,2017-12-30"
    assert root.get("C") == root_comment(stats_book())


def test_sgf_labels_name_exactly_the_children_with_their_share(table):
    book = stats_book()
    game = sgf.Sgf_game.from_string(to_sgf(book))
    stack = [(game.get_root(), book.root)]
    seen = 0
    while stack:
        node, n = stack.pop()
        kids = book.children(n)
        labels = dict(node.get("LB")) if node.has_property("LB") else {}
        expected = {}
        for c in kids:
            if book.get(c, "move"):
                row, col = 18 - from_sgf(book.get(c, "move")) // 19, from_sgf(book.get(c, "move")) % 19
                expected[(row, col)] = f"{round(100 * book.get(c, 'count') / book.get(n, 'count'))}%"
        assert labels == expected
        if n != book.root:
            first = node.get("C").splitlines()[0]
            assert first.startswith(f"{book.get(n, 'games'):,} games (") or first.startswith(
                f"{'Black' if book.get(n, 'color') == 'B' else 'White'} tenuki: plays elsewhere; "
            )
        seen += 1
        stack.extend(zip(list(node), kids))
    assert seen == len(table)


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
    assert re.search(r";W\[fc\]C\[[^\]]*\](LB[^;]*)?;B\[\]C\[[^\]]*\](LB[^;]*)?;W\[cc\]", text)
    # comments carry count and share
    dd = kids[0]
    assert dd.get("C").startswith("150 times (50% of the moves here)")
    fc, cf = list(dd)
    assert sgf_move(fc) == ("w", "fc") and sgf_move(cf) == ("w", "cf")
    assert fc.get("C").startswith("90 times (60% of the moves here)")
    assert cf.get("C").startswith("60 times (40% of the moves here)")
    assert "White's influence to the right." in cf.get("C")
    cc = list(list(fc)[0])[0]
    assert "influence" not in cc.get("C")
    rc = root.get("C")
    assert "Joseki: 6; moves in the tree: 11; sequences read: 300." in rc  # leaves 3, 4, 8, 9, 10, 11
    assert text.startswith(f"(;FF[4]GM[1]SZ[19]CA[UTF-8]AP[joseki-miner:{__version__}]")
    assert text.rstrip().endswith(")")


def test_sgf_share_parameter(table):
    # node 1 right: 20/5/25 -> black at 30%, but white 5/50 = 10% > 5%: any
    loose = sgf.Sgf_game.from_string(to_sgf(table, share=0.05, counters=True))
    cd = list(loose.get_root())[2]
    assert "right 20/5/25 any" in cd.get("C")
    assert "Both colours' influence to the right" in cd.get("C")


def test_sgf_escaping_title():
    tbl = make_table([(0, -1, "", "", 10, None), (1, 0, "B", "dd", 10, None)])
    title = "odd ] title \\ with [brackets]\nand a newline"
    text = to_sgf(tbl, title=title)
    assert "odd \\] title \\\\ with [brackets\\]" in text
    root = sgf.Sgf_game.from_string(text).get_root()
    assert root.get("GN") == "odd ] title \\ with [brackets] and a newline"
    assert [sgf_move(c) for c in root] == [("b", "dd")]


def test_sgf_escapes_what_the_games_bring():
    """A player's name with brackets and backslashes stays inside its comment."""
    book = stats_book()
    book.examples[2][0]["black"] = "Evil]C[x\\"
    node = list(sgf.Sgf_game.from_string(to_sgf(book)).get_root())[0]
    assert "Evil]C[x\\ 9p (B)" in node.get("C")


def test_sgf_root_only():
    tbl = make_table([(0, -1, "", "", 0, None)])
    text = to_sgf(tbl)
    root = sgf.Sgf_game.from_string(text).get_root()
    assert len(root) == 0
    assert "Joseki: 0; moves in the tree: 0" in root.get("C")


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
    assert len(re.findall(r";[BW]\[", text)) == n_nodes - 1  # the root is no move
    t0 = time.perf_counter()
    dot = to_dot(tbl)
    assert time.perf_counter() - t0 < 20
    assert dot.count("->") == n_nodes - 1
    game = sgf.Sgf_game.from_string(text)
    assert len(game.get_root()) == 4


# ---------------------------------------------------------------- DOT


def node_lines(dot):
    return [line_ for line_ in dot.splitlines() if re.match(r"^\s*n\d+ \[label=", line_)]


def edge_lines(dot):
    return [line_.strip() for line_ in dot.splitlines() if "->" in line_]


def test_dot_structure(table):
    dot = to_dot(table)
    assert dot.startswith('digraph "joseki" {')
    assert dot.rstrip().endswith("}")
    nodes = node_lines(dot)
    assert len(nodes) == len(table)
    # node lines in id order
    assert [int(re.match(r"\s*n(\d+)", line_).group(1)) for line_ in nodes] == sorted(table["node"])
    edges = edge_lines(dot)
    assert len(edges) == len(table) - 1
    expected = {f"n{int(p)} -> n{int(n)};" for n, p in zip(table["node"], table["parent"]) if p >= 0}
    assert set(edges) == expected
    # children edges in children_order
    assert [e for e in edges if e.startswith("n0 ")] == ["n0 -> n2;", "n0 -> n3;", "n0 -> n1;", "n0 -> n4;"]
    assert 'n0 [label="empty board\\n300"' in dot
    assert 'n2 [label="B D16\\n150"' in dot
    assert 'n3 [label="B tenuki\\n50"' in dot
    assert 'n8 [label="W C17\\n90"' in dot
    # every label carries its count
    for n, c in zip(table["node"], table["count"]):
        line = next(line_ for line_ in nodes if line_.strip().startswith(f"n{n} ["))
        assert f'\\n{c}"' in line


def test_the_drawings_name_moves_in_board_coordinates_as_every_page_does(table):
    """joseki.dot and influence.dot (and so their SVGs) label a node "W D18",
    as the SGF's comments and the report name moves, never by SGF letters."""
    from joseki_miner.book.words import make_book

    book = make_book(table)
    for dot in (to_dot(table), influence_dot(table)):
        for line_ in node_lines(dot):
            n = int(re.match(r"\s*n(\d+)", line_).group(1))
            label = re.search(r'label="([^"\\]*)', line_).group(1)
            assert label == ("empty board" if n == book.root else book.move_name(n)), label


def test_dot_title_escaped(table):
    dot = to_dot(table, title='my "joseki" \\ tree')
    assert dot.startswith('digraph "my \\"joseki\\" \\\\ tree" {')


def test_influence_dot_letters(table):
    dot = influence_dot(table)
    nodes = node_lines(dot)
    assert len(nodes) == len(table)
    assert len(edge_lines(dot)) == len(table) - 1
    assert 'n0 [label="empty board"' in dot
    assert 'n2 [label="B D16\\nR:B D: "' in dot  # right black, down none
    assert 'n1 [label="B C16\\nR:B D:A"' in dot  # right black, down any
    assert 'n5 [label="W C14\\nR:W D: "' in dot  # right white
    assert 'n8 [label="W C17\\nR:  D: "' in dot  # exactly 30% -> none
    assert 'n7 [label="B tenuki\\nR:  D: "' in dot
    # only right and down: no up/left letters, no counts
    for line_ in nodes:
        label = re.search(r'label="([^"]*)"', line_).group(1)
        if label == "empty board":
            continue
        first, second = label.split("\\n")
        assert re.fullmatch(r"R:[BWA ] D:[BWA ]", second), label
    # node 6 has white up-influence (2/90 -> none anyway); counters of up and
    # left never show: make left strongly white and check the label ignores it
    t2 = table.copy()
    i = t2.index[t2["node"] == 4][0]
    t2.loc[i, ["left_black", "left_white", "left_neutral", "up_black", "up_white", "up_neutral"]] = [0, 50, 0, 50, 0, 0]
    assert 'n4 [label="B D17\\nR:  D: "' in influence_dot(t2)


def test_influence_dot_share_and_start(table):
    assert 'n2 [label="B D16\\nR:A D: "' in influence_dot(table, share=0.05)
    sub = influence_dot(table, start=2)
    ids = sorted(int(re.match(r"\s*n(\d+)", line_).group(1)) for line_ in node_lines(sub))
    assert ids == [2, 5, 6, 7, 8, 9, 10]
    assert len(edge_lines(sub)) == len(ids) - 1


def test_dot_renders_with_graphviz(table, tmp_path):
    if DOT is None:
        pytest.skip("Graphviz's dot is not installed (make setup installs it where apt-get is available)")
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


def test_a_dot_that_fails_says_why_in_one_line(tmp_path):
    """dot runs in a session of its own (a terminal's Ctrl-C is the run's);
    its failure is one line naming the file, never dot's stderr on the
    terminal."""
    from joseki_miner.book.files import render_svg

    if DOT is None:
        pytest.skip("Graphviz's dot is not installed (make setup installs it where apt-get is available)")
    assert render_svg("digraph { a -> b }", tmp_path / "ok.svg") and b"<svg" in (tmp_path / "ok.svg").read_bytes()
    with pytest.raises(RuntimeError, match=r"^dot could not render bad\.svg: .+"):
        render_svg("digraph { a -> ", tmp_path / "bad.svg")
    assert not (tmp_path / "bad.svg").exists()


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_dot_ended_by_the_runs_stop_stops_the_run(tmp_path, monkeypatch, sig):
    """A Ctrl-C sent to the run's group as ``dot`` starts (before its session
    is its own) ends ``dot``: that is the run's stop, which the CLI reports in
    one line, not a drawing that failed.  A ``dot`` killed otherwise still
    fails the drawing."""
    from joseki_miner.book.files import render_svg
    from joseki_miner.runs.stop import Stopped

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "dot"
    fake.write_text(
        f"#!{sys.executable}\nimport os, signal, sys\nsys.stdin.read()\nsig = signal.{sig}\n"
        "signal.signal(sig, signal.SIG_DFL)\nos.kill(os.getpid(), sig)\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(Stopped) as stopped:
        render_svg("digraph { a -> b }", tmp_path / "stopped.svg")
    assert stopped.value.signal == sig
    assert not (tmp_path / "stopped.svg").exists()
    fake.write_text(f"#!{sys.executable}\nimport os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    with pytest.raises(RuntimeError, match=r"^dot could not render killed\.svg: -9$"):
        render_svg("digraph { a -> b }", tmp_path / "killed.svg")


# ---------------------------------------------------------------- a game's record


def test_a_games_record_holds_its_information_setup_and_moves():
    """game_sgf: a row of games.parquet as an SGF record of its own: the
    information and handicap at the root with the setup stones and where it
    was read (GC), the moves (a pass as B[]), a setup after the root in a
    node of its own before the move it precedes."""
    import json

    from joseki_miner.book.emit import game_sgf
    from joseki_miner.method.points import BLACK, EMPTY, WHITE
    from joseki_miner.method.records import encode_moves, encode_points, Move, PASS

    row = {
        "PB": "Lee Sedol",
        "BR": "9p",
        "PW": "Gu [Li]",
        "WR": "",
        "DT": "2014-01-05",
        "EV": "",
        "RE": "B+R",
        "KM": "0.5",
        "size": 19,
        "handicap": 2,
        "setup_black": encode_points([from_sgf("pd"), from_sgf("dp")]),
        "setup_white": "",
        "setup_events": json.dumps(
            [[1, WHITE, from_sgf("qq")], [1, EMPTY, from_sgf("pd")], [2, BLACK, from_sgf("aa")]]
        ),
        "moves": encode_moves([Move(WHITE, from_sgf("qc")), Move(BLACK, PASS)]),
    }
    text = game_sgf(row, "pro: 2014/lee-gu.sgf")
    assert text == (
        f"(;FF[4]GM[1]SZ[19]CA[UTF-8]AP[joseki-miner:{__version__}]PB[Lee Sedol]BR[9p]PW[Gu [Li\\]]"
        "DT[2014-01-05]RE[B+R]KM[0.5]HA[2]GC[pro: 2014/lee-gu.sgf]AB[pd][dp]"
        ";W[qc];AW[qq]AE[pd];B[];AB[aa])\n"
    )
    game = sgf.Sgf_game.from_string(text)
    assert game.get_root().get("PW") == "Gu [Li]" and game.get_handicap() == 2
    assert [n.get_move() for n in game.get_main_sequence()][1:] == [
        ("w", (16, 16)),
        (None, None),
        ("b", None),
        (None, None),
    ]
