"""A player's repertoire against the tree: each corner sequence of their
games followed down the pruned tree to where it leaves it, grouped by
where it left and how, with the player's own count and results, and the
moves the tree's games played there with their shares (``words.share_of``) and win rates.

The player is found by name as the games' index writes it (``PB``/``PW``,
case and outer blanks aside), in either colour; a game against themself
(a program's self-play) is left out, and counted apart.  Lines are in the tree's
form (the corner upper left, its first player Black); the player is the
*first* in a corner they started, the *second* in one the opponent
started."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from joseki_miner.book.words import board_line, point_text, share_of
from joseki_miner.fast.arrow import numpy
from joseki_miner.fast.parquet import groups_where, read_columns
from joseki_miner.method.points import TENUKI, from_sgf, to_sgf


def players_games(games: Path, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The games of ``name`` (either colour): their numbers, whether the
    player was Black, the winner (-1 Black, +1 White, 0 none); and how many
    games the player played against themself (a program's self-play: both
    colours theirs, left out)."""
    table = read_columns(games, ["PB", "PW", "winner"])
    wanted = name.strip().casefold()
    black = np.array([(v or "").strip().casefold() == wanted for v in table.column("PB").to_pylist()], dtype=bool)
    white = np.array([(v or "").strip().casefold() == wanted for v in table.column("PW").to_pylist()], dtype=bool)
    games_ = np.flatnonzero(black ^ white)
    return games_, black[games_], numpy(table.column("winner"))[games_], int(np.count_nonzero(black & white))


def _children(joseki: Path) -> tuple[dict[tuple[int, int], int], dict[int, dict], dict[int, list[int]]]:
    """The pruned tree: node of (parent, key), each node's row, each node's
    children by count."""
    rows = pq.ParquetFile(joseki).read().to_pylist()
    child, kids = {}, {}
    for r in rows:
        if r["parent"] >= 0:
            child[(r["parent"], TENUKI if r["move"] == "" else from_sgf(r["move"]))] = r["node"]
            kids.setdefault(r["parent"], []).append(r["node"])
    by = {r["node"]: r for r in rows}
    for n in kids:
        kids[n].sort(key=lambda c: (-by[c]["count"], by[c]["move"]))
    return child, by, kids


def _line(moves: list[int]) -> str:
    return ";".join(f"{'BW'[d % 2]}[{to_sgf(k)}]" for d, k in enumerate(moves))  # a tenuki: B[] or W[]


def _rate(wins: int, losses: int) -> float | None:
    return wins / (wins + losses) if wins + losses else None


def _sequences_of(sequences: Path, games: np.ndarray) -> pa.Table:
    """The sequences of some games (sorted numbers) from sequences.parquet
    (in game order): only the row groups that hold one of them are read."""
    table = groups_where(
        sequences,
        lambda least, most: np.searchsorted(games, least) < np.searchsorted(games, most, side="right"),
        ["game", "swapped", "moves"],
    )
    return table.filter(pc.is_in(table.column("game"), value_set=pa.array(games, pa.int64())))


def repertoire(joseki: Path, sequences: Path, games: Path, name: str) -> dict:
    """``name``'s corner sequences against the tree: ``lines``, each where
    a group of sequences left the tree (``sequence``: the tree's line up
    to there; ``left_with``: the next move, "" for a tenuki, None where the
    sequence ended inside the tree; ``by``: "player" or "opponent", who
    played it; ``role``: "first" or "second"), the player's ``count``,
    ``wins`` and ``losses`` there, and the tree's moves there (``tree``:
    move, games, its share of the node's sequences (lookup's) and the win rate of the
    side that plays it); the most played first."""
    number, was_black, winner, self_play = players_games(games, name)
    if not len(number):
        return {"player": name, "games": 0, "self_play": self_play, "sequences": 0, "wins": 0, "losses": 0, "lines": []}
    table = _sequences_of(sequences, number)
    child, rows, kids = _children(joseki)
    black_of = dict(zip(number.tolist(), was_black.tolist()))
    won_of = {
        g: (w == (-1 if b else 1), w == (1 if b else -1))
        for g, b, w in zip(number.tolist(), was_black.tolist(), winner.tolist())
    }
    lines = _places(_left(table, child, black_of, won_of), rows, kids)
    lines.sort(key=lambda x: (-x["count"], x["sequence"], x["left_with"] or "", x["role"], x["by"] or ""))
    return {
        "player": name,
        "games": int(len(number)),
        "self_play": self_play,
        "sequences": int(table.num_rows),
        "wins": int(sum(w for w, _ in won_of.values())),
        "losses": int(sum(v for _, v in won_of.values())),
        "lines": lines,
    }


