"""How good a tree is, by Go knowledge rather than by its own counts: named
joseki and fuseki shapes written from public sources (benchmarks'
named_shapes.yaml), and an SGF joseki dictionary where one is given.

* ``Shape``: a named line in normal form (5.1), whatever corner and colour
  it was written in;
* ``Tree``: a pruned tree (joseki.parquet's columns) with each node's path,
  kind and whether a joseki ends there (``kinds``); a tree mined without
  kinds (the thesis' config) calls every node a joseki and every leaf a
  joseki, as the thesis does;
* ``measure``: what the quality table says of one tree, richness and
  rightness together: its nodes, joseki nodes (moves a joseki holds),
  joseki leaves and follow-ups, the named joseki it holds as joseki, the
  fuseki shapes it holds as joseki (there should be none), the share of
  joseki leaves whose moves all lie in the corner's region, and, per
  dictionary given, how many of its joseki nodes the dictionary holds (its
  richness) and what share of its joseki leaves (its rightness).

A joseki leaf is a joseki node with no joseki child, read without its
trailing tenuki, as a dictionary writes it; a line is in a dictionary when
its moves, in any orientation, are a path of it.  Knows node tables, kinds
and SGF move lists; nothing of mining.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from joseki_miner.method import kinds
from joseki_miner.book.lookup import query
from joseki_miner.method.points import TENUKI, from_sgf


@dataclass(frozen=True)
class Shape:
    """A named line: its name, where it comes from, and its keys in the
    tree's normal form."""

    name: str
    keys: tuple[int, ...]
    source: str = ""


def shape(name: str, moves: str, source: str = "") -> Shape:
    """A named line of SGF points, Black first, colours alternating, "--" a
    tenuki: "dd fc cf db cc ic"."""
    words = moves.split()
    text = ";".join(f"{'BW'[i % 2]}[{'' if w == '--' else w}]" for i, w in enumerate(words))
    return Shape(name, query(text).keys, source)


def shapes(entries: Iterable[Mapping]) -> list[Shape]:
    """Shapes of entries with "name", "moves" and "source" (a YAML list)."""
    return [shape(e["name"], e["moves"], e.get("source", "")) for e in entries]


