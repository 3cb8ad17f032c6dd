"""Writers for the pruned joseki tree (thesis sections 4.2, 5.3, 6 and 8).

The tree arrives as the ``joseki.parquet`` table (a pandas DataFrame, one row
per node: ``node``, ``parent``, ``depth``, ``color``, ``move``, ``count`` and
the twelve influence counters ``<direction>_<black|white|neutral>``).  A
non-root node whose ``move`` is "" is a tenuki: ``color`` played elsewhere.

Three renderings, all pure functions returning text (no file I/O):

* :func:`to_sgf` - one SGF FF[4] game tree with a variation per child,
  written for players: the game information (GN, SO, DT) says what was
  mined, every comment says in words what happened after the move (the
  ``book`` module's words), the next moves are labelled on the board with
  their shares (LB), tenuki written as passes (``W[]``).
* :func:`game_sgf` - one game's record (its information, setup stones and
  moves), for an example game the report links to.
* :func:`to_dot` - a Graphviz digraph of the tree (thesis Figures 3-5).
* :func:`influence_dot` - the same tree labelled with the "right" and "down"
  influence verdict letters (thesis Figure 6).

Children are always ordered by :func:`children_order`: count descending, then
move string ascending (a tenuki "" first among equals), then node id, so every
output is deterministic.  Everything is iterative: trees of 100k nodes are
fine.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from joseki_miner import __version__
from joseki_miner.book.words import (
    COUNTERS,
    About,
    Book,
    columns,
    counters_text,
    example_text,
    headline,
    influence_words,
    kind_text,
    make_book,
    next_moves_text,
    order_of,
    percent,
    point_text,
    transpositions_text,
)
from joseki_miner.method.gameinfo import date_text
from joseki_miner.method.influence import verdict
from joseki_miner.method.points import BLACK, EMPTY
from joseki_miner.method.points import to_sgf as to_sgf_point

__all__ = [
    "children_order",
    "node_comment",
    "root_comment",
    "labels",
    "to_sgf",
    "game_sgf",
    "to_dot",
    "influence_dot",
    "VERDICT_LETTERS",
]

APP = f"joseki-miner:{__version__}"
EXAMPLES_SHOWN = 3  # example games in a node's comment
# between the parts of a comment's first line: the SGF's own words are ASCII (CGoban 1.9 reads comments as
# Latin-1 whatever CA says, and showed the report's "\u00b7" as "\u00c2\u00b7"); names keep their UTF-8
SEPARATOR = "; "

# Letters of thesis Figure 6: black, white, any, none (a space).
VERDICT_LETTERS = {"black": "B", "white": "W", "any": "A", "none": " "}


# ---------------------------------------------------------------- helpers


def _sgf_text(s: str) -> str:
    """Escape an SGF Text value: backslash and closing bracket."""
    return s.replace("\\", "\\\\").replace("]", "\\]")


def _sgf_simpletext(s: str) -> str:
    """Escape an SGF SimpleText value (GN): as Text, newlines become spaces."""
    return _sgf_text(" ".join(s.split()))


def _dot_string(s: str) -> str:
    """A double-quoted DOT string; newlines become the ``\\n`` escape."""
    s = s.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "")
    return '"' + s.replace("\n", "\\n") + '"'


# ---------------------------------------------------------------- public API


def children_order(table) -> dict[int, list[int]]:
    """Map every node id to its children's ids, ordered by count descending,
    then by move string ascending (tenuki "" first among equals), then by
    node id.  Leaves map to an empty list."""
    return order_of(columns(table))


def node_comment(book: Book, node: int, counters: bool = False) -> str:
    """The SGF comment of one node, for players (``book``'s words): what it
    is, where the tree has kinds (``kind_text``: its first line, so a
    viewer's comment box opens with it); the headline (games, share of the
    moves here, Black's win rate, years); the
    influence verdicts that say something; how often it was played when a
    game played it in more than one corner; up to three example games; the
    next moves with their shares (a tenuki among them); the raw counters
    only with ``counters``."""
    lines = [headline(book, node, SEPARATOR)]
    kind = kind_text(book, node)
    if kind:
        lines.insert(0, kind + ".")
    influence = influence_words(book, node)
    if influence:
        lines.append(influence + ".")
    count, games = book.get(node, "count"), book.games(node)
    if "games" in book.cols and count != games:
        lines.append(f"Played {count:,} times: some games play it in more than one corner.")
    others = transpositions_text(book, node)
    if others:
        lines.append(others + ".")
    shown = book.examples.get(node, [])[:EXAMPLES_SHOWN]
    if shown:
        names = book.about.collection_names()
        lines.append("Games: " + "; ".join(example_text(r, names) for r in shown) + ".")
    if book.children(node):
        lines.append(f"Next: {next_moves_text(book, node)}.")
    if counters:
        lines.append(counters_text(book, node) + ".")
    return "\n".join(lines)


def root_comment(book: Book) -> str:
    """What the tree is and how to read it, in plain words."""
    a = book.about
    games = a.games or book.get(book.root, "games", 0)
    collections = ", ".join(a.collection_names().values()) or "the games given"
    span = a.years()
    lines = [
        f"Joseki mined from {games:,} games ({collections}"
        + (f"; {span[0]}-{span[1]}" if span else "")
        + ") by joseki-miner, after M. Helvensteijn, "
        '"Applying data mining to the study of joseki" (2007).',
        "",
        "How to read this tree. Every corner of every game was read as a sequence of moves, turned so "
        "that it starts in the upper left corner with Black, so one branch holds the same joseki "
        "played in any corner and by either colour. Each move's comment says in how many games it "
        "was played there, and what share of the moves played at the position before it that is; "
        "the labels on the board show the next moves and their shares.",
        "A tenuki (shown as a pass) means the player played elsewhere on the board first.",
        '"Black wins" is the share of those games (with a winner) won by the player who has Black '
        'in this tree, with its 95% interval; "most popular" is the year in which the move was '
        "played in the largest share of that year's games.",
        "Influence (section 8 of the thesis): the side of the sequence where a colour's stones "
        f"dominate in more than {100 * a.share:g}% of the games that played it.",
    ]
    kept = []
    if a.threshold:
        kept.append(
            f"lines played in at least {a.threshold:,} games"
            if a.threshold_on == "games"
            else f"moves played at least {a.threshold:,} times"
        )
    if a.min_length:
        kept.append(f"joseki of at least {a.min_length} moves")
    if kept:
        lines.append("Kept: " + " and ".join(kept) + ".")
    if book.labelled:
        lines += [
            "",
            'Each move\'s comment starts with what it is: a joseki ("Joseki ends here" where players '
            "end it, with how often they then play elsewhere), a follow-up (a line played after a tenuki, "
            "when a player came back to the corner later), or a fuseki shape: an approach from the side "
            "(answered on the side, for the whole board's opening), an enclosure (the corner's first player "
            "plays there again before the other answers) or an extension (a move on the side or on a "
            "central line, out of the corner).",
        ]
        counts = (
            f"Joseki: {len(book.joseki()):,}; follow-ups: {len(book.follow_ups()):,}; "
            f"fuseki shapes: {len(book.fuseki()):,}; "
        )
    else:
        counts = f"Joseki: {len(book.leaves()):,}; "
    lines += [
        "",
        f"{counts}moves in the tree: {len(book.cols['node']) - 1:,}; sequences read: {book.get(book.root, 'count'):,}.",
    ]
    if book.children(book.root):
        lines.append(f"First moves: {next_moves_text(book, book.root)}.")
    return "\n".join(lines)


def game_name(book: Book) -> str:
    """GN: "Joseki of 155,861 games: ai, kgs-6d ..., 2000-2019"."""
    a = book.about
    games = a.games or book.get(book.root, "games", 0)
    if not games:
        return "Joseki tree (joseki-miner)"
    name = f"Joseki of {games:,} games"
    if a.games_by_collection:
        name += ": " + ", ".join(a.collection_names().values())
    span = a.years()
    if span:
        name += f", {span[0]}" + (f"-{span[1]}" if span[1] != span[0] else "")
    return name


def labels(book: Book, node: int) -> str:
    """LB of a node: each child that is a move, at its point, with its
    share (a tenuki child is named in the comment)."""
    parts = [
        f"[{book.get(c, 'move')}:{percent(book.share(c) or 0)}]" for c in book.children(node) if book.get(c, "move")
    ]
    return "LB" + "".join(parts) if parts else ""


def to_sgf(tree, share: float = 0.30, title: str | None = None, counters: bool = False) -> str:
    """The tree as one SGF FF[4] game tree, for players.

    ``tree`` is a ``Book`` (or joseki.parquet's table: a book of counts
    only).  The root (empty board) carries FF, GM, SZ, CA, AP, GN (``title``
    or :func:`game_name`), SO (the collections), DT (the first and last
    dates), the comment of :func:`root_comment` and LB labels of the first
    moves.  Every other node is ``;B[dc]``, or ``;W[]`` (a pass) for a
    tenuki, with :func:`node_comment` and LB labels of its children.  A node
    with one child continues its variation; with several, each child opens a
    parenthesised variation, in ``children_order``.
    """
    book = tree if isinstance(tree, Book) else make_book(tree, about=About(share=share))
    missing = [c for c in COUNTERS if c not in book.cols]
    if counters and missing:
        raise ValueError(f"joseki table lacks columns: {', '.join(missing)}")
    a = book.about
    out = [f"(;FF[4]GM[1]SZ[19]CA[UTF-8]AP[{APP}]GN[{_sgf_simpletext(title or game_name(book))}]"]
    if a.games_by_collection:
        out.append(f"SO[{_sgf_simpletext(', '.join(a.collection_names().values()))}]")
    dates = [d for d in (a.first_date, a.last_date) if d]
    if dates:
        out.append(f"DT[{_sgf_simpletext(','.join(dict.fromkeys(dates)))}]")
    out.append(f"C[{_sgf_text(root_comment(book))}]{labels(book, book.root)}")

    stack: list[Any] = []  # node ids and the literal strings "(" and ")", popped in output order

    def push_children(n: int) -> None:
        ch = book.children(n)
        if len(ch) == 1:
            stack.append(ch[0])
        elif ch:
            for c in reversed(ch):
                stack.extend((")", c, "("))

    push_children(book.root)
    append = out.append
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            append(item)
            continue
        colour = book.get(item, "color") or ("B" if book.get(item, "depth") % 2 else "W")
        append(f";{colour}[{book.get(item, 'move')}]C[{_sgf_text(node_comment(book, item, counters))}]")
        append(labels(book, item))
        push_children(item)
    append(")\n")
    return "".join(out)


GAME_INFO = ("PB", "BR", "PW", "WR", "DT", "EV", "RE", "KM")  # games.parquet's columns a record's root keeps
SETUP = {BLACK: "AB", EMPTY: "AE"}  # a setup event's colour -> its property (White's: AW)


def game_sgf(row, record: str = "") -> str:
    """A game of games.parquet (``row``: its information, ``handicap``,
    ``setup_black``, ``setup_white``, ``setup_events`` and ``moves``) as
    an SGF FF[4] record of its own: the root holds the game's information,
    its handicap, its setup stones and ``record`` (where it was read,
    ``record_name``) as GC; then the moves, a pass as ``B[]``, each setup
    after the root in a node of its own before the move it precedes."""
    info = {**row, "DT": date_text(row.get("DT") or "")}  # SGF's own form of a date
    root = "".join(f"{name}[{_sgf_text(str(info[name]))}]" for name in GAME_INFO if info.get(name))
    if row.get("handicap"):
        root += f"HA[{int(row['handicap'])}]"
    if record:
        root += f"GC[{_sgf_text(record)}]"
    for prop, points in (("AB", row.get("setup_black")), ("AW", row.get("setup_white"))):
        if points:  # SGF points already, two letters each (``records.encode_points``)
            root += prop + "".join(f"[{points[i : i + 2]}]" for i in range(0, len(points), 2))
    events: dict[int, dict[str, list[int]]] = {}
    for at, colour, point in json.loads(row["setup_events"]) if row.get("setup_events") else []:
        events.setdefault(int(at), {}).setdefault(SETUP.get(int(colour), "AW"), []).append(int(point))
    moves = row.get("moves") or ""  # a colour and an SGF point each, "tt" a pass (``records.encode_moves``)
    if events:  # rare: the moves cut where each setup comes (the last: after every move)
        cuts = sorted(events)
        parts = [moves[3 * a : 3 * b] for a, b in zip([0, *cuts], [*cuts, len(moves) // 3])]
        body = "".join(
            _moves_text(part) + (_setup_node(events[at]) if at in events else "")
            for part, at in zip(parts, [*cuts, None])
        )
    else:
        body = _moves_text(moves)
    size = int(row.get("size") or 19)
    return f"(;FF[4]GM[1]SZ[{size}]CA[UTF-8]AP[{APP}]{root}{body})\n"


def _moves_text(moves: str) -> str:
    """Moves of games.parquet ("BpdWqc", "Wtt" a pass) as SGF nodes: ;B[pd];W[qc], a pass W[]."""
    played = np.frombuffer(moves.encode("ascii"), np.uint8).reshape(-1, 3)  # a game's moves at once: 0.1 us a move
    nodes = np.empty((len(played), 6), np.uint8)
    nodes[:, 0], nodes[:, 1], nodes[:, 2], nodes[:, 3:5], nodes[:, 5] = (
        ord(";"),
        played[:, 0],
        ord("["),
        played[:, 1:],
        ord("]"),
    )
    return nodes.tobytes().decode("ascii").replace("[tt]", "[]")


def _setup_node(stones: dict[str, list[int]]) -> str:
    """A node of setup stones after the root: ;AW[qq]AE[pd]."""
    return ";" + "".join(prop + "".join(f"[{to_sgf_point(p)}]" for p in points) for prop, points in stones.items())


def _dot_header(title: str) -> list[str]:
    return [
        f"digraph {_dot_string(title)} {{\n",
        f"  graph [label={_dot_string(title)}, labelloc=t, ordering=out, ranksep=0.3, nodesep=0.15];\n",
        '  node [shape=box, style="rounded,filled", fillcolor=white, '
        'fontname=Helvetica, fontsize=10, margin="0.05,0.02"];\n',
        "  edge [arrowsize=0.5];\n",
    ]


def _dot_style(colour: str, tenuki: bool) -> str:
    if colour == "B":
        style = ', fillcolor="gray20", fontcolor=white'
    elif colour == "W":
        style = ""
    else:  # root
        style = ', fillcolor="lightyellow"'
    if tenuki:
        style += ', style="rounded,filled,dashed"'
    return style


def _dot(tree, title: str, label_of, start: int | None = None) -> str:
    """``tree``: a ``Book``, or joseki.parquet's table."""
    book = tree if isinstance(tree, Book) else make_book(tree)
    cols, order, index, root = book.cols, book.order, book.index, book.root
    top = root if start is None else int(start)
    if top not in index:
        raise ValueError(f"no node {top} in the joseki table")
    # The nodes to draw: the subtree under ``top`` (everything when top is root).
    if top == root:
        keep = set(cols["node"])
    else:
        keep, todo = set(), [top]
        while todo:
            n = todo.pop()
            keep.add(n)
            todo.extend(order[n])
    out = _dot_header(title)
    colors, moves, parents = cols["color"], cols["move"], cols["parent"]
    for i, n in enumerate(cols["node"]):
        if n not in keep:
            continue
        tenuki = parents[i] >= 0 and moves[i] == ""
        label = label_of(cols, i)
        out.append(f"  n{n} [label={_dot_string(label)}{_dot_style(colors[i], tenuki)}];\n")
    for n in sorted(keep):
        for c in order[n]:
            out.append(f"  n{n} -> n{c};\n")
    out.append("}\n")
    return "".join(out)


def _move_label(cols: dict[str, list], i: int) -> str:
    if cols["parent"][i] < 0:
        return "empty board"
    return f"{cols['color'][i]} {point_text(cols['move'][i])}"  # board coordinates, as every page names a move


def to_dot(table, title: str = "joseki") -> str:
    """A Graphviz digraph of the tree (thesis Figures 3-5).

    The root is labelled "empty board" and its count; every other node
    ``"<colour> <point>\\n<count>"`` in board coordinates (e.g. ``"B D17\\n120"``, a tenuki
    ``"W tenuki\\n30"``).  Node statements come in id order, edges parent ->
    child per parent in id order and children in :func:`children_order`;
    ``ordering=out`` keeps that order left to right.  Black moves are drawn
    dark, tenuki dashed.
    """

    def label(cols, i):
        return f"{_move_label(cols, i)}\n{cols['count'][i]}"

    return _dot(table, title, label)


def influence_dot(table, share: float = 0.30, title: str = "influence", start: int = 0) -> str:
    """The tree labelled with influence verdicts (thesis Figure 6).

    Each node shows its move and the verdict letters for the "right" and
    "down" directions only (``B`` black, ``W`` white, ``A`` any, a space for
    none), e.g. ``"B D17\\nR:W D:B"``; the root is "empty board".  ``start``
    draws only the subtree under that node id (the thesis' figure starts
    after black's komoku); 0, the root, draws everything.
    """

    def label(cols, i):
        if cols["parent"][i] < 0:
            return "empty board"
        letters = []
        for d, tag in (("right", "R"), ("down", "D")):
            v = verdict(
                int(cols[f"{d}_black"][i]),
                int(cols[f"{d}_white"][i]),
                int(cols[f"{d}_neutral"][i]),
                share,
            )
            letters.append(f"{tag}:{VERDICT_LETTERS[v]}")
        return f"{_move_label(cols, i)}\n{' '.join(letters)}"

    return _dot(table, title, label, start=None if start == 0 else start)