def _left(
    table: pa.Table,
    child: dict[tuple[int, int], int],
    black_of: dict[int, bool],
    won_of: dict[int, tuple[bool, bool]],
) -> dict[tuple, list[int]]:
    """Each sequence followed down the tree to where it leaves it, grouped
    by (node, the move that left it or None, who played that move, the
    player's role): the player's count, wins and losses there."""
    groups: dict[tuple, list[int]] = {}
    for g, swapped, moves in zip(
        table.column("game").to_pylist(), table.column("swapped").to_pylist(), table.column("moves").to_pylist()
    ):
        keys = [TENUKI if moves[i : i + 2] == "--" else from_sgf(moves[i : i + 2]) for i in range(0, len(moves), 2)]
        first = black_of[g] != bool(swapped)  # the player is the tree's Black: they started the corner
        node, depth = 0, 0
        while depth < len(keys) and (node, keys[depth]) in child:
            node = child[(node, keys[depth])]
            depth += 1
        left = keys[depth] if depth < len(keys) else None
        by = None if left is None else ("player" if (depth % 2 == 0) == first else "opponent")
        group = groups.setdefault((node, left, by, "first" if first else "second"), [0, 0, 0])
        group[0] += 1
        wins, losses = won_of[g]
        group[1] += wins
        group[2] += losses
    return groups


def _places(groups: dict[tuple, list[int]], rows: dict[int, dict], kids: dict[int, list[int]]) -> list[dict]:
    """Each group of sequences (``_left``) as a line of the answer: the
    tree's line to where they left it, the move that left it, the player's
    figures there and the tree's moves there."""
    line_of: dict[int, list[int]] = {0: []}
    for n, r in rows.items():  # rows are in pre-order: a parent before its children
        if r["parent"] >= 0:
            line_of[n] = line_of[r["parent"]] + [TENUKI if r["move"] == "" else from_sgf(r["move"])]
    lines = []
    for (node, left, by, role), (count, wins, losses) in groups.items():
        depth = len(line_of[node])
        tree = _tree_moves(rows, kids, node, depth)
        left_with = None if left is None else to_sgf(left)
        lines.append(
            {
                "node": node,
                "sequence": _line(line_of[node]),
                "board": board_line([to_sgf(k) for k in line_of[node]]),
                "depth": depth,
                "role": role,
                "left_with": left_with,
                "left_board": None if left_with is None else point_text(left_with),
                "by": by,
                "count": count,
                "wins": wins,
                "losses": losses,
                "tree": tree,
            }
        )
    return lines


def _tree_moves(rows: dict[int, dict], kids: dict[int, list[int]], node: int, depth: int) -> list[dict]:
    """The tree's moves at ``node`` (at ``depth``), the most played first:
    each with its games, its share of the node's sequences and the win rate
    of the side that plays it."""
    tree = []
    for c in kids.get(node, []):
        r = rows[c]
        mover_black = depth % 2 == 0  # the child's move is the tree's Black's at even depth
        won, lost = (r["black_wins"], r["white_wins"]) if mover_black else (r["white_wins"], r["black_wins"])
        tree.append(
            {
                "move": r["move"],
                "board": point_text(r["move"]),
                "count": r["count"],
                "games": r["games"],
                "share": share_of(r.get("through", r["count"]), rows[node]["count"]),
                "wins": _rate(won, lost),
                "kind": r.get("kind"),
            }
        )
    return tree
