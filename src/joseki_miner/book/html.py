"""The pieces of HTML every page of the book shares: the page's frame
(its head and footer), a table, the names of the pages every page links
to, and a node's board with its moves and continuations.  Kept apart so
that each page's module holds that page alone."""

from __future__ import annotations

import re
from html import escape

from joseki_miner import __version__
from joseki_miner.book.diagram import Mark, diagram, svg
from joseki_miner.book.words import Book, headline, percent, verdicts
from joseki_miner.method.points import TENUKI, from_sgf


INDEX, STYLE, CHANGED = "index.html", "style.css", "changed.html"


def page_name(node: int) -> str:
    """A node's page: ``n<node>.html``, beside the index."""
    return f"n{node}.html"


def is_node_page(name: str) -> bool:
    """Whether a file of the report is a node's page."""
    return re.fullmatch(r"n\d+\.html", name) is not None


def document(title: str, body: list[str]) -> str:
    """A page: ``body``'s lines under the book's head, with its footer."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{escape(title)}</title><link rel="stylesheet" href="{STYLE}"></head><body>\n'
        + "\n".join(body)
        + f"\n<footer>joseki-miner {__version__}: M. Helvensteijn's method, \"Applying data mining to the "
        'study of joseki" (2007).</footer>\n</body></html>\n'
    )


def table(head: list[str] | None, rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    """An HTML table (``head``: its column names, or None); cells are HTML
    already."""
    th = "".join(f"<th{' class=n' if i in numeric else ''}>{h}</th>" for i, h in enumerate(head or []))
    trs = "".join(
        "<tr>" + "".join(f"<td{' class=n' if i in numeric else ''}>{c}</td>" for i, c in enumerate(r)) + "</tr>"
        for r in rows
    )
    return f"<table>{f'<tr>{th}</tr>' if head else ''}{trs}</table>"


def moves_of(book: Book, node: int) -> list[tuple[str, int]]:
    """The path to ``node`` as (colour, trie key) for a diagram."""
    return [
        (book.get(n, "color"), from_sgf(book.get(n, "move")) if book.get(n, "move") else TENUKI)
        for n in book.path(node)
    ]


def sequence_name(book: Book, node: int) -> str:
    """ "D16 F17 C14 (tenuki) D18": the moves to a node."""
    return " ".join(book.point_name(n) for n in book.path(node)) or "Empty corner"


def board_of(
    book: Book, node: int, cell: int = 28, candidates: bool = True, played: Mark | None = None
) -> tuple[str, list[str]]:
    """A node's diagram (SVG) and its notes: the stones of its path
    numbered, its continuations marked with their shares and linked (with
    ``candidates``), its influence verdicts on the sides; and a move
    ``played`` there that the tree does not hold, ringed."""
    marks = [played] if played is not None else []
    if candidates:
        for c in book.children(node):
            move = book.get(c, "move")
            share = percent(book.share(c) or 0)
            marks.append(
                Mark(
                    from_sgf(move) if move else TENUKI, share, page_name(c), f"{book.move_name(c)}: {headline(book, c)}"
                )
            )
    sides = {d: v for d, v in verdicts(book, node).items() if v != "none"} if node != book.root else {}
    d = diagram(moves_of(book, node), marks, sides)
    return svg(d, cell=cell, coordinates=candidates, label=sequence_name(book, node)), d.notes
