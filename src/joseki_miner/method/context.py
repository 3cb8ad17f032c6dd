"""Each node's games on their whole board (issue 65; the thesis counts a
corner alone): in how many of them a stone of another sequence lay within
the "maybe" distance of the node's move when it was played, and the move
number of the game at that move.  A move played with another corner's
stones beside it, or late in the game, is an answer to that board, not a
corner's joseki alone.

Phase 1 records both facts of every entry (sequences.parquet's ``near`` and
``numbers``); here each sequence is walked down the pruned tree, a depth at
a time for all sequences at once, so a node sees exactly the sequences
the build counted through it, and each game once (by its earliest
sequence there, as the trie counts games: ``shared``).

Knows keys, node tables and arrays; nothing of files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from joseki_miner.method import kinds
from joseki_miner.method.points import SIZE, TENUKI

KEYS = TENUKI + 1  # a node's children coded parent * KEYS + key


@dataclass(frozen=True)
class Entries:
    """Sequences laid end to end: each one's entries from ``offsets[i]``
    to ``offsets[i + 1]``: its keys (points, ``TENUKI``), the game's move
    number at each, and whether another sequence's stone was near; and
    ``shared``, how many first entries it shares with an earlier-started
    sequence of its game (-1: none)."""

    offsets: np.ndarray
    keys: np.ndarray
    numbers: np.ndarray
    near: np.ndarray
    shared: np.ndarray


def keys_of_moves(text: bytes, offsets: np.ndarray) -> np.ndarray:
    """The keys of sequences.parquet's ``moves`` (normalized SGF points,
    two letters an entry, "--" a tenuki), laid end to end: the bytes of
    the column's values and their offsets in characters."""
    raw = np.frombuffer(text, np.uint8)[int(offsets[0]) : int(offsets[-1])].reshape(-1, 2).astype(np.int64)
    keys = (raw[:, 1] - ord("a")) * SIZE + (raw[:, 0] - ord("a"))
    return np.where(raw[:, 0] == ord("-"), TENUKI, keys)


@dataclass(frozen=True)
class NodeContext:
    """Per node of a pruned tree (by row): the sequences walked through it,
    its games, those of them with another sequence's stone near at its
    move, and the median move number of its games there (0 at the root)."""

    sequences: np.ndarray
    games: np.ndarray
    near: np.ndarray
    move: np.ndarray


@dataclass(frozen=True)
class Tree:
    """A pruned tree as the walk finds its children: ``codes`` (a child's
    parent row * ``KEYS`` + its key), sorted, and ``rows``, the child of
    each; ``n`` rows in all."""

    codes: np.ndarray
    rows: np.ndarray
    n: int

    @classmethod
    def of(cls, parent_row: np.ndarray, key: np.ndarray) -> Tree:
        """The tree of rows parents first, the root first (``parent_row``:
        each row's parent's row; ``key``: each row's move)."""
        n = len(parent_row)
        rows = np.arange(1, n, dtype=np.int64)
        codes = np.asarray(parent_row, np.int64)[1:] * KEYS + np.asarray(key, np.int64)[1:]
        order = np.argsort(codes, kind="stable")
        return cls(codes[order], rows[order], n)


_NUMBERS = 1 << 16  # a move number's place in a tally's code: row * _NUMBERS + number + _LOWEST
_LOWEST = 1 << 15


