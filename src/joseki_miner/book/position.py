"""Search by position (``joseki position``): the stones of a corner,
whatever order of moves put them there, in any orientation and either
colour.

A corner position is keyed as ``method.positions`` keys the trie's nodes
(its stones under the 8 symmetries, the player to move).  The tree's
colours are its Black's, the player who started the corner, so stones
given as Black and White are looked for both ways: as given, and with the
colours swapped (a corner White started); without the player to move,
both players.  Every stored node that stands on one of those keys is an
order that reaches the position: the answer is their games (each game
once), each order with its games, each next move (the children of those
nodes, one move per point of the position as given) with its sequences,
share, win rate and years, and the most recent games.

Reads the stored trie (nodes played at least twice), its sequences in trie
order and the games' information; writes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa

from joseki_miner.book.explore import GAME_COLUMNS, move_keys
from joseki_miner.fast.parquet import RowGroups, groups_where, read_columns, row_range
from joseki_miner.book.lookup import SequenceError, board_point, board_name, corner_of
from joseki_miner.book.words import share_of
from joseki_miner.fast.arrow import numpy
from joseki_miner.method.board import Board
from joseki_miner.method.points import BLACK, NPOINTS, PASS, SIZE, TENUKI, WHITE, to_sgf
from joseki_miner.method.records import GameRecord
from joseki_miner.method.sequences import Phase1Params
from joseki_miner.method.positions import key_of, position_keys
from joseki_miner.method.symmetry import POINT_MAP, inverse
from joseki_miner.runs.catalog import Catalog

EXAMPLES = 5  # the most recent games shown


@dataclass(frozen=True)
class Position:
    """The stones asked for (points) and the player to move (0 Black,
    1 White; None: either)."""

    black: tuple[int, ...]
    white: tuple[int, ...]
    to_play: int | None = None

    @classmethod
    def of(cls, black: str, white: str, to_play: str | None = None) -> Position:
        """From board points (``Q16,R17``) and ``B`` or ``W``."""

        def points(text: str) -> tuple[int, ...]:
            words = [w for w in re.split(r"[,\s]+", text or "") if w]
            return tuple(board_point(w) for w in words)

        b, w = points(black), points(white)
        if not b and not w:
            raise SequenceError("a position needs a stone: --black Q16,R17 --white ...")
        if set(b) & set(w):
            raise SequenceError(f"{board_name(sorted(set(b) & set(w))[0])} is given as both colours")
        if len(set(b)) != len(b) or len(set(w)) != len(w):
            raise SequenceError("a point is given twice")
        side = None
        if to_play is not None:
            if to_play.strip().upper() not in ("B", "W"):
                raise SequenceError(f"--to-play is B or W, not {to_play!r}")
            side = 0 if to_play.strip().upper() == "B" else 1
        return cls(b, w, side)

    def keys(self) -> list[tuple[int, int, int, bool]]:
        """The keys the position may stand on in the tree: (hi, lo, the
        transform to its least image, colours swapped)."""
        found = []
        for swapped in (False, True):
            black, white = (self.white, self.black) if swapped else (self.black, self.white)
            for side in (0, 1) if self.to_play is None else (self.to_play,):
                hi, lo, t = key_of(black, white, side ^ swapped)
                found.append((hi, lo, t, swapped))
        return list(dict.fromkeys(found))


CORNERS = ("upper left", "upper right", "lower left", "lower right")  # as method.sequences.corners_of numbers them


def from_game(
    record: GameRecord, params: Phase1Params, move: int | None = None, corner: str | None = None
) -> tuple[Position, dict]:
    """The position of one corner of a game after ``move`` moves (all of
    them: None), and where it was taken from.  With moves, it is the corner
    sequence phase 1 reads (``params``: the tree's; a handicap stone opens
    its corner) that holds the latest move of a corner sequence (in
    ``corner``, ``CORNERS``, where given), its stones as they stand, with
    the player who answers to play; a diagram (setup stones, no move) gives
    the stones of the quarter ``corner`` names, else of the one holding the
    most stones, either player to play."""
    from joseki_miner.method.sequences import assign, corners_of

    moves = record.moves if move is None else record.moves[:move]
    if move is not None and not 0 <= move <= len(record.moves):
        raise SequenceError(f"--move {move}: the game has {len(record.moves)} moves")
    played = [m for m in moves if m.point != PASS]
    wanted = _corner(corner)
    if not played:
        stones = [(p, BLACK) for p in record.setup_black] + [(p, WHITE) for p in record.setup_white]
        if not stones:
            raise SequenceError("the game has no stone on the board there: give --move N past its first move")
        counts = [sum(k in corners_of(p) for p, _ in stones) for k in range(4)]
        k = wanted if wanted is not None else counts.index(max(counts))
        mine = [(p, c) for p, c in stones if k in corners_of(p)]
        if not mine:
            raise SequenceError(f"the {CORNERS[k]} corner holds no stone")
        asked = Position(tuple(p for p, c in mine if c == BLACK), tuple(p for p, c in mine if c == WHITE))
        return asked, {"move": 0, "corner": CORNERS[k]}
    sequences = assign(replace(record, moves=tuple(moves)), params)
    if wanted is not None:
        sequences = [q for q in sequences if wanted in corners_of(q.points[0])]
    if not sequences:
        where = f"in the {CORNERS[wanted]} corner " if wanted is not None else ""
        raise SequenceError(f"no corner sequence {where}after move {len(moves)}")
    holding = (q for m in reversed(played) for q in sequences if m.point in q.points)  # the latest move's
    seq = next(holding, sequences[0])
    k = wanted if wanted is not None else corners_of(seq.points[0])[0]
    board = Board()  # the sequence's stones alone, captures taken, as the tree keys its positions
    for p, c in zip(seq.points, seq.colours):
        if p != TENUKI:
            board.play(c, p)
    asked = Position(
        tuple(p for p in range(NPOINTS) if board.grid[p] == BLACK),
        tuple(p for p in range(NPOINTS) if board.grid[p] == WHITE),
        0 if seq.colours[-1] == WHITE else 1,
    )
    return asked, {"move": len(moves), "corner": CORNERS[k]}


def _corner(text: str | None) -> int | None:
    """A corner's number from its name ("upper right", "UR", "ur")."""
    if text is None:
        return None
    words = text.strip().lower().replace("-", " ").replace("_", " ")
    short = {"ul": 0, "ur": 1, "ll": 2, "lr": 3, "tl": 0, "tr": 1, "bl": 2, "br": 3}
    if words in short:
        return short[words]
    if words in CORNERS:
        return CORNERS.index(words)
    raise SequenceError(f"--corner is one of {', '.join(CORNERS)} (or UL, UR, LL, LR), not {text!r}")