@dataclass
class Tree:
    """A pruned tree read for measuring: per row its path (keys from the
    empty corner), its count and kind, and which rows are joseki leaves."""

    paths: list[tuple[int, ...]]
    count: np.ndarray
    kind: list[str]
    joseki_leaf: np.ndarray
    labelled: bool  # mined with kinds; else the thesis' tree, all joseki
    joseki_node: np.ndarray | None = None  # the moves a joseki holds (kind joseki, not a tenuki, not the root)
    index: dict[tuple[int, ...], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.index = {p: i for i, p in enumerate(self.paths)}

    def kind_of(self, keys: tuple[int, ...]) -> str | None:
        """The kind the tree gives a line, None where it does not hold it."""
        i = self.index.get(keys)
        return None if i is None else self.kind[i]

    def leaves(self) -> list[tuple[int, ...]]:
        """The joseki leaves' paths, a trailing tenuki dropped."""
        out = []
        for i in np.flatnonzero(self.joseki_leaf):
            p = self.paths[i]
            while p and p[-1] == TENUKI:
                p = p[:-1]
            out.append(p)
        return out

    def joseki_nodes(self) -> list[tuple[int, ...]]:
        """The paths of the moves a joseki holds."""
        mask = self.joseki_node if self.joseki_node is not None else np.zeros(len(self.paths), bool)
        return [self.paths[i] for i in np.flatnonzero(mask)]

    def follow_ups(self) -> int:
        """The follow-ups: leaves of lines that went on after a tenuki."""
        has_child = {p[:-1] for p in self.paths if p}
        return sum(1 for p, k in zip(self.paths, self.kind) if k == "follow-up" and p not in has_child)


def tree(columns: Mapping[str, list], min_length: int = 0) -> Tree:
    """A Tree of joseki.parquet's columns (node, parent, depth, move,
    count, and kind where it was mined with kinds)."""
    node = np.asarray(columns["node"], np.int64)
    parent = np.asarray(columns["parent"], np.int64)
    depth = np.asarray(columns["depth"], np.int64)
    key = np.array([from_sgf(m) if m else TENUKI for m in columns["move"]], np.int64)
    row_of = {int(n): i for i, n in enumerate(node)}
    parent_row = np.array([row_of.get(int(p), 0) for p in parent], np.int64)
    paths: list[tuple[int, ...]] = [()] * len(node)
    for i in range(len(node)):  # parents before children
        if parent[i] >= 0:
            paths[i] = paths[parent_row[i]] + (int(key[i]),)
    labelled = "kind" in columns
    if labelled:
        kind = [str(k) for k in columns["kind"]]
        code = np.array([kinds.KINDS.index(k) for k in kind], np.int8)
        leaf = kinds.ends(parent_row, depth, key, code, min_length)
    else:
        kind = ["joseki"] * len(node)
        has_child = np.zeros(len(node), bool)
        has_child[parent_row[parent >= 0]] = True
        leaf = ~has_child & (depth > 0)
    joseki_node = np.array([k == "joseki" for k in kind], bool) & (key != TENUKI) & (depth > 0)
    return Tree(paths, np.asarray(columns["count"], np.int64), kind, leaf, labelled, joseki_node=joseki_node)


@dataclass(frozen=True)
class Found:
    """What a dictionary holds of a tree: its joseki nodes (richness), and
    its joseki leaves, with their share (rightness)."""

    nodes: int
    leaves: int
    share: float


@dataclass(frozen=True)
class Measure:
    """One row of the quality table."""

    nodes: int
    joseki_leaves: int
    named_joseki: int  # of the named joseki, those the tree holds as joseki
    named_total: int
    fuseki_as_joseki: int  # of the fuseki shapes, those the tree holds as joseki (should be 0)
    fuseki_named: int  # of the fuseki shapes, those the tree holds as an enclosure or an extension
    fuseki_total: int
    in_region: float  # the share of joseki leaves whose moves all lie in the corner's region
    in_dictionary: float | None  # the share of joseki leaves a dictionary holds (None: no dictionary)
    missing: tuple[str, ...] = ()  # the named joseki it does not hold as joseki
    fuseki_found: tuple[str, ...] = ()  # the fuseki shapes it holds as joseki
    joseki_nodes: int = 0  # the moves a joseki holds
    follow_ups: int = 0
    found: dict[str, Found] = field(default_factory=dict)  # per dictionary, what it holds of the tree


def measure(
    t: Tree,
    joseki: list[Shape],
    fuseki: list[Shape],
    region: int = 9,
    dictionary: set[tuple[int, ...]] | None = None,
    dictionaries: Mapping[str, set[tuple[int, ...]]] | None = None,
) -> Measure:
    """What the quality table says of tree ``t`` (module docstring);
    ``dictionary``'s share of the joseki leaves is ``in_dictionary``, and
    each of ``dictionaries`` (by name) gives a ``Found``."""
    missing = tuple(s.name for s in joseki if t.kind_of(s.keys) != "joseki")
    as_joseki = tuple(s.name for s in fuseki if t.kind_of(s.keys) == "joseki")
    named = sum(1 for s in fuseki if t.kind_of(s.keys) in kinds.FUSEKI)
    leaves = t.leaves()
    inside = sum(1 for p in leaves if all(kinds.lines(k) <= region for k in p))
    known = None if dictionary is None else (sum(1 for p in leaves if p in dictionary) / len(leaves) if leaves else 0.0)
    nodes = t.joseki_nodes()
    found = {}
    for name, lines in (dictionaries or {}).items():
        held = sum(1 for p in leaves if p in lines)
        found[name] = Found(sum(1 for p in nodes if p in lines), held, held / len(leaves) if leaves else 0.0)
    return Measure(
        len(t.paths),
        len(leaves),
        len(joseki) - len(missing),
        len(joseki),
        len(as_joseki),
        named,
        len(fuseki),
        inside / len(leaves) if leaves else 0.0,
        known,
        missing,
        as_joseki,
        len(nodes),
        t.follow_ups(),
        found,
    )


def dictionary_lines(game) -> set[tuple[int, ...]]:
    """Every line of an SGF joseki dictionary (an sgfmill game: its
    variations; a tenuki is a pass) and all their prefixes, in normal form.
    Variations that begin with setup stones (a position given, not played)
    are left out."""
    known: set[tuple[int, ...]] = set()
    root = game.get_root()
    stack = [(root, ())]
    while stack:
        node, moves = stack.pop()
        if node is not root and (node.has_property("AB") or node.has_property("AW")):
            continue
        colour, move = node.get_move()
        if colour is not None and (moves or move is not None):  # a leading pass says nothing
            moves = moves + ((colour, move),)
            if move is not None:
                letters = "abcdefghijklmnopqrs"
                text = ";".join(
                    f"{c.upper()}[{'' if m is None else letters[m[1]] + letters[18 - m[0]]}]" for c, m in moves
                )
                known.add(query(text).keys)
        stack.extend((child, moves) for child in node)
    return known


__all__ = ["Shape", "shape", "shapes", "Tree", "tree", "Found", "Measure", "measure", "dictionary_lines"]
