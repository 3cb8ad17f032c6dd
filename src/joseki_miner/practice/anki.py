"""Anki decks of a subtree of the tree (``genanki``): one note per position
where the colour to play has a move of at least ``min_share``.

The front is the corner as our own diagrams draw it (``book.diagram``, an
SVG image with the report's colours, the board's coordinates on its
edges) and "Black to play"; the back, the moves played there (each one's
share of the sequences there, as ``joseki lookup`` gives it, the win rate
of the side that plays it and its games), the line so far and the games
that reach the position.  A note's id (its guid) is of its position and
colour only, so a deck exported again updates its notes in Anki instead of
adding them twice.

Positions are in the tree's orientation (every joseki in the upper left
corner, where the diagrams draw it) and in the player's colours (``W Q16
...`` where White starts the corner).  The walk goes down the moves of at
least ``min_share`` and stops where the joseki ends (``replies.turns``).

Knows the tree's stored nodes, diagrams and genanki; writes only the file
it is given."""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Protocol

import genanki
import numpy as np
import pyarrow.parquet as pq

from joseki_miner.book.diagram import diagram, svg
from joseki_miner.book.explore import NotInTree, Tree, playable
from joseki_miner.book.lookup import board_name, query
from joseki_miner.book.words import share_of
from joseki_miner.fast.arrow import numpy
from joseki_miner.fast.parquet import read_columns
from joseki_miner.method.points import TENUKI
from joseki_miner.practice.feedback import win_rate_of
from joseki_miner.practice.replies import turns
from joseki_miner.runs.catalog import Catalog, parts_of
from joseki_miner.runs.errors import JosekiError

MIN_SHARE = 0.05
SHOWN = 8  # the moves listed on a card's back, the most played first
MAX_NOTES = 5000  # a deck larger than this is not a deck to learn: narrow it (a start, a larger share)
MODEL_ID = 1607392319  # Anki's ids of our note type and deck: fixed, so a deck imported again is the same deck
DECK_ID = 2059400110


class ExportError(JosekiError):
    """A deck that cannot be written: nothing to put in it, a file that cannot be made (exit 2)."""

    exit_code = 2


@dataclass(frozen=True)
class Position:
    """A position of the subtree: its moves in normal form (trie keys), the
    colour to play (the player's), its games and sequences, and its moves
    (dicts: board, normal, count, games, share, win_rate, kind)."""

    keys: tuple[int, ...]
    colour: str
    games: int
    count: int
    moves: tuple[dict, ...]
    swapped: bool

    @property
    def normal(self) -> str:
        return ";".join(_sgf(k, d) for d, k in enumerate(self.keys, 1))

    @property
    def line(self) -> str:
        return " ".join(_board(k) for k in self.keys) or "the empty corner"


def _board(key: int) -> str:
    return "tenuki" if key == TENUKI else board_name(key)


def _sgf(key: int, depth: int) -> str:
    from joseki_miner.method.points import to_sgf

    return f"{'BW'[(depth - 1) % 2]}[{'' if key == TENUKI else to_sgf(key)}]"


def colour_at(depth: int, swapped: bool) -> str:
    """The player's colour to play after ``depth`` moves (the tree's Black at an even depth)."""
    return ("black", "white")[(depth % 2) ^ int(swapped)]