def read_game(path: str, game: int = 1):
    """The ``game``-th game of an SGF file, as the miner reads and checks
    games (a record it rejects is a SequenceError with the reason; a
    handicap game is read)."""
    from pathlib import Path

    from joseki_miner.method.records import GameRecord as Record, RecordError
    from joseki_miner.method.validate import check
    from joseki_miner.readers.sgf import read_sgf_bytes

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SequenceError(f"cannot read {path}: {exc.strerror or exc}") from None
    for n, item in enumerate(read_sgf_bytes(data, str(path)), start=1):
        if n == game:
            if not isinstance(item, Record):
                raise SequenceError(f"{path}: {item.reason}" + (f" ({item.detail})" if item.detail else ""))
            if item.size != SIZE:
                raise SequenceError(f"{path}: a {item.size}x{item.size} game; the tree is of 19x19 games")
            if any(m.point != PASS for m in item.moves):  # a diagram has none: its stones are the position
                try:
                    check(item, include_handicap=True)
                except RecordError as exc:
                    raise SequenceError(f"{path}: {exc.reason}" + (f" ({exc.detail})" if exc.detail else "")) from None
            return item
    raise SequenceError(f"{path} holds no game {game}")


@dataclass(frozen=True)
class _Trie:
    """The stored trie's columns that a position's answer reads, as arrays
    (``key``: each node's move, -1 at the root)."""

    parent: np.ndarray
    depth: np.ndarray
    key: np.ndarray
    count: np.ndarray
    first: np.ndarray
    games: np.ndarray
    wins: tuple[np.ndarray, np.ndarray]  # Black's, White's
    years: tuple[np.ndarray, np.ndarray]  # the first, the last


