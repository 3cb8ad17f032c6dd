"""Writers for the pruned joseki tree (thesis sections 4.2, 5.3, 6 and 8).

The tree arrives as the ``joseki.parquet`` table (a pandas DataFrame, one row
per node: ``node``, ``parent``, ``depth``, ``color``, ``move``, ``count`` and
the twelve influence counters ``<direction>_<black|white|neutral>``).  A
non-root node whose ``move`` is "" is a tenuki: ``color`` played elsewhere.

Three renderings, all pure functions returning text (no file I/O):

* :func:`to_sgf` - one SGF FF[4] game tree with a variation per child, a
  comment on every node (count, share of the parent, the 12 influence
  counters and their verdicts), tenuki written as passes (``W[]``).
* :func:`to_dot` - a Graphviz digraph of the tree (thesis Figures 3-5).
* :func:`influence_dot` - the same tree labelled with the "right" and "down"
  influence verdict letters (thesis Figure 6).

Children are always ordered by :func:`children_order`: count descending, then
move string ascending (a tenuki "" first among equals), then node id, so every
output is deterministic.  Everything is iterative: trees of 100k nodes are
fine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from .influence import verdict
from .points import DIRECTIONS

__all__ = [
    "children_order",
    "node_comment",
    "to_sgf",
    "to_dot",
    "influence_dot",
    "VERDICT_LETTERS",
]

APP = "joseki-miner:0.1"
CLASSES = ("black", "white", "neutral")
COUNTER_COLUMNS = tuple(f"{d}_{c}" for d in DIRECTIONS for c in CLASSES)
BASE_COLUMNS = ("node", "parent", "depth", "color", "move", "count")

# Letters of thesis Figure 6: black, white, any, none (a space).
VERDICT_LETTERS = {"black": "B", "white": "W", "any": "A", "none": " "}


# ---------------------------------------------------------------- helpers


def _field(row: Any, name: str) -> Any:
    """``row[name]`` for a mapping / pandas Series, else ``getattr``
    (a namedtuple from ``DataFrame.itertuples``)."""
    try:
        return row[name]
    except (TypeError, IndexError, KeyError):
        return getattr(row, name)


def _columns(table) -> dict[str, list]:
    """The columns of ``table`` (a pandas DataFrame or an Arrow table) as
    plain Python lists (fast row access)."""
    arrow = isinstance(table, pa.Table)
    names = table.column_names if arrow else list(table.columns)
    missing = [c for c in BASE_COLUMNS if c not in names]
    if missing:
        raise ValueError(f"joseki table lacks columns: {', '.join(missing)}")
    cols: dict[str, list] = {}
    for c in BASE_COLUMNS + COUNTER_COLUMNS:
        if c in names:
            cols[c] = table[c].to_pylist() if arrow else table[c].tolist()
    cols["node"] = [int(v) for v in cols["node"]]
    cols["parent"] = [int(v) for v in cols["parent"]]
    cols["count"] = [int(v) for v in cols["count"]]
    cols["color"] = ["" if not isinstance(v, str) else v for v in cols["color"]]
    cols["move"] = ["" if not isinstance(v, str) else v for v in cols["move"]]
    return cols


def _row(cols: dict[str, list], i: int) -> dict[str, Any]:
    return {k: v[i] for k, v in cols.items()}


def _root_index(cols: dict[str, list]) -> int:
    parents = cols["parent"]
    roots = [i for i, p in enumerate(parents) if p < 0]
    if len(roots) != 1:
        raise ValueError(f"joseki table must have exactly one root, found {len(roots)}")
    return roots[0]


def _order_from_cols(cols: dict[str, list]) -> dict[int, list[int]]:
    nodes, parents, counts, moves = cols["node"], cols["parent"], cols["count"], cols["move"]
    order: dict[int, list[int]] = {n: [] for n in nodes}
    keyed = sorted(
        (parents[i], -counts[i], moves[i], nodes[i]) for i in range(len(nodes)) if parents[i] >= 0
    )
    for parent, _, _, node in keyed:
        try:
            order[parent].append(node)
        except KeyError:
            raise ValueError(f"node {node} has unknown parent {parent}") from None
    return order


def _is_tenuki(row: Any) -> bool:
    move = _field(row, "move")
    parent = _field(row, "parent")
    return int(parent) >= 0 and (not isinstance(move, str) or move == "")


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
    return _order_from_cols(_columns(table))


def node_comment(row, parent_count, share) -> str:
    """The SGF comment of one node.

    ``row`` is a table row (pandas Series, dict or itertuples namedtuple);
    ``parent_count`` the count of its parent (``None`` or 0 for the root:
    the percentage is then omitted); ``share`` the verdict threshold (a
    colour "has influence" when seen in *more* than ``share`` of the cases).

    Format (lines joined by "\\n")::

        Count: 120 (40.0% of parent)
        Tenuki: W plays elsewhere            <- tenuki nodes only
        Influence (black/white/neutral, verdict):
        up: 0/2/118 none
        right: 50/10/60 black
        down: 10/10/100 none
        left: 0/0/120 none
    """
    count = int(_field(row, "count"))
    if parent_count:
        head = f"Count: {count} ({100.0 * count / int(parent_count):.1f}% of parent)"
    else:
        head = f"Count: {count}"
    lines = [head]
    if _is_tenuki(row):
        lines.append(f"Tenuki: {_field(row, 'color')} plays elsewhere")
    lines.append("Influence (black/white/neutral, verdict):")
    for d in DIRECTIONS:
        b = int(_field(row, f"{d}_black"))
        w = int(_field(row, f"{d}_white"))
        n = int(_field(row, f"{d}_neutral"))
        lines.append(f"{d}: {b}/{w}/{n} {verdict(b, w, n, share)}")
    return "\n".join(lines)


def to_sgf(table, share: float = 0.30, title: str = "Joseki tree") -> str:
    """The tree as one SGF FF[4] game tree.

    The root node (empty board) carries FF, GM, SZ, CA, AP, GN[title] and a
    comment with the number of joseki (leaves), of nodes (root excluded) and
    of sequences (the root's count).  Every other node is ``;B[dc]C[...]``,
    or ``;W[]C[...]`` (a pass) for a tenuki, with :func:`node_comment`.  A
    node with one child continues its variation; with several, each child
    opens a parenthesised variation, in :func:`children_order`.
    """
    cols = _columns(table)
    order = _order_from_cols(cols)
    index = {n: i for i, n in enumerate(cols["node"])}
    root_i = _root_index(cols)
    root = cols["node"][root_i]
    counts, colors, moves = cols["count"], cols["color"], cols["move"]
    has_counters = all(c in cols for c in COUNTER_COLUMNS)
    if not has_counters:
        missing = [c for c in COUNTER_COLUMNS if c not in cols]
        raise ValueError(f"joseki table lacks columns: {', '.join(missing)}")

    n_nodes = len(cols["node"]) - 1
    leaves = sum(1 for n, ch in order.items() if not ch and n != root)
    root_comment = (
        f"{title}\n"
        f"Joseki (leaves): {leaves}\n"
        f"Nodes: {n_nodes}\n"
        f"Sequences: {counts[root_i]}\n"
        f"Influence verdicts: a colour needs more than {100.0 * share:g}% of the cases"
    )
    out = [
        "(;FF[4]GM[1]SZ[19]CA[UTF-8]AP[",
        APP,
        "]GN[",
        _sgf_simpletext(title),
        "]C[",
        _sgf_text(root_comment),
        "]",
    ]

    parent_of = cols["parent"]
    # Stack of node ids and literal strings "(" / ")"; popped in output order.
    stack: list[Any] = []

    def push_children(n: int) -> None:
        ch = order[n]
        if len(ch) == 1:
            stack.append(ch[0])
        elif ch:
            for c in reversed(ch):
                stack.append(")")
                stack.append(c)
                stack.append("(")

    push_children(root)
    append = out.append
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            append(item)
            continue
        i = index[item]
        colour = colors[i] or ("B" if cols["depth"][i] % 2 else "W")
        pc = counts[index[parent_of[i]]]
        append(";")
        append(colour)
        append("[")
        append(moves[i])
        append("]C[")
        append(_sgf_text(node_comment(_row(cols, i), pc, share)))
        append("]")
        push_children(item)
    append(")\n")
    return "".join(out)


def _dot_header(title: str) -> list[str]:
    return [
        f"digraph {_dot_string(title)} {{\n",
        f"  graph [label={_dot_string(title)}, labelloc=t, ordering=out, "
        "ranksep=0.3, nodesep=0.15];\n",
        '  node [shape=box, style="rounded,filled", fillcolor=white, '
        "fontname=Helvetica, fontsize=10, margin=\"0.05,0.02\"];\n",
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


def _dot(table, title: str, label_of, start: int | None = None) -> str:
    cols = _columns(table)
    order = _order_from_cols(cols)
    index = {n: i for i, n in enumerate(cols["node"])}
    root = cols["node"][_root_index(cols)]
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
    move = cols["move"][i] or "tenuki"
    return f"{cols['color'][i]} {move}"


def to_dot(table, title: str = "joseki") -> str:
    """A Graphviz digraph of the tree (thesis Figures 3-5).

    The root is labelled "empty board" and its count; every other node
    ``"<colour> <sgf point>\\n<count>"`` (e.g. ``"B dc\\n120"``, a tenuki
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
    none), e.g. ``"B dc\\nR:W D:B"``; the root is "empty board".  ``start``
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