@dataclass
class Nodes:
    """The stored trie's figures a walk needs, read once: each node's
    parent, key, sequences, games, wins and kind, and its children by count."""

    key: np.ndarray
    count: np.ndarray
    games: np.ndarray
    black_wins: np.ndarray
    white_wins: np.ndarray
    kind: list[str | None]
    kids: np.ndarray
    kid_start: np.ndarray

    @classmethod
    def read(cls, catalog: Catalog) -> Nodes:
        from joseki_miner.book.explore import move_keys

        names = ["parent", "move", "count", "games", "black_wins", "white_wins"]
        has_kind = "kind" in pq.ParquetFile(next(iter(parts_of(catalog.trie)))).schema_arrow.names
        table = read_columns(catalog.trie, names + (["kind"] if has_kind else []), dictionary=["move"])
        parent = numpy(table.column("parent"))
        key = move_keys(table.column("move")) if len(table) else np.zeros(0, np.int64)
        count = numpy(table.column("count"))
        kids = np.lexsort((key, -count, parent))[1:]  # the root (parent -1) first, then by parent, count, key
        kid_start = np.searchsorted(parent[kids], np.arange(len(parent) + 1))
        kind = table.column("kind").to_pylist() if has_kind else [None] * len(parent)
        return cls(
            key,
            count,
            numpy(table.column("games")),
            numpy(table.column("black_wins")),
            numpy(table.column("white_wins")),
            kind,
            kids,
            kid_start,
        )

    def children(self, n: int) -> list[tuple[int, dict]]:
        """Node ``n``'s children and their figures, the most counted first."""
        return [(int(c), self.figures(int(c))) for c in self.kids[self.kid_start[n] : self.kid_start[n + 1]]]

    def figures(self, n: int) -> dict:
        return {
            "count": int(self.count[n]),
            "games": int(self.games[n]),
            "black_wins": int(self.black_wins[n]),
            "white_wins": int(self.white_wins[n]),
            "kind": self.kind[n],
        }


class Source(Protocol):
    """Where a walk reads a node's figures (``Nodes``: the stored trie's;
    the explorer's index: those of a selection of the games)."""

    key: np.ndarray

    def figures(self, n: int) -> dict: ...

    def children(self, n: int) -> list[tuple[int, dict]]: ...


def positions(
    catalog: Catalog,
    text: str,
    min_share: float = MIN_SHARE,
    colour: str | None = None,
    source: Source | None = None,
) -> list[Position]:
    """The positions of the subtree at the sequence ``text`` (as ``joseki
    lookup`` takes it) where ``colour`` (either, when None) is to play and
    has a move of at least ``min_share``, their figures from ``source``
    (default: the stored trie's); a NotInTree where the tree does not hold
    the start."""
    n, start, swapped = 0, (), False  # the empty corner: the whole tree
    if text.strip():
        q = query(text, checked=False)
        tree = Tree.read(catalog)
        n, held = tree.find(q.keys)
        if held < len(q.keys):
            playable(catalog, q)
            raise NotInTree(q, held, tree.node(n))
        start, swapped = q.keys, q.swapped
    nodes = source if source is not None else Nodes.read(catalog)
    found: list[Position] = []
    todo: list[tuple[int, tuple[int, ...], dict]] = [(n, start, nodes.figures(n))]
    while todo:
        node, keys, here = todo.pop()
        depth = len(keys)
        moves = []
        for c, child in sorted(nodes.children(node), key=lambda cf: (-cf[1]["count"], int(nodes.key[cf[0]]))):
            key = int(nodes.key[c])
            moves.append(
                {
                    "board": _board(key),
                    "normal": _sgf(key, depth + 1),
                    "count": child["count"],
                    "games": child["games"],
                    "share": share_of(child["count"], here["count"]) or 0.0,
                    "win_rate": win_rate_of(child, depth),
                    "kind": child["kind"],
                    "node": c,
                    "figures": child,
                }
            )
        common = [m for m in moves if m["share"] >= min_share]
        to_play = colour_at(depth, swapped)
        if common and colour in (None, to_play):
            shown = tuple({k: v for k, v in m.items() if k not in ("node", "figures")} for m in moves)
            found.append(Position(keys, to_play, here["games"], here["count"], shown, swapped))
            if len(found) > MAX_NOTES:
                raise ExportError(
                    f"more than {MAX_NOTES:,} positions from {text.strip() or 'the empty corner'}: "
                    "start further down (--moves) or ask for a larger --min-share"
                )
        for m in reversed(common):
            if not turns(here["kind"], m):
                todo.append((m["node"], keys + (int(nodes.key[m["node"]]),), m["figures"]))
    found.sort(key=lambda p: (len(p.keys), -p.games, p.normal))
    return found


