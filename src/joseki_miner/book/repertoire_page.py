"""A player's repertoire page, ``repertoire-NAME.html`` (config
``report.players``): where their corner sequences leave the tree
(``repertoire``), with their results, and what the tree's games played
there, each on a board."""

from __future__ import annotations

import hashlib
import re
from html import escape

from joseki_miner.book.diagram import Mark
from joseki_miner.book.html import INDEX, board_of, document, page_name, sequence_name
from joseki_miner.book.lookup import board_name
from joseki_miner.book.words import Book, number, percent
from joseki_miner.method.points import from_sgf


LINES = 40  # the lines of a player's repertoire on its page
NAME_PART = 48  # characters of a player's name a file name keeps (file systems take 255 bytes)


def repertoire_name(player: str) -> str:
    """The page of a player's repertoire: their name where it is ASCII
    letters and digits alone and short, else its plain part (at most
    NAME_PART characters) and a digest of it (names in any script, names
    that differ only in their other characters or past their first
    characters keep pages of their own; a file name of at most 80 bytes)."""
    if re.fullmatch(r"[A-Za-z0-9]+", player) and len(player) <= NAME_PART:
        return f"repertoire-{player}.html"
    plain = re.sub(r"[^A-Za-z0-9]+", "-", player).strip("-")[:NAME_PART].strip("-")
    digest = hashlib.sha256(player.encode("utf-8")).hexdigest()[:12]
    return f"repertoire-{plain + '-' if plain else ''}{digest}.html"


def repertoire_page(book: Book, found: dict) -> str:
    """A player's corner sequences against the tree (``repertoire``): for
    each place their sequences leave it, the most played first, the
    board of the tree's line with the tree's moves there marked (each a
    link), the player's times and results there, and the move played."""
    name = found["player"]
    body = [
        f"<h1>Repertoire of {escape(name)}</h1>",
        f'<p class="lead">{number(found["games"])} games of {escape(name)} ({number(found["wins"])} won, '
        f"{number(found['losses'])} lost"
        + (f"; {number(found['self_play'])} against themself left out" if found.get("self_play") else "")
        + f"), {number(found['sequences'])} corner sequences, each followed down "
        "the tree to where it leaves it. The boards are in the tree's form: the corner in the upper left, its "
        "first player Black; the player is <i>first</i> in a corner they started, <i>second</i> in one the "
        f"opponent started. The marks are the tree's moves there; a ringed stone is the move played that left "
        f'the tree. <a href="{INDEX}">Back to the '
        "joseki</a>.</p>",
    ]
    if not found["lines"]:
        body.append("<p>None of their games is among the games mined.</p>")
    cards = []
    for line in found["lines"][:LINES]:
        node = line["node"]
        played = None
        number_ = len(book.path(node)) + 1
        if line["left_with"]:  # the move that left the tree, in the colour after the node's
            colour = "W" if node != book.root and book.get(node, "color") == "B" else "B"
            played = Mark(
                from_sgf(line["left_with"]), str(number_), "", f"{number_}: played here, out of the tree", colour
            )
        board, _ = board_of(book, node, cell=14, played=played)
        then = (
            "the sequence ends here, in the tree"
            if line["left_with"] is None
            else f"then {'the player' if line['by'] == 'player' else 'the opponent'} plays "
            + (f"{board_name(from_sgf(line['left_with']))} (ringed, {number_})" if line["left_with"] else "tenuki")
            + ", out of the tree"
        )
        tree = "; ".join(
            f"{board_name(from_sgf(m['move'])) if m['move'] else 'tenuki'} {percent(m['share'])}"
            for m in line["tree"][:3]
            if m["share"] is not None
        )
        facts = [
            f"{number(line['count'])} times as the {line['role']} player: won {number(line['wins'])}, "
            f"lost {number(line['losses'])}",
            escape(then),
        ]
        facts += [f"the tree's games: {escape(tree)}"] if tree else []
        cards.append(
            f'<div class="card {book.kind(node)}" data-node="{node}"><a href="{page_name(node)}">'
            f"{escape(sequence_name(book, node))}</a>{board}<div>{'<br>'.join(facts)}</div></div>"
        )
    body.append('<div class="cards">' + "".join(cards) + "</div>")
    return document(f"Repertoire of {name}", body)
