"""Each node's games on their whole board (method.context): another
sequence's stone near at its move, and the game's move number there."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from joseki_miner.method.context import Entries, Tally, Tree, keys_of_moves, node_context, tally
from joseki_miner.method.points import TENUKI, from_sgf


def entries(*sequences) -> Entries:
    """Entries of (moves, numbers, near, shared) tuples ("dd fc --" keys)."""
    keys, numbers, near, shared, offsets = [], [], [], [], [0]
    for moves, nums, close, share in sequences:
        line = [TENUKI if m == "--" else from_sgf(m) for m in moves.split()]
        keys += line
        numbers += nums
        near += close
        shared.append(share)
        offsets.append(len(keys))
    return Entries(
        np.array(offsets, np.int64),
        np.array(keys, np.int64),
        np.array(numbers, np.int64),
        np.array(near, bool),
        np.array(shared, np.int64),
    )


def tree(*paths: str):
    """A node table (parent rows, keys) of every prefix of ``paths``, parents first."""
    rows = {(): 0}
    parent, key = [0], [-1]
    for text in paths:
        line = tuple(text.split())
        for d in range(1, len(line) + 1):
            if line[:d] not in rows:
                rows[line[:d]] = len(parent)
                parent.append(rows[line[: d - 1]])
                key.append(TENUKI if line[d - 1] == "--" else from_sgf(line[d - 1]))
    return np.array(parent, np.int64), np.array(key, np.int64), rows


def test_a_node_counts_its_games_the_stones_near_and_the_move_number():
    """Three games at the 4-4 point: the approach fc is played at moves 2,
    8 and 30, with another corner's stone near in the second and third;
    the third game's second sequence shares dd fc with its first, so the
    node counts that game once, by its first.  A line the tree does not
    hold (dd cc) stops at dd."""
    parent, key, rows = tree("dd fc cf", "dd fc fd")
    found = node_context(
        parent,
        key,
        entries(
            ("dd fc cf", [1, 2, 4], [0, 0, 1], -1),
            ("dd fc fd", [5, 8, 9], [0, 1, 0], -1),
            ("dd fc cf", [20, 30, 31], [1, 1, 1], -1),
            ("dd fc fd", [40, 42, 50], [0, 0, 0], 2),
            ("dd cc", [3, 6], [0, 0], -1),
        ),
    )
    fc, cf, fd = rows[("dd", "fc")], rows[("dd", "fc", "cf")], rows[("dd", "fc", "fd")]
    assert found.sequences[rows[("dd",)]] == 5 and found.sequences[fc] == 4
    assert found.games[rows[("dd",)]] == 4 and found.games[fc] == 3 and found.games[fd] == 2  # the 4th counts at fd
    assert found.near[fc] == 2 and found.near[cf] == 2 and found.near[fd] == 0
    assert found.move[fc] == 8  # the median of 2, 8, 30
    assert found.move[fd] == 9  # the lower median of 9 and 50
    assert found.move[rows[("dd",)]] == 3 and found.move[0] == 0  # of 1, 5, 20, 3


def test_the_keys_of_the_moves_column():
    """sequences.parquet's moves: two letters an entry, "--" a tenuki."""
    text = b"xxddfc--cf"
    keys = keys_of_moves(text, np.array([2, 6, 10]))
    assert keys.tolist() == [from_sgf("dd"), from_sgf("fc"), TENUKI, from_sgf("cf")]


