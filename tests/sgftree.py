"""Read a joseki SGF back into (keys from the root) -> count, for comparing
the SGF with the Parquet tree."""

from __future__ import annotations

import re

from sgfmill import sgf

from joseki_miner.method.points import SIZE, TENUKI


def sgf_paths(text: str) -> dict[tuple[int, ...], int]:
    game = sgf.Sgf_game.from_string(text)
    out: dict[tuple[int, ...], int] = {}
    stack = [(child, ()) for child in game.get_root()]
    while stack:
        node, prefix = stack.pop()
        colour, rc = node.get_move()
        key = TENUKI if rc is None else (SIZE - 1 - rc[0]) * SIZE + rc[1]
        path = prefix + (key,)
        count = comment_count(node.get("C"))
        out[path] = count
        stack.extend((child, path) for child in node)
    return out


def comment_count(comment: str) -> int:
    """A node's count as its comment says it: "Played N times" where a game
    played it in more than one corner, else its games (or times) in the
    headline (the first line, or the second after a line saying its kind)."""
    played = re.search(r"Played ([\d,]+) times", comment)
    head = played or re.search(r"([\d,]+) (?:games?|times?) \(", "\n".join(comment.splitlines()[:2]))
    return int(head.group(1).replace(",", ""))


def sgf_colours(text: str) -> list[tuple[int, str]]:
    """(depth, colour) of every node."""
    game = sgf.Sgf_game.from_string(text)
    out = []
    stack = [(child, 1) for child in game.get_root()]
    while stack:
        node, depth = stack.pop()
        out.append((depth, node.get_move()[0]))
        stack.extend((child, depth + 1) for child in node)
    return out


def sgf_first_lines(text: str) -> dict[tuple[int, ...], str]:
    """Each move node's path (keys from the root) -> its comment's first line."""
    game = sgf.Sgf_game.from_string(text)
    out = {}
    stack = [(child, ()) for child in game.get_root()]
    while stack:
        node, prefix = stack.pop()
        rc = node.get_move()[1]
        path = prefix + (TENUKI if rc is None else (SIZE - 1 - rc[0]) * SIZE + rc[1],)
        out[path] = node.get("C").splitlines()[0]
        stack.extend((child, path) for child in node)
    return out
