"""The joseki book in HTML: static pages that open from disk, with no
server, no script and nothing from the network.

* ``index.html``: the joseki (where a joseki ends; in the thesis' tree, its
  leaves) grouped by the corner's first move (4-4, 3-4, 3-3, 4-5, 3-5 point,
  the rest), the largest of each group as cards with a small diagram of
  the final position, games, win rate and years, then the fuseki shapes
  named apart;
* ``joseki-GROUP.html`` (``-2``, ``-3``... past ``PER_PAGE`` cards): a
  group's joseki, the most played first, each with the follow-ups played
  after it (lines that went on after a tenuki); ``fuseki.html``, the fuseki
  shapes by kind;
* ``n<node>.html``: a page per node of the pruned tree: the board with the
  candidate next moves marked with their share (each a link to its page),
  the path back to the empty corner, the win rate with its interval, the
  popularity by year (a plot of the share of each year's games), the
  collections, the example games, the continuations, and the influence
  verdicts on the board's sides and in words;
* ``changed.html``: what changed from the earlier era of the games to the
  later (``compare``): the moves played more, then those played less,
  each with its board and both eras' figures;
* ``repertoire-NAME.html``: a player's repertoire (config ``report.players``):
  where their corner sequences leave the tree, with their results, and
  what the tree's games played there, each on a board;
* ``style.css``: shared by every page.

``pages`` returns every file as text; writing them is the caller's.  The
words are ``book``'s, as in the SGF; the diagrams ``diagram``'s; the plots
``plots``'.  Each page is its own module's (``node_page``, ``index_page``,
``groups``, ``changed_page``, ``repertoire_page``), made of the pieces
every page shares (``html``, ``cards``, ``style``); this one says which
files a part of the report writes.
"""

from __future__ import annotations

from collections.abc import Callable

from joseki_miner.book.changed_page import changed_page
from joseki_miner.book.groups import group_pages
from joseki_miner.book.html import CHANGED, INDEX, STYLE, page_name
from joseki_miner.book.index_page import index_page
from joseki_miner.book.node_page import PlotFn, node_page
from joseki_miner.book.repertoire_page import repertoire_name, repertoire_page
from joseki_miner.book.style import style_sheet
from joseki_miner.book.words import Book


def pages(
    book: Book,
    plot: PlotFn | None = None,
    part: tuple[int, int] = (0, 1),
    changed: dict | None = None,
    players: list[dict] | None = None,
) -> dict[str, str]:
    """Every file of the report: name -> text; or part ``part`` = (i, k) of
    them, so that k parts write the report between them: part 0 the pages
    of the whole book (the style, the index, the groups, the page of what
    changed, given ``changed``, and the repertoires), each other part
    every (k - 1)-th node's page from the (i - 1)-th.  One part writes
    every page."""
    return dict(iter_pages(book, plot, part, lambda: changed, lambda: players))


def part_nodes(nodes: list[int], part: tuple[int, int]) -> list[int]:
    """The nodes whose pages part ``part`` = (i, k) writes (``pages``)."""
    i, k = part
    return nodes if k == 1 else nodes[i - 1 :: k - 1] if i > 0 else []


def iter_pages(
    book: Book,
    plot: PlotFn | None = None,
    part: tuple[int, int] = (0, 1),
    changed: Callable[[], dict | None] = lambda: None,
    players: Callable[[], list[dict] | None] = lambda: None,
):
    """``pages`` one (name, text) at a time, as each is made: the part's
    nodes' pages first, then (part 0) the book's own, those that need what
    changed and the players' repertoires last, asked for only then (what
    changed may be counted meanwhile)."""
    i = part[0]
    for node in part_nodes(list(book.cols["node"]), part):
        yield page_name(node), node_page(book, node, plot)
    if i == 0:
        yield STYLE, style_sheet(book)
        yield from group_pages(book).items()
        what, who = changed(), players() or []
        yield INDEX, index_page(book, what, who)
        if what:
            yield CHANGED, changed_page(book, what)
        for found in who:
            yield repertoire_name(found["player"]), repertoire_page(book, found)


def example_games(book: Book, part: tuple[int, int] = (0, 1)) -> list[int]:
    """The example games whose records part ``part`` = (i, k) writes
    (``game_file``): every node's examples, each game once, in order of
    their numbers, shared among the parts as the node pages are."""
    return part_nodes(sorted({int(r["game"]) for rows in book.examples.values() for r in rows}), part)