POINTS = ["dd", "fc", "cf", "cc", "dc", "--"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(POINTS), min_size=1, max_size=6), min_size=1, max_size=25), st.data())
def test_every_node_walks_the_sequences_its_path_begins(lines, data):
    """The law of the walk: on a tree of some sequences' prefixes, each
    node is walked by exactly the sequences that begin with its path, and
    counts a game of those whose ``shared`` is below its depth."""
    held = [line for line in lines if data.draw(st.booleans())] or lines[:1]
    parent, key, rows = tree(*(" ".join(line) for line in held))
    shared = [data.draw(st.integers(-1, len(line))) for line in lines]
    found = node_context(
        parent,
        key,
        entries(*((" ".join(line), list(range(len(line))), [True] * len(line), s) for line, s in zip(lines, shared))),
    )
    for path, row in rows.items():
        through = [s for line, s in zip(lines, shared) if tuple(line[: len(path)]) == path]
        assert found.sequences[row] == len(through), path
        if path:
            assert found.games[row] == found.near[row] == sum(1 for s in through if s < len(path)), path


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(POINTS), min_size=1, max_size=6), min_size=1, max_size=25),
    st.lists(st.integers(0, 25), max_size=4),
    st.data(),
)
def test_the_walk_of_sequences_in_pieces_sums_to_the_walk_of_them_all(lines, cuts, data):
    """The law the dask engine's context by pieces rests on: the tallies of
    any split of the sequences (pieces empty or not), summed, give each
    node the sequences, games, stones near and the lower median move
    number of the walk of them all."""
    parent, key, _ = tree(*(" ".join(line) for line in lines[: max(1, len(lines) // 2)]))
    made = [
        (" ".join(line), [data.draw(st.integers(1, 300)) for _ in line], [data.draw(st.booleans()) for _ in line],
         data.draw(st.integers(-1, len(line))))
        for line in lines
    ]  # fmt: skip
    whole = node_context(parent, key, entries(*made))
    bounds = [0, *sorted(min(c, len(made)) for c in cuts), len(made)]
    walk = Tree.of(parent, key)
    split = Tally.summed([tally(walk, entries(*made[a:b])) for a, b in zip(bounds, bounds[1:])], len(parent)).context()
    for name in ("sequences", "games", "near", "move"):
        assert getattr(split, name).tolist() == getattr(whole, name).tolist(), name


def test_the_stage_reads_sequences_in_pieces_of_whole_row_groups(tmp_path):
    """sequences.parquet (a file or a folder of parts) in pieces of at most
    so many sequences, each of whole row groups of one part, in order; a
    group larger than that a piece alone."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from joseki_miner.stages.context import pieces

    folder = tmp_path / "sequences.parquet"
    folder.mkdir()
    for name, sizes in (("part-0.parquet", [3, 3, 3]), ("part-1.parquet", [8, 2])):
        with pq.ParquetWriter(folder / name, pa.schema([("x", pa.int64())])) as writer:
            for size in sizes:
                writer.write_table(pa.table({"x": list(range(size))}))
    found = [(Path(p.part).name, p.groups, p.rows) for p in pieces(folder, rows=6)]
    assert found == [("part-0.parquet", (0, 1), 6), ("part-0.parquet", (2,), 3), ("part-1.parquet", (0,), 8),
                     ("part-1.parquet", (1,), 2)]  # fmt: skip
    assert [p.groups for p in pieces(folder / "part-0.parquet", rows=100)] == [(0, 1, 2)]


# -- the board's kinds -------------------------------------------------------------


def kinds_of(lines, near=None, move=None, games=None, count=None, tenuki=None, won=None, decided=None, strong=None,
             code=None, rules=None):  # fmt: skip
    """The board's kinds (names, by path) of a tree of ``lines``, each
    figure given by path (the rest: 100 games, none near, move 10, no
    tenuki, half won, 0 strong)."""
    from joseki_miner.method import kinds
    from joseki_miner.method.context import BoardRules, Evidence, NodeContext, board_kinds

    parent, key, rows = tree(*lines)
    paths = {row: path for path, row in rows.items()}

    def column(given, default):
        return np.array([(given or {}).get(paths[r], default) for r in range(len(parent))], np.int64)

    depth = np.array([len(paths[r]) for r in range(len(parent))], np.int64)
    g = column(games, 100)
    found = NodeContext(column(count, 100), g, column(near, 0), column(move, 10))
    evidence = Evidence(column(count, 100), column(tenuki, 0), column(won, 50), column(decided, 100), column(strong, 0))
    codes = np.array([kinds.KINDS.index((code or {}).get(paths[r], "joseki")) for r in range(len(parent))], np.int8)
    out = board_kinds(parent, depth, key, codes, found, evidence, rules or BoardRules())
    return {paths[r]: kinds.KINDS[c] for r, c in enumerate(out.tolist())}


def test_a_move_with_another_sequence_near_in_most_games_is_situational():
    """At dd fc, cf is played with another corner's stone near in 60 of
    its 100 games, its sibling ce in 10 of 200: cf is chosen for that
    stone, situational, and the joseki move after it too; a follow-up
    after it keeps its kind.  Where ce's games have a stone near as often
    (80 of 200), or cf's only 40 of 100, it stays joseki, unless its games
    play it at move 55 (kinds.late 50) while most games at dd fc answer
    otherwise."""
    from joseki_miner.method.context import BoardRules

    lines = ("dd fc cf cc", "dd fc cf -- ed", "dd fc ce")
    at, cf, ce = ("dd", "fc"), ("dd", "fc", "cf"), ("dd", "fc", "ce")
    counts = dict(count={at: 300, cf: 100, ce: 200}, games={at: 300, cf: 100, ce: 200})
    tree_kinds = {(*cf, "--", "ed"): "follow-up"}
    found = kinds_of(lines, near={cf: 60, ce: 20}, code=tree_kinds, **counts)
    assert found[cf] == found[(*cf, "cc")] == "situational" and found[ce] == "joseki"
    assert found[(*cf, "--", "ed")] == "follow-up" and found[at] == "joseki"
    assert kinds_of(lines, near={cf: 60, ce: 80}, **counts)[cf] == "joseki"
    assert kinds_of(lines, near={cf: 40, ce: 20}, **counts)[cf] == "joseki"
    assert kinds_of(lines, near={cf: 40, ce: 20}, move={cf: 55}, **counts)[cf] == "situational"
    assert kinds_of(lines, move={ce: 55}, **counts)[ce] == "joseki"  # most games' answer
    off = BoardRules(situational=None, late=None)
    assert kinds_of(lines, near={cf: 60, ce: 20}, move={cf: 55}, rules=off, **counts)[cf] == "joseki"


def test_a_move_that_wins_less_and_strong_programs_shun_is_doubtful():
    """At dd fc, cf (200 games, its player wins 55%) and cc (100, 40%):
    15 points below, outside chance; the strong programs reach the
    position in 30 games and never play cc: doubtful.  Where they play it
    in 10 of their 30 (their share is everyone's), or the gap is within
    chance (45% of 40 games), cc stays joseki; the most played move is
    never doubtful."""
    lines = ("dd fc cf", "dd fc cc")
    at, cf, cc = ("dd", "fc"), ("dd", "fc", "cf"), ("dd", "fc", "cc")
    figures = dict(
        count={at: 300, cf: 200, cc: 100},
        games={at: 300, cf: 200, cc: 100},
        won={cf: 110, cc: 40},
        decided={cf: 200, cc: 100},
        strong={at: 30, cf: 30, cc: 0},
    )
    found = kinds_of(lines, **figures)
    assert found[cc] == "doubtful" and found[cf] == "joseki"
    assert kinds_of(lines, **{**figures, "strong": {at: 30, cf: 20, cc: 10}})[cc] == "joseki"
    close = {**figures, "won": {cf: 110, cc: 18}, "decided": {cf: 200, cc: 40}}
    assert kinds_of(lines, **close)[cc] == "joseki"


def test_a_rare_side_move_after_a_position_that_ends_in_tenuki_is_an_extension():
    """After dd fc cf (tenuki in 20 of its 100 sequences) a move on the
    9th line far from the line's stones (6 points from fc), played in 10
    of them, is side play (an extension); the same move where the position
    seldom ends in tenuki, or nearer the line's stones (a pincer's 4
    points), is not."""
    far, near = ("dd", "fc", "cf", "if"), ("dd", "fc", "cf", "hd")
    lines = (" ".join(far) + " ig", " ".join(near), "dd fc cf cc")
    at = ("dd", "fc", "cf")
    figures = dict(count={at: 100, far: 10, near: 10}, tenuki={at: 20})
    found = kinds_of(lines, **figures)
    assert found[far] == found[(*far, "ig")] == "extension"  # the moves after it take its kind
    assert found[near] == "joseki" and found[(*at, "cc")] == "joseki"
    assert kinds_of(lines, **{**figures, "tenuki": {at: 5}})[far] == "joseki"


# -- the stage ----------------------------------------------------------------------


def test_the_stage_walks_every_node_through_the_sequences_the_build_counted(demo_games, tmp_path):
    """On the demo, mined on the fast and reference engines: each node's
    walk meets its count of sequences and its games exactly, as the build
    counted them; node_context.parquet is the same bytes on both, and the
    SGF says each move's board."""
    import pyarrow.parquet as pq

    from joseki_miner.method.prune import parent_rows
    from joseki_miner.runs.catalog import Catalog
    from joseki_miner.runs.config import load
    from joseki_miner.stages.context import pieces, walked
    from pipeline.run import Request, run_stages

    made = {}
    for engine in ("fast", "reference"):
        catalog = Catalog(work=tmp_path / engine / "work", out=tmp_path / engine / "out")
        stages = ("ingest", "extract", "build", "prune", "context", "emit")
        run_stages(catalog, load(None, []), stages, [demo_games], Request(progress=False, engine=engine))
        made[engine] = catalog.node_context.read_bytes()
    tree = pq.read_table(catalog.joseki).to_pydict()
    key = np.array([TENUKI if m == "" else from_sgf(m) for m in tree["move"]], np.int64)
    rows = parent_rows(np.array(tree["node"]), np.array(tree["parent"]))
    found = walked(Tree.of(rows, key), pieces(catalog.sequences, rows=10_000)).context()
    assert found.sequences.tolist() == tree["count"] and found.games.tolist() == tree["games"]
    assert made["fast"] == made["reference"]
    context = pq.read_table(catalog.node_context).to_pydict()
    assert context["node"] == tree["node"] and context["near"] == found.near.tolist()
    assert all(0 <= near <= games for near, games in zip(context["near"], tree["games"]))
    assert all(m > 0 for m, depth in zip(context["move_number"], tree["depth"]) if depth > 0)
    assert "played around move" in catalog.sgf.read_text(encoding="utf-8")
