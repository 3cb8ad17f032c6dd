"""Phase 2, step 1 (thesis 4.2 and 7.3): cut the trie down to joseki.

Every subtree whose count is below the threshold goes; then every joseki
(root-to-leaf path) shorter than ``min_length`` goes.  A node's count is at
least any child's, so the result for a higher threshold is a subtree of the
result for a lower one, with the same counts (thesis section 6).

PruneRules of the thesis' future work (section 9), each off unless asked
(``PruneRules``):

* the threshold read on games (``on_games``: the evidence threshold of
  ``threshold``), and no node of fewer than ``min_games`` games, whatever
  the rule;
* the pruning function, a line kept to its natural end: a reply that at
  least ``follow`` of its position's sequences play is kept even below the
  threshold (a line goes on where nearly every player goes on), and no
  line ends one move before such a reply: where that reply has too few
  games to be kept, the line ends where it last could;
* ``min_share``: a child with less than that share of its parent's count
  goes even above the threshold (a rare move at a popular position);
* tenuki folding, where a tenuki that no kept move follows is no joseki of
  its own but where its parent's line ends (``tenuki_counts`` says how
  often);
* the evidence at the position: a move that at least ``position_share``
  of its position's sequences play (the lower end of that share's
  interval at ``position_confidence``), with ``position_games`` games of
  its own, is kept below the threshold: a share of all the games stays
  the same book for ten times the games, while an answer players choose
  at a position enters once the games show it, so the book grows with
  them;
* opening families: a first move played in at least ``family_games``
  games (the 5-4 point, the 3-3 point) keeps the lines that
  ``family_fraction`` of its own games play, where the threshold on all
  the games would cut them (``family_threshold``): a rare family keeps its
  main lines, a common one is unchanged.

The subtree law holds with each of them.  Works on node tables (see
``trie``), parents listed before children; knows nothing of games or files.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from joseki_miner.method.points import SIZE, TENUKI, from_sgf
from joseki_miner.method.threshold import z_of

if TYPE_CHECKING:  # pandas loads only when a table is made
    import pandas as pd


def _compiled(loop):
    """``loop`` compiled by numba (cached on disk) at its first call: what
    only reads the threshold (the dask engine's driver) never loads numba."""

    @functools.cache
    def compiled():
        from numba import njit

        return njit(cache=True)(loop)

    return lambda *args: compiled()(*args)


@dataclass(frozen=True)
class PruneRules:
    """The future work's rules of phase 2 (module docstring); the defaults
    are the thesis'."""

    follow: float | None = None  # keep a reply this share of its position plays; end no line just before one
    min_share: float = 0.0  # cut a child with less than this share of its parent's count
    fold_tenuki: bool = False  # a tenuki no kept move follows ends its parent's line
    min_games: int = 1  # no node of fewer games
    on_games: bool = False  # the threshold counts a node's games, not its sequences
    family_games: int = 0  # a first move of at least this many games is an opening family (0: off)
    family_fraction: float = 0.0  # the share of a family's games (or sequences) its lines need
    family_confidence: float | None = None  # that share read as evidence, as the threshold's (``threshold``)
    position_share: float = 0.0  # keep a move this share of its position's sequences play (0: off) ...
    position_games: int = 0  # ... where it has this many games
    position_confidence: float | None = None  # that share read as evidence (its interval's lower end)

    def family_threshold(self, played: int, threshold: int) -> int:
        """The threshold within a family whose first move is played
        ``played`` times (games where ``on_games``, else sequences): its
        ``family_fraction``, read as the threshold reads a share, never
        above ``threshold``."""
        from joseki_miner.method.threshold import threshold as share_threshold

        return min(threshold, share_threshold(played, None, self.family_fraction, self.family_confidence))


def _keep_loop(
    parent_row,
    depth,
    count,
    games,
    through,
    limit,
    min_length,
    follow,
    min_share,
    tenuki,
    fold,
    min_games,
    on_games,
    position_share,
    position_games,
    z,
    only_able,
):
    n = len(parent_row)
    keep = np.zeros(n, dtype=np.bool_)
    able = np.zeros(n, dtype=np.bool_)
    if n:
        able[0] = True
    for i in range(1, n):  # parents first: a child of a node let through may be let through
        p = parent_row[i]
        if depth[i] > 1:  # a line's threshold is its first move's (its family's)
            limit[i] = limit[p]
        if not able[p] or games[i] < min_games:
            continue
        share = through[i] / count[p] if count[p] > 0 else 0.0
        enough = (games[i] if on_games else count[i]) >= limit[i]
        if not enough and position_share > 0 and games[i] >= position_games and count[p] > 0:
            # the lower end of the Wilson interval of the share (``threshold.lower_bound``; z 0: the share itself)
            m = count[p]
            centre = share + z * z / (2 * m)
            spread = z * np.sqrt(max(0.0, share * (1 - share)) / m + z * z / (4 * m * m))
            enough = (centre - spread) / (1 + z * z / m) >= position_share - 1e-12
        able[i] = share >= min_share and (enough or (follow > 0 and share >= follow))
    if only_able:
        return able
    if follow > 0:  # no line ends one move before a reply that ``follow`` of its sequences play
        kids = np.zeros(n, dtype=np.int64)
        forced = np.zeros(n, dtype=np.bool_)
        for i in range(1, n):
            p = parent_row[i]
            if able[i]:
                kids[p] += 1
            if not tenuki[i] and count[p] > 0 and through[i] >= follow * count[p]:
                forced[p] = True
        for i in range(n - 1, 0, -1):  # children before parents
            if able[i] and kids[i] == 0 and (forced[i] or (fold and tenuki[i])):
                able[i] = False
                kids[parent_row[i]] -= 1
    for i in range(n - 1, 0, -1):  # children before parents
        if able[i] and (keep[i] or (depth[i] >= min_length and not (fold and tenuki[i]))):
            keep[i] = True
            keep[parent_row[i]] = True
    if n:
        keep[0] = True
    return keep


_keep = _compiled(_keep_loop)


@dataclass(frozen=True)
class Cut:
    """Where phase 2 cuts: the ``threshold`` (4.2), the least length of a
    line kept (``min_length``) and the future work's ``rules``."""

    threshold: int
    min_length: int
    rules: PruneRules = PruneRules()


def keep_mask(
    parent_row: np.ndarray,
    depth: np.ndarray,
    count: np.ndarray,
    cut: Cut,
    key: np.ndarray | None = None,
    games: np.ndarray | None = None,
    through: np.ndarray | None = None,
    only_able: bool = False,
) -> np.ndarray:
    """Which nodes survive: count (or, ``rules.on_games``, games) at least
    the ``cut``'s threshold (or the pruning function's ``rules``), on a
    path of surviving nodes that reaches its ``min_length`` moves (not by a
    tenuki, when ``rules`` folds them).  ``key`` gives each node's move
    (``TENUKI`` a tenuki; none given: no tenuki, no family).  ``parent_row``
    gives each node's parent as a row index (rows in parents-first order,
    the root first); ``games``, each node's games (its count where not
    given); ``through``, what of its count came from its parent's position
    (where move orders are merged; its count where not given): the share a
    move has of the moves played at its parent is ``through`` over the
    parent's count.  ``only_able``: the rows let through alone, before
    the rules that end lines there (``candidates``)."""

    def given(a: np.ndarray) -> np.ndarray:  # writable and whole: a read-only map would compile the loop again
        return np.require(a, np.int64, ["C", "W"])

    count = given(count)
    games = count if games is None else given(games)
    through = count if through is None else given(through)
    min_length, rules = cut.min_length, cut.rules
    depth = given(depth)
    key = np.full(len(depth), -1, np.int64) if key is None else np.asarray(key, np.int64)  # no point: no family
    return _keep(
        given(parent_row),
        depth,
        count,
        games,
        through,
        limits(depth, key, count, games, cut),
        min_length,
        float(rules.follow or 0.0),
        float(rules.min_share),
        (key == TENUKI) & (depth > 0),
        bool(rules.fold_tenuki),
        int(rules.min_games),
        bool(rules.on_games),
        float(rules.position_share),
        int(rules.position_games),
        z_of(rules.position_confidence),
        only_able,
    )


def limits(depth: np.ndarray, key: np.ndarray, count: np.ndarray, games: np.ndarray, cut: Cut) -> np.ndarray:
    """Each row's threshold before its family's is passed down: the cut's,
    and at a first move of an opening family (``PruneRules``: a corner
    point, ``family_point``) the family's (``keep_mask``'s loop gives
    every later move of a line its first move's)."""
    rules = cut.rules
    limit = np.full(len(depth), cut.threshold, np.int64)
    if rules.family_games > 0:
        played = games if rules.on_games else count
        for i in np.flatnonzero((depth == 1) & (games >= rules.family_games)).tolist():
            if family_point(int(key[i])):
                limit[i] = rules.family_threshold(int(played[i]), cut.threshold)
    return limit


FAMILY_LINES = 5  # the corner points: 3-3, 3-4, 4-4, 3-5, 4-5, 5-5 (a 6-4 stone is a side's, not a corner's)


def family_point(key: int) -> bool:
    """Whether a first move may open a family: a corner point, within the
    ``FAMILY_LINES``th line of both edges."""
    if not 0 <= key < SIZE * SIZE:
        return False
    r, c = divmod(key, SIZE)
    return max(min(r, SIZE - 1 - r), min(c, SIZE - 1 - c)) < FAMILY_LINES


def loosest(cut: Cut) -> Cut:
    """A cut that lets through every row ``cut`` may (a threshold no
    family's is below, as families are the rarest ``family_games``
    allows), without the families: what a row's own path decides alone."""
    rules = cut.rules
    if rules.family_games <= 0:
        return cut
    least = rules.family_threshold(rules.family_games, cut.threshold)
    return Cut(least, cut.min_length, replace(rules, family_games=0))


def candidates(
    parent_row: np.ndarray,
    depth: np.ndarray,
    count: np.ndarray,
    cut: Cut,
    key: np.ndarray | None = None,
    games: np.ndarray | None = None,
) -> np.ndarray:
    """The rows ``keep_mask`` may keep and those its choice reads: the rows
    let through (on a path of such rows from the root), and with
    ``rules.follow`` the replies that follow them often enough to end no
    line before them.  ``keep_mask`` of these rows alone (in their order)
    is ``keep_mask``'s of all rows, restricted to them: a trie kept as
    shards is pruned on its shards' candidates alone."""
    parent_row = np.asarray(parent_row, np.int64)
    cut = loosest(cut)  # a shard may not hold a family's first move's whole count: every row it may keep
    able = keep_mask(parent_row, depth, count, cut, key, games, only_able=True)
    follow = float(cut.rules.follow or 0.0)
    if follow > 0 and len(able):
        count = np.asarray(count, np.int64)
        tenuki = np.zeros(len(able), np.bool_) if key is None else (np.asarray(key) == TENUKI) & (np.asarray(depth) > 0)
        parent_count = count[parent_row]
        able |= able[parent_row] & ~tenuki & (parent_count > 0) & (count >= follow * parent_count)
    if len(able):
        able[0] = True
    return able


def tenuki_counts(parent_row: np.ndarray, key: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Per node, the count of its tenuki child (0 where it has none): how
    many of its sequences went on elsewhere before coming back."""
    out = np.zeros(len(parent_row), np.int64)
    at = np.flatnonzero((np.asarray(key) == TENUKI) & (np.arange(len(parent_row)) > 0))
    out[np.asarray(parent_row)[at]] = np.asarray(count, np.int64)[at]
    return out


def renumber(node: np.ndarray, parent: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """New ids 0.. for the kept rows, and their parents' new ids."""
    new_id = np.full(int(node.max()) + 1 if len(node) else 0, -1, dtype=np.int64)
    new_id[node[keep]] = np.arange(int(keep.sum()))
    kept_parent = parent[keep]
    return new_id[node[keep]], np.where(kept_parent < 0, -1, new_id[np.maximum(kept_parent, 0)])


def parent_rows(node: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Each row's parent as a row index (the root's is 0)."""
    return np.where(parent < 0, 0, rows_of(node, np.maximum(parent, 0)))


def rows_of(node: np.ndarray, asked: np.ndarray) -> np.ndarray:
    """The rows of the nodes ``asked`` (numbers in ``node``, the trie's
    nodes by row).  Nodes numbered 0 to n - 1 in row order, as the build
    numbers them, are their own rows: no map is made."""
    node, asked = np.asarray(node, np.int64), np.asarray(asked, np.int64)
    n = len(node)
    if n == 0 or (node[0] == 0 and node[-1] == n - 1 and bool((node[1:] > node[:-1]).all())):
        return asked
    row_of = np.zeros(int(node.max()) + 1, dtype=np.int64)
    row_of[node] = np.arange(n)
    return row_of[asked]


def survivors(
    node: np.ndarray,
    parent: np.ndarray,
    depth: np.ndarray,
    count: np.ndarray,
    cut: Cut,
    key: np.ndarray | None = None,
    games: np.ndarray | None = None,
    through: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which rows survive phase 2 (the root always does), and their new ids
    and parents' new ids (``renumber``)."""
    keep = keep_mask(parent_rows(node, parent), depth, count, cut, key, games, through)
    return (keep, *renumber(node, parent, keep))


def prune(table: pd.DataFrame, threshold: int, min_length: int, rules: PruneRules = PruneRules()) -> pd.DataFrame:
    """The nodes that survive phase 2, renumbered 0.. in table order (the
    root always survives)."""
    node = table["node"].to_numpy(dtype=np.int64)
    parent = table["parent"].to_numpy(dtype=np.int64)
    key = np.array([TENUKI if m == "" else from_sgf(m) for m in table["move"].tolist()], np.int64)
    games = table["games"].to_numpy() if "games" in table.columns else None
    keep, new_node, new_parent = survivors(
        node,
        parent,
        table["depth"].to_numpy(),
        table["count"].to_numpy(),
        Cut(threshold, min_length, rules),
        key,
        games,
    )
    kept = table[keep].copy()
    kept["node"], kept["parent"] = new_node, new_parent
    return kept.reset_index(drop=True)


def leaves(table: pd.DataFrame) -> pd.DataFrame:
    """The rows below the root that have no children: the joseki."""
    has_child = set(table["parent"].tolist())
    return table[~table["node"].isin(has_child) & (table["depth"] > 0)]


def _top_games_loop(first, count, rank, sequence, k, owner, node_of, picks, segment):
    n = 0
    best_rank = np.empty(k, np.int64)
    best_pos = np.empty(k, np.int64)
    best_seg = np.empty(k, np.int64)
    held = 0
    for i in range(len(first)):
        if i > 0 and owner[i] != owner[i - 1]:  # the last segment of a node: its picks
            for j in range(held):
                node_of[n] = owner[i - 1]
                picks[n] = best_pos[j]
                segment[n] = best_seg[j]
                n += 1
            held = 0
        for p in range(first[i], first[i] + count[i]):
            r = rank[p]
            seen = -1
            for j in range(held):
                if best_rank[j] == r:
                    seen = j
                    break
            if seen >= 0:  # the game again: keep its sequence that started first
                if sequence[p] < sequence[best_pos[seen]]:
                    best_pos[seen] = p
                    best_seg[seen] = i
                continue
            if held < k:
                j = held
                held += 1
            elif r < best_rank[held - 1]:
                j = held - 1
            else:
                continue
            while j > 0 and best_rank[j - 1] > r:  # insertion, smallest rank first
                best_rank[j] = best_rank[j - 1]
                best_pos[j] = best_pos[j - 1]
                best_seg[j] = best_seg[j - 1]
                j -= 1
            best_rank[j] = r
            best_pos[j] = p
            best_seg[j] = i
    if len(first):
        for j in range(held):
            node_of[n] = owner[len(first) - 1]
            picks[n] = best_pos[j]
            segment[n] = best_seg[j]
            n += 1
    return n


_top_games = _compiled(_top_games_loop)


def top_games(
    first: np.ndarray,
    count: np.ndarray,
    rank: np.ndarray,
    sequence: np.ndarray,
    k: int,
    owner: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per node (its sequences: positions first[i] .. first[i] + count[i]
    of a stream whose games have ``rank``, one per game, and ``sequence``,
    the number of the sequence in its game; a node's ranges are the
    consecutive ``i`` of one ``owner``, by default one a node), its ``k``
    games of smallest rank, each at its earliest-started sequence there:
    (node of each pick, position of each pick, the range it is in), nodes
    in order, ranks ascending within."""
    owner = np.arange(len(first), dtype=np.int64) if owner is None else np.asarray(owner, np.int64)
    size = int(np.asarray(count).sum()) if k > 0 else 0
    node_of = np.empty(min(size, len(first) * max(k, 0)), np.int64)
    picks = np.empty(len(node_of), np.int64)
    segment = np.empty(len(node_of), np.int64)
    if k <= 0:
        return node_of, picks, segment
    n = _top_games(
        np.asarray(first, np.int64),
        np.asarray(count, np.int64),
        np.asarray(rank, np.int64),
        np.asarray(sequence, np.int64),
        k,
        owner,
        node_of,
        picks,
        segment,
    )
    return node_of[:n], picks[:n], segment[:n]


def first_keys(parent: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Per node of a node table (parents before children), the first key
    of its path (the root's: its own)."""
    out = np.asarray(key, np.int64).copy()
    for i in range(len(parent)):
        if parent[i] > 0:
            out[i] = out[parent[i]]
    return out