@dataclass(frozen=True)
class Tally:
    """What the walk of some sequences found, to be added to others'
    (``summed``): per row, its sequences, games and games with a stone
    near; and its games' move numbers there, as ``numbers`` (sorted codes
    row * 2**16 + number + 2**15) with how many games had each."""

    sequences: np.ndarray
    games: np.ndarray
    near: np.ndarray
    numbers: np.ndarray
    counts: np.ndarray

    @classmethod
    def empty(cls, n: int) -> Tally:
        zeros = np.zeros(n, np.int64)
        return cls(zeros, zeros, zeros, np.zeros(0, np.int64), np.zeros(0, np.int64))

    @classmethod
    def summed(cls, parts: Sequence[Tally], n: int) -> Tally:
        """The tallies of some batches of sequences as one (of ``n`` rows)."""
        if not parts:
            return cls.empty(n)
        numbers, at = np.unique(np.concatenate([p.numbers for p in parts]), return_inverse=True)
        counts = np.zeros(len(numbers), np.int64)
        np.add.at(counts, at, np.concatenate([p.counts for p in parts]))
        total = [sum(getattr(p, name) for p in parts) for name in ("sequences", "games", "near")]
        return cls(*total, numbers, counts)

    def context(self) -> NodeContext:
        """The node context of the sequences tallied: each node's move the
        lower median of its games' move numbers (0 at the root)."""
        n = len(self.games)
        move = np.zeros(n, np.int64)
        has = self.games > 0
        has[:1] = False
        if has.any():
            held = np.where(has, self.games, 0)  # the games whose move numbers are tallied (none at the root)
            before = np.concatenate([[0], np.cumsum(held)[:-1]])  # the numbers of the rows before a row's
            at = np.searchsorted(np.cumsum(self.counts), before[has] + (self.games[has] - 1) // 2, side="right")
            move[has] = self.numbers[at] % _NUMBERS - _LOWEST
        return NodeContext(self.sequences, self.games, self.near, move)


def tally(tree: Tree, entries: Entries) -> Tally:
    """The walk of ``entries`` down ``tree``: every sequence as far as its
    keys are nodes of it, each game counted by its earliest sequence
    through a node (``Entries.shared``)."""
    n, codes, rows = tree.n, tree.codes, tree.rows
    count = len(entries.offsets) - 1
    if n == 0 or count == 0:
        return Tally.empty(n)
    sequences, games, near = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    start, length = entries.offsets[:-1], np.diff(entries.offsets)
    alive = np.arange(count, dtype=np.int64)
    at = np.zeros(count, np.int64)  # each alive sequence's row so far (the root)
    sequences[0] = count
    games[0] = int((entries.shared < 0).sum())
    picked = []
    depth = 0
    while len(alive) and len(codes):
        depth += 1
        alive = alive[length[alive] >= depth]
        entry = start[alive] + depth - 1
        code = at[alive] * KEYS + entries.keys[entry]
        found = np.minimum(np.searchsorted(codes, code), len(codes) - 1)
        held = codes[found] == code
        alive, entry, row = alive[held], entry[held], rows[found[held]]
        at[alive] = row
        counted = entries.shared[alive] < depth  # the game's earliest sequence through the node
        sequences += np.bincount(row, minlength=n)
        games += np.bincount(row[counted], minlength=n)
        near += np.bincount(row[counted & entries.near[entry]], minlength=n)
        picked.append(row[counted] * _NUMBERS + (entries.numbers[entry][counted].astype(np.int64) + _LOWEST))
    numbers, counts = np.unique(np.concatenate(picked) if picked else np.zeros(0, np.int64), return_counts=True)
    return Tally(sequences, games, near, numbers, counts.astype(np.int64))


def node_context(parent_row: np.ndarray, key: np.ndarray, entries: Entries) -> NodeContext:
    """``NodeContext`` of a pruned tree (rows parents first, the root
    first; ``parent_row``: each row's parent's row; ``key``: each row's
    move) over ``entries``: every sequence walked down the tree as far as
    its keys are nodes of it."""
    return tally(Tree.of(parent_row, key), entries).context()


@dataclass(frozen=True)
class BoardRules:
    """When a joseki move is an answer to the board rather than to the
    corner (issue 65): ``situational`` where another sequence's stone was
    near in at least that share of its games and twice the share of the
    other moves at its position (chosen for that stone: they were not near
    one), or its games played it at move ``late`` or later (median) and it
    is not the answer most games play there; ``doubtful`` where the mover's win
    rate is at least that far below the most played move's at the same
    position, both with ``decided`` games, the gap outside chance (95%),
    and the strong programs' collections (``strong`` games at the
    position, at least ``decided`` / 3 of them) play it in under a quarter
    of the share the others do; a side move (``side``: on that line or
    beyond, at least ``side_distance`` from every stone of its line), rare
    at its position (under ``side_share``) after a position that already
    ends in tenuki ``side_tenuki`` of the time, is an extension (fuseki).
    None: the rule is off."""

    situational: float | None = 0.5
    late: int | None = 50
    doubtful: float | None = 0.03
    decided: int = 30
    side: int | None = 8
    side_distance: int = 6
    side_share: float = 0.25
    side_tenuki: float = 0.15


@dataclass(frozen=True)
class Evidence:
    """Per node of a pruned tree (by row), what ``board_kinds`` reads
    besides its context: its count, its tenuki child's count, the games its
    mover won and the games decided, and its games in the strong
    programs' collections."""

    count: np.ndarray
    tenuki: np.ndarray
    won: np.ndarray
    decided: np.ndarray
    strong: np.ndarray


def mover_wins(colour: list[str], black_wins: np.ndarray, white_wins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per node, the games its mover won and the games with a winner."""
    black = np.array([c == "B" for c in colour], bool)
    black_wins, white_wins = np.asarray(black_wins, np.int64), np.asarray(white_wins, np.int64)
    return np.where(black, black_wins, white_wins), black_wins + white_wins


def board_kinds(
    parent_row: np.ndarray,
    depth: np.ndarray,
    key: np.ndarray,
    code: np.ndarray,
    context: NodeContext,
    evidence: Evidence,
    rules: BoardRules = BoardRules(),
) -> np.ndarray:
    """The kind codes of a pruned tree with the board's kinds: a joseki
    move (``code`` JOSEKI) that ``rules`` find situational, doubtful or a
    side move becomes one, and the joseki moves after it take its kind (a
    line that turned to the board stays so; the other kinds keep theirs).
    Rows parents first, the root first."""
    parent_row, depth, key = (np.asarray(a, np.int64) for a in (parent_row, depth, key))
    out = np.asarray(code, np.int8).copy()
    n = len(out)
    move = (key != TENUKI) & (depth > 0) & (out == kinds.JOSEKI)
    games = np.maximum(context.games, 1)
    own = np.full(n, kinds.JOSEKI, np.int8)
    if rules.side is not None:
        far = _far_from_line(parent_row, depth, key, rules.side_distance)
        parent_count = np.maximum(evidence.count[parent_row], 1)
        side = (
            move
            & (np.maximum(key // SIZE, key % SIZE) + 1 >= rules.side)
            & far
            & (evidence.count < rules.side_share * parent_count)
            & (evidence.tenuki[parent_row] >= rules.side_tenuki * parent_count)
        )
        own[side] = kinds.EXTENSION
    if rules.situational is not None or rules.late is not None:
        share = context.near / games
        # the other moves at its position: a move is chosen for the stone near it where they are not near one
        kin = move & (key != TENUKI)
        sibling_near, sibling_games = np.zeros(n, np.int64), np.zeros(n, np.int64)
        np.add.at(sibling_near, parent_row[kin], context.near[kin])
        np.add.at(sibling_games, parent_row[kin], context.games[kin])
        other_games = sibling_games[parent_row] - context.games
        other = (sibling_near[parent_row] - context.near) / np.maximum(other_games, 1)
        near = np.zeros(n, bool)
        if rules.situational is not None:
            near = (share >= rules.situational) & (other_games > 0) & (share >= 2 * other)
        late = np.zeros(n, bool)
        if rules.late is not None:  # late in the game, and not the answer most games play there
            late = (context.move >= rules.late) & (2 * evidence.count < evidence.count[parent_row])
        own[move & (own == kinds.JOSEKI) & (near | late)] = kinds.SITUATIONAL
    if rules.doubtful is not None:
        own[move & (own == kinds.JOSEKI) & _doubtful(parent_row, depth, key, evidence, rules)] = kinds.DOUBTFUL
    out[own != kinds.JOSEKI] = own[own != kinds.JOSEKI]
    for d in range(2, int(depth.max()) + 1 if n else 0):
        at = np.flatnonzero((depth == d) & (out == kinds.JOSEKI))
        inherited = out[parent_row[at]]
        board = inherited != kinds.JOSEKI  # a joseki child's parent of another kind is one the board's rules named
        out[at[board]] = inherited[board]
    return out


def _far_from_line(parent_row: np.ndarray, depth: np.ndarray, key: np.ndarray, distance: int) -> np.ndarray:
    """Per node, whether its move lies at least ``distance`` (Manhattan)
    from every move of its line before it."""
    n = len(key)
    far = np.ones(n, bool)
    r, c = key // SIZE, key % SIZE
    ancestor = parent_row.copy()
    for _ in range(int(depth.max()) if n else 0):
        live = (depth > 0) & (depth[ancestor] > 0)
        point = live & (key[ancestor] != TENUKI) & (key != TENUKI)
        d = np.abs(r - r[ancestor]) + np.abs(c - c[ancestor])
        far &= ~(point & (d < distance))
        ancestor = np.where(live, parent_row[ancestor], ancestor)
    return far


def _doubtful(
    parent_row: np.ndarray, depth: np.ndarray, key: np.ndarray, evidence: Evidence, rules: BoardRules
) -> np.ndarray:
    """Which moves win well below the most played move at their position,
    and the strong programs seldom play where they reach it."""
    n = len(key)
    out = np.zeros(n, bool)
    moves = np.flatnonzero((key != TENUKI) & (depth > 0))
    if not len(moves):
        return out
    order = moves[np.lexsort((-evidence.count[moves], parent_row[moves]))]
    first = np.ones(len(order), bool)
    first[1:] = parent_row[order][1:] != parent_row[order][:-1]
    best = np.empty(n, np.int64)
    best[parent_row[order[first]]] = order[first]  # each position's most played move
    top = best[parent_row[moves]]
    a, b = evidence.won[moves], evidence.decided[moves]
    ta, tb = evidence.won[top], evidence.decided[top]
    enough = (b >= rules.decided) & (tb >= rules.decided) & (top != moves)
    rate, top_rate = a / np.maximum(b, 1), ta / np.maximum(tb, 1)
    pooled = (a + ta) / np.maximum(b + tb, 1)
    spread = np.sqrt(np.maximum(pooled * (1 - pooled), 1e-12) * (1 / np.maximum(b, 1) + 1 / np.maximum(tb, 1)))
    worse = enough & (top_rate - rate >= (rules.doubtful or 0.0)) & (top_rate - rate >= 1.96 * spread)
    at_parent = evidence.strong[parent_row[moves]]
    share = evidence.count[moves] / np.maximum(evidence.count[parent_row[moves]], 1)
    strong_share = evidence.strong[moves] / np.maximum(at_parent, 1)
    shunned = (at_parent >= max(1, rules.decided // 3)) & (strong_share < share / 4)
    out[moves] = worse & shunned
    return out


__all__ = [
    "BoardRules",
    "Entries",
    "Evidence",
    "NodeContext",
    "Tally",
    "Tree",
    "board_kinds",
    "keys_of_moves",
    "mover_wins",
    "node_context",
]