def note_id(p: Position, selection: str = "") -> str:
    """The note's guid: of the position, the colour to play and the
    selection of games (none: the whole tree) only."""
    return genanki.guid_for("joseki-miner", p.normal, p.colour, *([selection] if selection else []))


def image_name(p: Position) -> str:
    return "joseki-" + hashlib.sha256(f"{p.normal}|{p.colour}".encode()).hexdigest()[:16] + ".svg"


def board_svg(p: Position) -> str:
    """The position's corner as a standalone SVG file (the report's colours inside it)."""
    from joseki_miner.book.style import CSS

    colours = [("BW"[(d % 2) ^ int(p.swapped)], k) for d, k in enumerate(p.keys)]
    drawn = svg(diagram(colours), cell=28, coordinates=True, label=f"{p.line}, {p.colour} to play")
    style = "".join(line for line in CSS.splitlines() if line.startswith("svg.board"))
    head, rest = drawn.split(">", 1)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{head}><style>{style}</style>{rest}\n'


def _percent(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def back_html(p: Position) -> str:
    rows = "".join(
        f'<tr data-normal="{escape(m["normal"])}"><td>{escape(m["board"])}</td>'
        f'<td class="n">{_percent(m["share"])}</td>'
        f'<td class="n">{_percent(m["win_rate"])}</td><td class="n">{m["games"]:,}</td></tr>'
        for m in p.moves[:SHOWN]
    )
    return (
        "<table><tr><th>move</th><th>share</th><th>wins</th><th>games</th></tr>" + rows + "</table>"
        f"<p>The line so far: {escape(p.line)}</p><p>{p.games:,} games reach this position.</p>"
    )


MODEL = genanki.Model(
    MODEL_ID,
    "joseki-miner position",
    fields=[{"name": "Position"}, {"name": "Board"}, {"name": "ToPlay"}, {"name": "Moves"}],
    templates=[
        {
            "name": "Next move",
            "qfmt": '<div class="board">{{Board}}</div><p class="to-play">{{ToPlay}}</p>',
            "afmt": '{{FrontSide}}<hr id="answer">{{Moves}}',
        }
    ],
    css=".card{font-family:system-ui,sans-serif;text-align:center}table{margin:auto;border-collapse:collapse}"
    "td,th{padding:2px 8px;border-bottom:1px solid #ddd}td.n{text-align:right}",
)


def write_deck(found: list[Position], path: Path, name: str, selection: str = "") -> int:
    """The positions as an Anki deck at ``path`` (written under a temporary
    name, then renamed: a deck is whole or not there), of the games
    ``selection`` names (its notes apart from the whole tree's); how many notes."""
    if not found:
        raise ExportError("no position to export: no move there has the share asked for (--min-share)")
    deck = genanki.Deck(
        DECK_ID + int(hashlib.sha256(selection.encode()).hexdigest()[:6], 16) if selection else DECK_ID, name
    )
    try:
        with tempfile.TemporaryDirectory(prefix="joseki-anki-") as folder:
            media = []
            for p in found:
                image = Path(folder) / image_name(p)
                image.write_text(board_svg(p), encoding="utf-8")
                media.append(str(image))
                fields = [
                    p.normal + " " + p.colour,
                    f'<img src="{image.name}">',
                    f"{p.colour.title()} to play",
                    back_html(p),
                ]
                deck.add_note(genanki.Note(model=MODEL, fields=fields, guid=note_id(p, selection)))
            fd, staged = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            os.close(fd)
            try:
                genanki.Package(deck, media_files=media).write_to_file(
                    staged
                )  # now: Anki updates a note only from a newer one
                os.replace(staged, path)
            finally:
                if os.path.exists(staged):
                    os.unlink(staged)
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return len(found)
