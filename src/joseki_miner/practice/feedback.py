"""What a player's move is worth at a position: its share and the win rate
of the side that played it at the selection, the moves played most there
with theirs, and a mark where the move is rare (under ``RARE`` of the
games there) or unknown to the tree.

A position is a dict as ``book.explore.lookup`` (or the explorer's index at
a selection) gives it: its ``games`` and ``continuations``; ``depth`` is how
many moves reached it (the tree's Black plays at an even depth).  Pure
functions; knows positions' figures only."""

from __future__ import annotations

from collections.abc import Sequence

RARE = 0.05  # a move played in fewer of the games at its position is rare
TOP = 3  # the most played moves shown beside the player's
RARE_MARK, UNKNOWN_MARK = "rare", "unknown"


def win_rate_of(c: dict, depth: int) -> float | None:
    """The win rate of the side that plays ``c`` at ``depth``, of its games with a winner."""
    won, lost = (c["black_wins"], c["white_wins"]) if depth % 2 == 0 else (c["white_wins"], c["black_wins"])
    return won / (won + lost) if won + lost else None


def _shown(c: dict, depth: int, at_games: int) -> dict:
    return {
        "move": c["move"],
        "board": c.get("board", c["move"]),
        "normal": c.get("normal"),
        "games": c["games"],
        "share": c["share"],
        "game_share": c["games"] / at_games if at_games else 0.0,
        "win_rate": win_rate_of(c, depth),
        **({"kind": c["kind"]} if "kind" in c else {}),
    }


def same_move(c: dict, move: str) -> bool:
    """Whether continuation ``c`` is ``move`` (as the player, a board or the normal form writes it)."""
    wanted = move.strip().casefold()
    return any(str(c.get(k) or "").casefold() == wanted for k in ("move", "board", "normal"))


def feedback(position: dict, move: str, depth: int, top: int = TOP) -> dict:
    """The player's ``move`` at ``position`` (module docstring): ``played``
    (its figures, None where the tree does not know it), ``best`` (the
    ``top`` most played, the player's among them where it is), ``mark``
    ("rare", "unknown" or None) and ``most_played`` (whether it is the
    move played most there)."""
    continuations: Sequence[dict] = position["continuations"]
    at_games = position["games"]
    ranked = sorted(continuations, key=lambda c: (-c["games"], -c["count"]))
    mine = next((c for c in ranked if same_move(c, move)), None)
    played = None if mine is None else _shown(mine, depth, at_games)
    if played is None:
        mark = UNKNOWN_MARK
    elif played["game_share"] < RARE:
        mark = RARE_MARK
    else:
        mark = None
    best = [_shown(c, depth, at_games) for c in ranked[:top]]
    return {
        "move": move,
        "played": played,
        "mark": mark,
        "most_played": bool(ranked) and mine is ranked[0],
        "best": best,
        "games": at_games,
    }
