"""What a node of the tree is: a joseki, a follow-up, or a fuseki shape
named apart.

The thesis finds "a lot of what might more properly be called fuseki
structures" among its joseki (section 6) and leaves telling them apart to
future work (sections 5.2 and 9).  A node's kind is a property of its path
(the sequence from the empty corner), read in normal form (5.1: the corner
is the upper left, its first move played by Black), a point lying on the
``max(row, col) + 1``-th line from the corner's edges:

* ``extension``: a move of the path lies beyond the ``region`` lines nearest
  the corner's edges (by default 9: on the central line or past it, where
  play has left the corner for the side; a first move far up the side
  starts no sequence at all where ``corner.start`` says so);
* ``enclosure``: else, when the corner's first player played there again
  before the other player played there at all (its second entry is a
  tenuki): a shimari, or an extension from an unanswered corner stone;
* ``approach``: else, with ``approach`` set, when the second player's first
  move there lies on the ``SIDE``-th line or beyond and at least that share
  of its sequences go on with a side move (on that line or beyond): an
  approach from the side whose purpose is the whole board's opening, which
  the game answers on the side, not in the corner;
* ``follow-up``: else, with ``follow_up``, when a move follows a tenuki at
  the third entry or later: the joseki had ended there and the line is the
  corner's later life, played when someone came back (a line that ends on
  its tenuki is where its joseki ends, "then tenuki");
* ``joseki``: else: both players play in the corner and every move stays in
  its region.

A kind never goes back: a node's is the largest of its own and its
parent's (joseki < follow-up < approach < enclosure < extension); a tenuki
takes its parent's.  Where
the tree's joseki end: a joseki node (not a tenuki) of at least
``min_length`` moves none of whose continuations is a joseki move (a
continuation through a tenuki counts where the line goes on after it as a
joseki, which a follow-up does not).

Knows trie keys, node arrays and their counts; nothing of games or files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from joseki_miner.method.points import SIZE, TENUKI
from joseki_miner.method.prune import parent_rows

JOSEKI, FOLLOW_UP, APPROACH, ENCLOSURE, EXTENSION, SITUATIONAL, DOUBTFUL = 0, 1, 2, 3, 4, 5, 6
# by code, the first five in the order a line can turn; the last two the board's (``method.context``)
KINDS = ("joseki", "follow-up", "approach", "enclosure", "extension", "situational", "doubtful")
FUSEKI = ("approach", "enclosure", "extension")
SIDE = 7  # a move on this line from the corner's edges or beyond is on the side (past the corner's 6x6 box)


@dataclass(frozen=True)
class KindRules:
    """Where a corner's moves lie (within ``region`` lines of the corner's
    edges), whether a line after a tenuki is a follow-up, and the share of
    side replies that makes an approach from the side a fuseki shape (None:
    none is)."""

    region: int = 9
    follow_up: bool = False
    approach: float | None = None


def lines(key: int) -> int:
    """How many lines from the upper left corner's edges a trie key lies
    (0 for a tenuki)."""
    if key == TENUKI:
        return 0
    r, c = divmod(key, SIZE)
    return max(r, c) + 1


def kind_of(keys: Sequence[int], rules: KindRules = KindRules()) -> str:
    """The kind of the path ``keys`` (trie keys from the empty corner), as
    a player reads it: the rules in the module docstring, one by one, but
    ``approach``, which needs the counts of the tree (``codes``)."""
    if not keys:
        return "joseki"
    if any(lines(k) > rules.region for k in keys if k != TENUKI):
        return "extension"
    if len(keys) >= 3 and keys[1] == TENUKI:
        return "enclosure"
    if rules.follow_up and TENUKI in keys[2:-1]:
        return "follow-up"
    return "joseki"


def own_codes(key: np.ndarray, depth: np.ndarray, parent_key: np.ndarray, rules: KindRules) -> np.ndarray:
    """Each node's kind by its own move alone (before its parent's is
    taken into account, and but ``approach``)."""
    key = np.asarray(key, np.int64)
    depth = np.asarray(depth, np.int64)
    move = (key != TENUKI) & (depth > 0)
    far = np.maximum(key // SIZE, key % SIZE) + 1
    out = np.full(len(key), JOSEKI, np.int8)
    if rules.follow_up:  # a move after a tenuki at the third entry or later
        out[move & (np.asarray(parent_key, np.int64) == TENUKI) & (depth >= 4)] = FOLLOW_UP
    out[(depth == 3) & (np.asarray(parent_key, np.int64) == TENUKI)] = ENCLOSURE
    out[move & (far > rules.region)] = EXTENSION
    return out


def on_side(key: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Which nodes are moves on the ``SIDE``-th line or beyond."""
    key, depth = np.asarray(key, np.int64), np.asarray(depth, np.int64)
    return (key != TENUKI) & (np.maximum(key // SIZE, key % SIZE) + 1 >= SIDE) & (depth > 0)


def side_replies(parent_row: np.ndarray, depth: np.ndarray, key: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Per node, the count of its children that are side moves (on the
    ``SIDE``-th line or beyond) below the second entry: what an approach
    from the side weighs."""
    key, depth = np.asarray(key, np.int64), np.asarray(depth, np.int64)
    replies = np.zeros(len(key), np.int64)
    at = np.flatnonzero(on_side(key, depth) & (depth >= 3))
    np.add.at(replies, np.asarray(parent_row, np.int64)[at], np.asarray(count, np.int64)[at])
    return replies


def side_approaches(
    parent_row: np.ndarray,
    depth: np.ndarray,
    key: np.ndarray,
    count: np.ndarray,
    share: float,
    replies: dict[int, int] | None = None,
) -> np.ndarray:
    """Which nodes are an approach from the side (module docstring): the
    second entry, a move on the ``SIDE``-th line or beyond, at least
    ``share`` of whose count goes on with moves there too (its children as
    the node table holds them; ``replies``, by row: the side replies of
    nodes whose children the table holds only some of, all counted)."""
    key = np.asarray(key, np.int64)
    count = np.asarray(count, np.int64)
    depth = np.asarray(depth, np.int64)
    weighed = side_replies(parent_row, depth, key, count)
    for row, total in (replies or {}).items():
        weighed[row] = total
    return on_side(key, depth) & (depth == 2) & (weighed >= share * count) & (count > 0)


def codes(
    parent_row: np.ndarray,
    depth: np.ndarray,
    key: np.ndarray,
    rules: KindRules = KindRules(),
    count: np.ndarray | None = None,
    replies: dict[int, int] | None = None,
) -> np.ndarray:
    """The kind code of every node of a node table (rows parents first,
    the root first; ``parent_row``: each row's parent row, the root's its
    own), a pass a depth; ``count``, the nodes' counts, where ``rules``
    name approaches from the side (``replies``: ``side_approaches``')."""
    parent_row = np.asarray(parent_row, np.int64)
    depth = np.asarray(depth, np.int64)
    key = np.asarray(key, np.int64)
    out = own_codes(key, depth, key[parent_row], rules)
    if rules.approach is not None and count is not None:
        approach = side_approaches(parent_row, depth, key, count, rules.approach, replies)
        out[approach] = np.maximum(out[approach], APPROACH)
    if len(out):
        out[depth == 0] = JOSEKI
    for d in range(1, int(depth.max()) + 1 if len(depth) else 0):
        at = np.flatnonzero(depth == d)
        out[at] = np.maximum(out[at], out[parent_row[at]])
    return out


def of_arrays(arrays: dict, rules: KindRules, replies: dict[int, int] | None = None) -> np.ndarray:
    """The kind codes of node arrays (``node``, ``parent``: -1 at the root,
    ``depth``, ``key``, ``count``; parents before children, the root
    first; ``replies``: ``side_approaches``')."""
    return codes(
        parent_rows(np.asarray(arrays["node"], np.int64), np.asarray(arrays["parent"], np.int64)),
        arrays["depth"],
        arrays["key"],
        rules,
        arrays.get("count"),
        replies,
    )


def ends(parent_row: np.ndarray, depth: np.ndarray, key: np.ndarray, code: np.ndarray, min_length: int) -> np.ndarray:
    """Which rows are where a joseki ends (module docstring): joseki moves
    of at least ``min_length`` entries with no joseki continuation."""
    parent_row = np.asarray(parent_row, np.int64)
    depth = np.asarray(depth, np.int64)
    key = np.asarray(key, np.int64)
    code = np.asarray(code)
    joseki = (code == JOSEKI) & (depth > 0)
    tenuki = key == TENUKI
    # a tenuki goes on as a joseki where it has a joseki child; a node goes on where it has such a child
    goes_on = np.zeros(len(key), bool)
    child = np.flatnonzero(joseki & ~tenuki)
    np.logical_or.at(goes_on, parent_row[child], True)
    through = np.flatnonzero(joseki & tenuki & goes_on)
    np.logical_or.at(goes_on, parent_row[through], True)
    return joseki & ~tenuki & ~goes_on & (depth >= min_length)


def names(code: np.ndarray) -> list[str]:
    """The kinds' names of codes."""
    return [KINDS[c] for c in np.asarray(code).tolist()]


__all__ = [
    "JOSEKI",
    "FOLLOW_UP",
    "SITUATIONAL",
    "DOUBTFUL",
    "APPROACH",
    "ENCLOSURE",
    "EXTENSION",
    "KINDS",
    "FUSEKI",
    "SIDE",
    "KindRules",
    "lines",
    "kind_of",
    "own_codes",
    "on_side",
    "side_replies",
    "side_approaches",
    "codes",
    "of_arrays",
    "ends",
    "names",
]