def _trie(catalog: Catalog) -> _Trie:
    table = read_columns(
        catalog.trie,
        [
            "parent",
            "depth",
            "move",
            "first",
            "count",
            "games",
            "black_wins",
            "white_wins",
            "first_year",
            "last_year",
        ],
        dictionary=["move"],
    )
    key = move_keys(table.column("move"))
    depth = numpy(table.column("depth"))
    return _Trie(
        numpy(table.column("parent")),
        depth,
        np.where(depth == 0, -1, key) if len(table) else key,
        numpy(table.column("count")),
        numpy(table.column("first")),
        numpy(table.column("games")),
        (numpy(table.column("black_wins")), numpy(table.column("white_wins"))),
        (numpy(table.column("first_year")), numpy(table.column("last_year"))),
    )


_Matched = list[tuple[int, int, bool]]  # node, the asked position's transform, colours swapped


def position(catalog: Catalog, asked: Position, examples: int = EXAMPLES) -> dict:
    """The answer (module docstring) as one dict; moves in the board's
    points as the position was given."""
    trie = _trie(catalog)
    found, transform = _indexed(catalog, asked, trie.parent, trie.depth, trie.key)
    matched: _Matched = []
    for (h, low, t, swapped), nodes in zip(asked.keys(), found):
        matched += [(n, t, swapped) for n in nodes]
    line = _lines(trie.parent)
    played = _played(catalog, trie, matched)
    game_ids = np.unique(np.concatenate([numpy(p.column("game")) for p, _ in played])) if played else np.zeros(0, int)
    total = int(sum(trie.count[n] for n, _, _ in matched))
    return {
        "black": [board_name(p) for p in asked.black],
        "white": [board_name(p) for p in asked.white],
        "to_play": None if asked.to_play is None else "BW"[asked.to_play],
        "games": int(len(game_ids)),
        "sequences": total,
        "orders": _orders(trie, matched, transform, line),
        "moves": _next_moves(trie, matched, transform, total),
        "recent": _recent(catalog, trie.key, played, game_ids, examples, line),
    }


def _lines(parent: np.ndarray) -> Callable[[int], list[int]]:
    """A node's line: the nodes from the root's child down to it, each line
    found once."""
    path: dict[int, list[int]] = {}

    def line(n: int) -> list[int]:
        if n not in path:
            path[n] = [] if parent[n] < 0 else line(int(parent[n])) + [int(n)]
        return path[n]

    return line


def _played(catalog: Catalog, trie: _Trie, matched: _Matched) -> list[tuple[pa.Table, int]]:
    """Each matched node's sequences (game, start, orientation) from the
    sequences in trie order, with the node; none for a node never played."""
    return [
        (
            row_range(
                catalog.sorted_sequences,
                int(trie.first[n]),
                int(trie.first[n] + trie.count[n]),
                ["game", "start", "orientation"],
            ),
            n,
        )
        for n, _, _ in matched
        if trie.count[n]
    ]


def _orders(trie: _Trie, matched: _Matched, transform: dict[int, int], line: Callable[[int], list[int]]) -> list[dict]:
    """The orders of moves that reach the position, the most games first:
    each its node, its moves (SGF and as the board names them), whether its
    colours are swapped, its games and sequences."""
    orders = []
    for n, t, swapped in sorted(matched, key=lambda m: (-int(trie.games[m[0]]), m[0])):
        moves = line(n)
        orders.append(
            {
                "node": n,
                "sequence": ";".join(
                    f"{'BW'[(d + swapped) % 2]}[{to_sgf(int(trie.key[m]))}]" for d, m in enumerate(moves)
                ),
                "board": " ".join(_shown(trie.key[m], transform[n], t) for m in moves),
                "swapped": swapped,
                "games": int(trie.games[n]),
                "count": int(trie.count[n]),
            }
        )
    return orders


def _next_moves(trie: _Trie, matched: _Matched, transform: dict[int, int], total: int) -> list[dict]:
    """The position's next moves, one a point of the board as given and a
    colour, whichever order led there: their sequences, games, the mover's
    wins and losses, years and share of the ``total`` sequences; the most
    played first."""
    by_move: dict[tuple[str, str], dict] = {}
    for n, t, swapped in matched:
        for c in np.flatnonzero(trie.parent == n).tolist():
            mover = (int(trie.depth[c]) - 1) % 2  # 0: the tree's Black plays the child
            shown, colour = _shown(trie.key[c], transform[n], t), "BW"[(mover + swapped) % 2]
            move = by_move.setdefault(
                (shown, colour),
                {
                    "move": shown,
                    "colour": colour,
                    "count": 0,
                    "games": 0,
                    "wins": 0,
                    "losses": 0,
                    "first_year": None,
                    "last_year": None,
                },
            )
            move["count"] += int(trie.count[c])
            move["games"] += int(trie.games[c])
            won, lost = trie.wins[mover][c], trie.wins[1 - mover][c]
            move["wins"] += int(won)
            move["losses"] += int(lost)
            for k, v, pick in (("first_year", trie.years[0][c], min), ("last_year", trie.years[1][c], max)):
                if v:
                    move[k] = int(v) if move[k] is None else pick(move[k], int(v))
    moves = sorted(by_move.values(), key=lambda m: (-m["count"], m["move"]))
    for m in moves:
        m["share"] = share_of(m["count"], total)
    return moves


def _recent(
    catalog: Catalog,
    key: np.ndarray,
    played: list[tuple[pa.Table, int]],
    game_ids: np.ndarray,
    examples: int,
    line: Callable[[int], list[int]],
) -> list[dict]:
    """The ``examples`` most recent games that reach the position (ties by
    game), each with the move and corner where its first sequence there
    starts (the least move, then the first node)."""
    if not (len(game_ids) and examples):
        return []
    games = RowGroups(catalog.games)  # its parts' footers read once for both reads
    day = numpy(games.rows_at(game_ids, ["day"]).column("day")).astype(np.int64)
    chosen = game_ids[np.lexsort((game_ids, -day))[:examples]]
    recent = games.rows_at(chosen, ["game", "day", *GAME_COLUMNS]).to_pylist()
    game = np.concatenate([numpy(p.column("game")) for p, _ in played])
    start = np.concatenate([numpy(p.column("start")) for p, _ in played])
    orientation = np.concatenate([numpy(p.column("orientation")) for p, _ in played])
    node = np.repeat([n for _, n in played], [len(p) for p, _ in played])
    mine = np.flatnonzero(np.isin(game, chosen))
    for r in recent:
        at = mine[game[mine] == r["game"]]
        i = at[np.lexsort((np.arange(len(at)), start[at]))[0]]
        r["move"], r["corner"] = int(start[i]), corner_of(int(orientation[i]), int(key[line(int(node[i]))[0]]))
    return recent


def _indexed(
    catalog: Catalog, asked: Position, parent: np.ndarray, depth: np.ndarray, key: np.ndarray
) -> tuple[list[list[int]], dict[int, int]]:
    """The stored nodes on each of the asked position's keys, in node order,
    and each one's transform to the position's least image: from the build's
    index (trie_positions.parquet, the row groups whose keys may hold one),
    or, in a work folder built before it, by keying every node now."""
    keys = asked.keys()
    if not catalog.trie_positions.exists():
        hi, lo, transform = position_keys(np.where(parent < 0, -1, parent), depth, key)
        nodes = [np.flatnonzero((hi == h) & (lo == low)).tolist() for h, low, _, _ in keys]
        return nodes, {n: int(transform[n]) for found in nodes for n in found}
    # each part (a shard's, on the dask engine) sorted alike, and the parts in node order
    rows = groups_where(
        catalog.trie_positions,
        lambda least, most: any(least <= h <= most for h, _, _, _ in keys),
        ["hi", "lo", "node", "transform"],
    )
    hi, lo, node, transform = (numpy(rows.column(c)) for c in ("hi", "lo", "node", "transform"))
    on = [(hi == h) & (lo == low) for h, low, _, _ in keys]
    held = np.logical_or.reduce(on) if on else np.zeros(len(node), bool)
    return [node[m].tolist() for m in on], dict(zip(node[held].tolist(), transform[held].tolist()))


def _shown(k: int, node_transform: int, asked_transform: int) -> str:
    """A tree key as the player's board names it: to the least image by
    the node's transform, back by the inverse of the asked position's."""
    if k == TENUKI:
        return "tenuki"
    return board_name(POINT_MAP[inverse(int(asked_transform))][POINT_MAP[int(node_transform)][int(k)]])
