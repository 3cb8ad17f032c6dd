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
``plots``'.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape

from joseki_miner import __version__
from joseki_miner.book.words import (
    YEAR_FLOOR,
    Book,
    handicap_text,
    headline,
    influence_words,
    kind_text,
    number,
    order_games,
    order_text,
    percent,
    player,
    record_name,
    start_text,
    verdicts,
    win_text,
    years_text,
)
from joseki_miner.book.diagram import Mark, diagram, svg
from joseki_miner.book.strata import HELD
from joseki_miner.book.lookup import board_name
from joseki_miner.method.points import TENUKI, from_sgf
from joseki_miner.method.gameinfo import date_text

CSS = """\
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;margin:0 auto;
max-width:1100px;padding:0 16px 40px;background:#fafafa}
a{color:#1f5f8f;text-decoration:none}a:hover{text-decoration:underline}
h1{font-size:1.5em;margin:.6em 0 .2em}h2{font-size:1.15em;margin:1.4em 0 .4em}
.lead{color:#555;margin:.2em 0 1em}.crumbs{margin:.8em 0;font-size:.95em}
.headline{font-size:1.05em;font-weight:600;margin:.4em 0}
.layout{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}.side{flex:1;min-width:320px}
table{border-collapse:collapse;font-size:.92em;margin:.3em 0}
td,th{padding:3px 10px 3px 0;text-align:left;vertical-align:top;border-bottom:1px solid #e4e4e4}
td.n,th.n{text-align:right}
.cards{display:flex;flex-wrap:wrap;gap:14px}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px;width:190px;font-size:.85em}
.card .board{display:block;margin:0 auto 4px;max-width:100%;height:auto}
.notes{font-size:.85em;color:#444;margin:.2em 0}.record{font-size:.85em;color:#555;overflow-wrap:anywhere}
a.sgf{font-size:.8em;font-weight:600;border:1px solid #1f5f8f;border-radius:3px;padding:0 3px;margin-right:2px}
.band{display:inline-block;width:18px;height:6px;vertical-align:middle;border:1px solid #222;margin:0 2px}
.band.black{background:#1b1b1b}.band.white{background:#fff}.band.any{background:#999;border-color:#999}
svg.board .wood{fill:#e3b768}svg.board .grid{stroke:#5a4220;stroke-width:1;fill:none}
svg.board .edge{stroke:#3a2a10;stroke-width:2;fill:none}svg.board .hoshi{fill:#3a2a10}
svg.board .coord{font-size:11px;fill:#555;text-anchor:middle}
svg.board .stone.b circle{fill:#1b1b1b}svg.board .stone.w circle{fill:#fdfdfd;stroke:#222;stroke-width:1}
svg.board text{text-anchor:middle;font-family:system-ui,sans-serif}
svg.board .stone.b text{fill:#fff}svg.board .stone.w text{fill:#111}
svg.board .candidate circle{fill:#2f7d5b;fill-opacity:.85}svg.board .candidate text{fill:#fff;font-weight:600}
svg.board .played circle{stroke:#c0392b;stroke-width:2.5}svg.board .played.b circle{fill:#1b1b1b}
svg.board .played.w circle{fill:#fdfdfd}svg.board .played.b text{fill:#fff}svg.board .played.w text{fill:#111}
svg.board a:hover .candidate circle{fill:#c0392b}
svg.board .influence.black rect{fill:#1b1b1b}svg.board .influence.white rect{fill:#fff;stroke:#222}
svg.board .influence.any rect{fill:#999}
.plot svg{max-width:100%;height:auto}
.warning{background:#fff6e5;border:1px solid #e0b060;border-radius:6px;padding:4px 12px;margin:.6em 0}
footer{margin-top:3em;color:#777;font-size:.85em}
@media (max-width:640px){.layout{display:block}.side{min-width:0}svg.board{max-width:100%;height:auto}
.cards{gap:10px}.card{width:calc(50% - 23px)}
table.games,table.games tbody,table.games tr,table.games td{display:block}table.games tr:first-child{display:none}
table.games tr{border-bottom:1px solid #e4e4e4;padding:4px 0}table.games td{border:0;padding:1px 0}
table.games td::before{content:attr(data-label) ": ";color:#777}}
"""
# what a tree with kinds adds: the fuseki section's headings and cards, each page's line saying what it is
KIND_CSS = """\
h3{font-size:1.02em;margin:1.1em 0 .4em}.kind{margin:.2em 0;font-weight:600}
.kind.enclosure,.kind.extension,.kind.approach{color:#8a4b08}
.card.enclosure,.card.extension,.card.approach{background:#fbf6ee}.kind.follow-up{color:#4b5f8a}
.later{margin-top:4px;font-size:.95em}.later ul{margin:2px 0 0;padding-left:16px}.pager{margin:.6em 0}
"""
INDEX, STYLE, CHANGED = "index.html", "style.css", "changed.html"
SHOWN = 20  # the risers and the fallers on the page of what changed
ROWS = 2000  # the rest of them in its tables: the page stays below 2 MB at any tree size
LINES = 40  # the lines of a player's repertoire on its page
DOT = " \u00b7 "  # between the figures of a card
PlotFn = Callable[..., str]  # (years, shares, peak=, thin=, held=): ``plots.year_shares``


def page_name(node: int) -> str:
    return f"n{node}.html"


def is_node_page(name: str) -> bool:
    """Whether a file of the report is a node's page."""
    return re.fullmatch(r"n\d+\.html", name) is not None


def _page(title: str, body: list[str]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{escape(title)}</title><link rel="stylesheet" href="{STYLE}"></head><body>\n'
        + "\n".join(body)
        + f"\n<footer>joseki-miner {__version__}: M. Helvensteijn's method, \"Applying data mining to the "
        'study of joseki" (2007).</footer>\n</body></html>\n'
    )


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


def _about(book: Book) -> str:
    a = book.about
    span = a.years()
    bits = [f"{number(a.games or book.games(book.root))} games"]
    if a.games_by_collection:
        names = a.collection_names()
        bits.append(", ".join(f"{escape(names[k])} ({number(v)})" for k, v in a.games_by_collection.items()))
    if span:
        bits.append(f"{span[0]}-{span[1]}")
    kept = (
        ""
        if not a.threshold
        else f"; lines played in at least {number(a.threshold)} games"
        if a.threshold_on == "games"
        else f"; moves played at least {number(a.threshold)} times"
    )
    return (
        f'<p class="lead">Mined from {"; ".join(bits)}{kept}. Every joseki is shown in the upper left '
        'corner with Black first, whatever corner and colour it was played in; "Black wins" is the share '
        "of its games with a winner won by that Black, with its 95% interval.</p>"
    )


def bands_legend(book: Book) -> str:
    """What the bands beside a board's sides say (the influence verdicts,
    thesis section 8), for the pages of cards; "" for a tree without the
    influence counters."""
    if not verdicts(book, book.root):
        return ""
    return (
        "<p class=\"notes legend\">The bands beside a board's sides are its influence (the thesis' section 8): "
        '<span class="band black"></span> black where Black\'s stones dominate that side in more than '
        f"{100 * book.about.share:g}% of the games that played the line, "
        '<span class="band white"></span> white where White\'s do, <span class="band any"></span> grey where '
        "both colours do; no band where neither does.</p>"
    )


NAME_PART = 48  # characters of a player's name a file name keeps (file systems take 255 bytes)


def repertoire_name(player: str) -> str:
    """The page of a player's repertoire: their name where it is ASCII
    letters and digits alone and short, else its plain part (at most
    NAME_PART characters) and a digest of it (names in any script, names
    that differ only in their other characters or past their first
    characters keep pages of their own; a file name of at most 80 bytes)."""
    import hashlib

    if re.fullmatch(r"[A-Za-z0-9]+", player) and len(player) <= NAME_PART:
        return f"repertoire-{player}.html"
    plain = re.sub(r"[^A-Za-z0-9]+", "-", player).strip("-")[:NAME_PART].strip("-")
    digest = hashlib.sha256(player.encode("utf-8")).hexdigest()[:12]
    return f"repertoire-{plain + '-' if plain else ''}{digest}.html"


# the index's groups: the corner's first move (in the tree's normal form), as a player names it
GROUPS = (
    ("4-4", "4-4 point (hoshi)", "dd"),
    ("3-4", "3-4 point (komoku)", "dc"),
    ("3-3", "3-3 point (san-san)", "cc"),
    ("4-5", "4-5 point (takamoku)", "ed"),
    ("3-5", "3-5 point (mokuhazushi)", "ec"),
    ("other", "Other first moves", None),
)
PER_PAGE = 100  # cards on a page of a group: with FOLLOW_UPS links each, a page stays far below 2 MB at any tree size
FOLLOW_UPS = 12  # follow-ups listed under a joseki's card (the rest are a click away, on its page)
SHOWN_FIRST = 6  # cards of each group on the index
FLAT = 400  # a tree without kinds of at most this many leaves has them all on the index, as the thesis' book had


def group_of_move(move: str) -> str:
    """The index's group of a line whose first move is ``move`` (SGF, in
    the tree's normal form)."""
    return next((g for g, _, point in GROUPS if point == move), "other")


def group_of(book: Book, node: int) -> str:
    """The index's group of a node: its line's first move."""
    path = book.path(node)
    return group_of_move(book.get(path[0], "move") if path else "")


def group_page(group: str, page: int = 1, what: str = "joseki") -> str:
    """The file of page ``page`` of a group's joseki (or, ``what``,
    "follow-ups"); ``fuseki`` for the fuseki shapes."""
    name = "fuseki" if group == "fuseki" else f"{what}-{group}"
    return f"{name}{'' if page == 1 else f'-{page}'}.html"


def _largest_first(book: Book, nodes: list[int]) -> list[int]:
    """Nodes by their games, the most first (walk order among equals)."""
    return sorted(nodes, key=lambda n: -book.games(n))


def grouped(book: Book) -> dict[str, dict[str, list[int]]]:
    """The tree's joseki, follow-ups and fuseki shapes by group, the largest
    lines first: group -> {"joseki": [...], "follow-ups": {joseki: [...]},
    "fuseki": [...]} (follow-ups by the joseki they follow)."""
    out = {g: {"joseki": [], "follow-ups": {}, "fuseki": []} for g, _, _ in GROUPS}
    for n in book.joseki():
        out[group_of(book, n)]["joseki"].append(n)
    for n in book.follow_ups():
        out[group_of(book, n)]["follow-ups"].setdefault(book.followed(n), []).append(n)
    for n in book.fuseki():
        out[group_of(book, n)]["fuseki"].append(n)
    for g in out.values():
        g["joseki"] = _largest_first(book, g["joseki"])
        g["fuseki"] = _largest_first(book, g["fuseki"])
        g["follow-ups"] = {j: _largest_first(book, f) for j, f in g["follow-ups"].items()}
    return out


def index_page(book: Book, changed: dict | None = None, players: list[dict] | None = None) -> str:
    """The joseki by the corner's first move: a table of the groups, then
    each group's largest joseki as cards, each a link to its page, with a
    link to the group's pages of all its joseki (and their follow-ups);
    where the tree has kinds, the fuseki shapes follow in a section of
    their own.  The thesis' tree calls every leaf a joseki; where it has at
    most ``FLAT`` of them, one page lists them all (``flat_index_page``)."""
    if not book.labelled and len(book.leaves()) <= FLAT:
        return flat_index_page(book, changed, players)
    joseki, fuseki, follow_ups = book.joseki(), book.fuseki(), book.follow_ups()
    counts = f"{len(joseki):,} joseki" + (
        f", {len(follow_ups):,} follow-ups and {len(fuseki):,} fuseki shapes" if book.labelled else ""
    )
    body = [
        f"<h1>Joseki of {number(book.about.games or book.games(book.root))} games</h1>",
        _about(book),
        f"<p>{counts}, {len(book.cols['node']) - 1:,} moves in the tree. Start from "
        f'<a href="{page_name(book.root)}">the empty corner</a>, or from a joseki below, grouped by the '
        "corner's first move, the most played first"
        + (', or see <a href="#fuseki">the fuseki shapes</a> named apart' if fuseki else "")
        + "."
        + (f' <a href="{CHANGED}">What changed</a> from {changed["before"]} to {changed["after"]}.' if changed else "")
        + (
            " Repertoires: "
            + ", ".join(f'<a href="{repertoire_name(r["player"])}">{escape(r["player"])}</a>' for r in players)
            + "."
            if players
            else ""
        )
        + "</p>",
        bands_legend(book),
    ]
    groups = grouped(book)
    present = [(g, title) for g, title, _ in GROUPS if groups[g]["joseki"] or groups[g]["follow-ups"]]
    head = ["First move", "Joseki", "Games"] + (["Follow-ups", "Fuseki shapes"] if book.labelled else [])
    rows = []
    for g, title in present:
        mine = groups[g]
        first = {book.path(n)[0] for n in mine["joseki"]}
        row = [
            f'<a href="{group_page(g)}">{escape(title)}</a>' if mine["joseki"] else escape(title),
            number(len(mine["joseki"])),
            number(sum(book.games(n) for n in first)),
        ]
        if book.labelled:
            later = sum(len(f) for f in mine["follow-ups"].values())
            row += [
                f'<a href="{group_page(g, 1, "follow-ups")}">{number(later)}</a>' if later else "0",
                number(len(mine["fuseki"])),
            ]
        rows.append(row)
    if rows:
        body.append(_table(head, rows, set(range(1, len(head)))))
    for g, title in present:
        mine = groups[g]
        if not mine["joseki"]:
            continue
        body.append(
            f'<h2 id="group-{g}"><a href="{group_page(g)}">{escape(title)}</a></h2>'
            f'<p class="lead">{number(len(mine["joseki"]))} joseki, the most played first. '
            f'<a href="{group_page(g)}">All of them</a>'
            + (", with the follow-ups of each" if mine["follow-ups"] else "")
            + '.</p><div class="cards">'
        )
        body += [_card(book, n, "joseki") for n in mine["joseki"][:SHOWN_FIRST]]
        body.append("</div>")
    body += _handicap_section(book)
    if fuseki:
        body.append(
            '<h2 id="fuseki">Fuseki shapes</h2><p class="lead">Lines the games played often '
            "that are not joseki: an <b>approach from the side</b> (answered on the side, for the whole "
            "board's opening), an <b>enclosure</b> (the corner's first player plays there again before "
            "the other answers) or an <b>extension</b> (a move on the side or on a central line, out of the "
            f'corner). The most played first; <a href="{group_page("fuseki")}">all {number(len(fuseki))} '
            'of them</a>.</p><div class="cards">'
        )
        body += [_card(book, n, book.kind(n)) for n in _largest_first(book, fuseki)[:SHOWN_FIRST]]
        body.append("</div>")
    body += _board_section(book)
    return _page("Joseki", body)


def _board_section(book: Book) -> list[str]:
    """The index's section of the lines that turned to the whole board
    (``Book.board_moves``): situational and doubtful moves, kept and named
    apart from the joseki, the most played first."""
    moves = book.board_moves()
    if not moves:
        return []
    out = [
        '<h2 id="board">Moves that answer the whole board</h2><p class="lead">Lines the games played often '
        "whose last moves are not a corner's joseki alone: a <b>situational</b> move (another corner's "
        "stones near it in most of its games, or played late in the game) or a <b>doubtful</b> one (its "
        "players win less often than with the most played move there, and strong programs seldom play it). "
        "Each page says why, with its figures. The most played first.</p>"
    ]
    for kind, heading in (("situational", "Situational"), ("doubtful", "Doubtful")):
        mine = [n for n in _largest_first(book, moves) if book.kind(n) == kind]
        if mine:
            out.append(f'<h3 id="{kind}">{heading} ({number(len(mine))})</h3><div class="cards">')
            out += [_card(book, n, kind) for n in mine[:SHOWN_FIRST]]
            out.append("</div>")
    return out


def _handicap_section(book: Book) -> list[str]:
    """The index's section of the handicap joseki (``Book.handicap_joseki``),
    the most played first; none where the tree has none."""
    handicap = book.handicap_joseki()
    if not handicap:
        return []
    return (
        [
            '<h2 id="handicap">Handicap joseki</h2><p class="lead">Joseki that a handicap stone opened in most '
            "of their games: White's approach to a handicap stone and what follows. They are in their groups above "
            'too. The most played first.</p><div class="cards">'
        ]
        + [_card(book, n, "joseki") for n in _largest_first(book, handicap)[:SHOWN_FIRST]]
        + ["</div>"]
    )


def flat_index_page(book: Book, changed: dict | None = None, players: list[dict] | None = None) -> str:
    """The thesis' book: every leaf by first move on one page, each with a
    small diagram of its final position, its games, win rate and years (a
    tree without kinds of at most ``FLAT`` leaves, as the book was before
    its index was grouped)."""
    joseki = book.joseki()
    fuseki = book.fuseki()
    counts = f"{len(joseki):,} joseki" + (f" and {len(fuseki):,} fuseki shapes" if book.labelled else "")
    body = [
        f"<h1>Joseki of {number(book.about.games or book.games(book.root))} games</h1>",
        _about(book),
        f"<p>{counts}, {len(book.cols['node']) - 1:,} moves in the tree. Start from "
        f'<a href="{page_name(book.root)}">the empty corner</a>, or from a joseki below'
        + (', or see <a href="#fuseki">the fuseki shapes</a> named apart' if fuseki else "")
        + "."
        + (f' <a href="{CHANGED}">What changed</a> from {changed["before"]} to {changed["after"]}.' if changed else "")
        + (
            " Repertoires: "
            + ", ".join(f'<a href="{repertoire_name(r["player"])}">{escape(r["player"])}</a>' for r in players)
            + "."
            if players
            else ""
        )
        + "</p>",
        bands_legend(book),
    ]
    under: dict[int, list[int]] = {}
    for leaf in joseki:
        under.setdefault(book.path(leaf)[0], []).append(leaf)
    for first in book.children(book.root):
        if book.labelled and first not in under:
            continue
        body.append(
            f'<h2 id="first-{first}"><a href="{page_name(first)}">{escape(book.move_name(first))}'
            f'</a></h2><p class="lead">{escape(headline(book, first))}</p><div class="cards">'
        )
        body += [_card(book, leaf, "joseki") for leaf in under.get(first, [])]
        body.append("</div>")
    body += _handicap_section(book)
    if fuseki:
        body.append(
            '<h2 id="fuseki">Fuseki shapes</h2><p class="lead">Lines the games played often '
            "that are not joseki: an <b>enclosure</b> (the corner's first player plays there again before "
            "the other answers) or an <b>extension</b> (a move on the side or on a central line, out of the "
            "corner). Each card shows its line to the end; its page says where it turned.</p>"
        )
        for kind, title in (("enclosure", "Enclosures"), ("extension", "Extensions")):
            mine = [n for n in fuseki if book.kind(n) == kind]
            if mine:
                body.append(f'<h3 id="{kind}s">{title}</h3><div class="cards">')
                body += [_card(book, n, kind) for n in mine]
                body.append("</div>")
    return _page("Joseki", body)


def _pager(group: str, page: int, pages: int, what: str = "joseki") -> str:
    if pages <= 1:
        return ""
    links = [
        f"<b>{i}</b>" if i == page else f'<a href="{group_page(group, i, what)}">{i}</a>' for i in range(1, pages + 1)
    ]
    return f'<p class="pager">Page {" ".join(links)}</p>'


def group_pages(book: Book) -> dict[str, str]:
    """Each group's joseki, the most played first, each card with the
    follow-ups played after it; and the fuseki shapes by kind.  At most
    ``PER_PAGE`` cards a page: a group of any size is pages of bounded size.
    None for the thesis' small book, whose index lists every joseki."""
    out: dict[str, str] = {}
    if not book.labelled and len(book.leaves()) <= FLAT:
        return out
    groups = grouped(book)
    for g, title, _ in GROUPS:
        mine = groups[g]
        out.update(_follow_up_pages(book, g, title, mine["follow-ups"], bool(mine["joseki"])))
        if not mine["joseki"]:
            continue
        pages = max(1, -(-len(mine["joseki"]) // PER_PAGE))
        for page in range(1, pages + 1):
            shown = mine["joseki"][(page - 1) * PER_PAGE : page * PER_PAGE]
            body = [
                f'<nav class="crumbs"><a href="{INDEX}">Index</a> › {escape(title)}</nav>',
                f"<h1>Joseki of the {escape(title)}</h1>",
                f'<p class="lead">{number(len(mine["joseki"]))} joseki, the most played first'
                + (f" ({(page - 1) * PER_PAGE + 1}-{(page - 1) * PER_PAGE + len(shown)} here)" if pages > 1 else "")
                + (
                    ". Under a joseki, the <b>follow-ups</b> played after it ended (lines that went on after a "
                    "tenuki, when a player came back to the corner later); "
                    f'<a href="{group_page(g, 1, "follow-ups")}">all the follow-ups</a>, by the line they follow'
                    if mine["follow-ups"]
                    else ""
                )
                + ".</p>",
                bands_legend(book),
                _pager(g, page, pages),
                '<div class="cards">',
            ]
            body += [_card(book, n, "joseki", mine["follow-ups"].get(n, [])) for n in shown]
            body += ["</div>", _pager(g, page, pages)]
            out[group_page(g, page)] = _page(f"Joseki of the {title}", body)
    fuseki = _largest_first(book, book.fuseki())
    if fuseki:
        pages = max(1, -(-len(fuseki) // PER_PAGE))
        for page in range(1, pages + 1):
            shown = fuseki[(page - 1) * PER_PAGE : page * PER_PAGE]
            body = [
                f'<nav class="crumbs"><a href="{INDEX}">Index</a> › Fuseki shapes</nav>',
                "<h1>Fuseki shapes</h1>",
                f'<p class="lead">{number(len(fuseki))} lines the games played '
                "often that are not joseki, the most played first. Each card shows its line to the end; its page "
                "says where it turned.</p>",
                bands_legend(book),
                _pager("fuseki", page, pages),
            ]
            for kind, heading in (
                ("approach", "Approaches from the side"),
                ("enclosure", "Enclosures"),
                ("extension", "Extensions"),
            ):
                cards = [n for n in shown if book.kind(n) == kind]
                if cards:
                    body.append(f'<h3 id="{kind}s">{heading}</h3><div class="cards">')
                    body += [_card(book, n, kind) for n in cards]
                    body.append("</div>")
            body.append(_pager("fuseki", page, pages))
            out[group_page("fuseki", page)] = _page("Fuseki shapes", body)
    return out


def _follow_up_pages(
    book: Book, group: str, title: str, follow_ups: dict[int, list[int]], joseki: bool = True
) -> dict[str, str]:
    """A group's follow-ups by the line they follow (a joseki's end, or a
    move within a joseki where a player left the corner), the most played
    line first, each follow-up a card; at most ``PER_PAGE`` cards a page
    (``joseki``: whether the group has pages of joseki to link back to)."""
    if not follow_ups:
        return {}
    entries = [(f, n) for f in sorted(follow_ups, key=lambda f: -book.games(f)) for n in follow_ups[f]]
    pages = max(1, -(-len(entries) // PER_PAGE))
    out = {}
    for page in range(1, pages + 1):
        shown = entries[(page - 1) * PER_PAGE : page * PER_PAGE]
        up = f'<a href="{group_page(group)}">{escape(title)}</a>' if joseki else escape(title)
        body = [
            f'<nav class="crumbs"><a href="{INDEX}">Index</a> › {up} › Follow-ups</nav>',
            f"<h1>Follow-ups of the {escape(title)}</h1>",
            f'<p class="lead">{number(len(entries))} lines played after a tenuki: a joseki had ended, or a '
            "player left the corner in the middle of one, and someone came back later. By the line they follow, "
            "the most played first.</p>",
            bands_legend(book),
            _pager(group, page, pages, "follow-ups"),
        ]
        last = None
        for followed, n in shown:
            if followed != last:
                if last is not None:
                    body.append("</div>")
                body.append(
                    f'<h3 class="followed" data-node="{followed}">After <a href="{page_name(followed)}">'
                    f"{escape(sequence_name(book, followed))}</a> ({number(book.games(followed))} games)</h3>"
                    '<div class="cards">'
                )
                last = followed
            body.append(_card(book, n, "follow-up"))
        body += ["</div>", _pager(group, page, pages, "follow-ups")]
        out[group_page(group, page, "follow-ups")] = _page(f"Follow-ups of the {title}", body)
    return out


def _card(book: Book, node: int, kind: str, follow_ups: list[int] | None = None) -> str:
    """A small card of the index: the node's final position, its moves
    and figures (where a joseki ends, how often players then tenuki), and
    the first ``FOLLOW_UPS`` of the follow-ups played after it."""
    board, notes = board_of(book, node, cell=14, candidates=False)
    note = f'<div class="notes">{escape("; ".join(notes))}</div>' if notes else ""
    facts = [f"{number(book.games(node))} games"] + [
        t for t in (win_text(book, node), years_text(book, node), handicap_text(book, node)) if t
    ]
    share = book.tenuki_share(node)
    if share and kind == "joseki":
        facts.append(f"then tenuki {percent(share)}")
    later = ""
    if follow_ups:
        start = len(book.path(node))
        items = [
            f'<li class="follow-up" data-node="{f}"><a href="{page_name(f)}">'
            f"{escape(' '.join(book.point_name(n) for n in book.path(f)[start:]))}</a> "
            f"{number(book.games(f))} games</li>"
            for f in follow_ups[:FOLLOW_UPS]
        ]
        more = len(follow_ups) - FOLLOW_UPS
        later = (
            '<div class="later">Follow-ups:<ul>'
            + "".join(items)
            + (f'<li>and {more:,} more, from <a href="{page_name(node)}">its page</a></li>' if more > 0 else "")
            + "</ul></div>"
        )
    return (
        f'<div class="card {kind}" data-node="{node}"><a href="{page_name(node)}">{board}'
        f"{escape(sequence_name(book, node))}</a>{note}<div>{escape(DOT.join(facts))}</div>{later}</div>"
    )


def changed_page(book: Book, changed: dict) -> str:
    """The moves played more, then less, in the later era of the games
    than in the earlier: every real change (``compare``), the largest at
    the most common positions first; the first ``SHOWN`` of each as cards
    (the line's final position, its share of the sequences at its position in
    both eras, the change with its 95% interval), the rest in a table."""
    before, after = changed["before"], changed["after"]
    body = [
        f"<h1>What changed: {escape(before)} and {escape(after)}</h1>",
        f'<p class="lead">Each move\'s share of the corner sequences that reach its position (as every page '
        f"shares it), in the "
        f"{number(changed['a']['games'])} games of {escape(before)} and the {number(changed['b']['games'])} "
        f"games of {escape(after)}. "
        + (
            "The change is tested within collections (Cochran-Mantel-Haenszel: each collection's change, "
            "weighed as Mantel and Haenszel weigh it; the interval Sato's), so that a change of the collections' "
            "mix is not read as a change of play; the shares shown are the raw ones. "
            if changed.get("within_collections")
            else "The change is the two shares' own. "
        )
        + "A move is shown when the 95% interval of the change leaves out zero: the largest changes at the most "
        f'common positions first. <a href="{INDEX}">Back to the joseki</a>.</p>',
    ]
    if changed.get("warnings"):
        body.append(
            '<div class="warning"><p><b>Mind the collections.</b></p><ul>'
            + "".join(f"<li>{escape(w[0].upper() + w[1:])}.</li>" for w in changed["warnings"])
            + "</ul></div>"
        )
    for key, title in (("risers", "Played more"), ("fallers", "Played less")):
        rows = changed[key][:SHOWN]
        body.append(f'<h2 id="{key}">{title} in {escape(after)}</h2>')
        if not rows:
            body.append("<p>None: no change is sure enough.</p>")
            continue
        body.append('<div class="cards">' + "".join(_change_card(book, c, before, after) for c in rows) + "</div>")
        rest = changed[key][SHOWN:]
        more = len(rest) - ROWS
        rest = rest[:ROWS]
        if rest:
            first = f" (the first {ROWS:,} here; <code>joseki compare</code> lists them all)" if more > 0 else ""
            body.append(
                f"<p>The other {len(rest) + max(0, more):,}, in the same order"
                + first
                + ":</p>"
                + _table(
                    ["line", escape(before), escape(after), "change (95%)"],
                    [
                        [
                            f'<a href="{page_name(c["node"])}" data-node="{c["node"]}">'
                            f"{escape(sequence_name(book, c['node']))}</a>",
                            f"{percent(c['a']['share'])} of {number(c['a']['of'])}",
                            f"{percent(c['b']['share'])} of {number(c['b']['of'])}",
                            f"{100 * c['difference']:+.1f} ({100 * c['low']:+.1f} to {100 * c['high']:+.1f})",
                        ]
                        for c in rest
                    ],
                    numeric={1, 2, 3},
                )
            )
    return _page("What changed", body)


def _change_card(book: Book, change: dict, before: str, after: str) -> str:
    node = change["node"]
    board, _ = board_of(book, node, cell=14, candidates=False)
    a, b = change["a"], change["b"]
    facts = [
        f"{escape(before)}: {percent(a['share'])} of {number(a['of'])} sequences",
        f"{escape(after)}: {percent(b['share'])} of {number(b['of'])}",
        f"{100 * change['difference']:+.1f} points (95%: {100 * change['low']:+.1f} to {100 * change['high']:+.1f})"
        + (" within collections" if change.get("informative", 1) > 1 else ""),
    ]
    return (
        f'<div class="card {book.kind(node)}" data-node="{node}"><a href="{page_name(node)}">'
        f"{board}{escape(sequence_name(book, node))}</a><div>{'<br>'.join(facts)}</div></div>"
    )


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
    return _page(f"Repertoire of {name}", body)


def _table(head: list[str] | None, rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    """An HTML table (``head``: its column names, or None); cells are HTML
    already."""
    th = "".join(f"<th{' class=n' if i in numeric else ''}>{h}</th>" for i, h in enumerate(head or []))
    trs = "".join(
        "<tr>" + "".join(f"<td{' class=n' if i in numeric else ''}>{c}</td>" for i, c in enumerate(r)) + "</tr>"
        for r in rows
    )
    return f"<table>{f'<tr>{th}</tr>' if head else ''}{trs}</table>"


def _held_text(held: dict[int, str], years: list[int]) -> str:
    """The years mostly one collection's, in runs: "2000-2003 kgs-6d, 2018-2019 ai"."""
    runs: list[list] = []
    for y in years:
        if y in held and runs and runs[-1][2] == held[y] and runs[-1][1] == y - 1:
            runs[-1][1] = y
        elif y in held:
            runs.append([y, y, held[y]])
    return ", ".join(f"{a}{f'-{b}' if b > a else ''} {name}" for a, b, name in runs)


def node_page(book: Book, node: int, plot: PlotFn | None = None) -> str:
    """A node's page (module docstring)."""
    crumbs = [f'<a href="{INDEX}">Index</a>', f'<a href="{page_name(book.root)}">Empty corner</a>']
    crumbs += [f'<a href="{page_name(n)}">{escape(book.move_name(n))}</a>' for n in book.path(node)]
    title = sequence_name(book, node)
    board, notes = board_of(book, node)
    body = [f'<nav class="crumbs">{" › ".join(crumbs)}</nav>', f"<h1>{escape(title)}</h1>"]
    kind = kind_text(book, node)
    if kind:
        body.append(f'<p class="kind {book.kind(node)}">{escape(kind)}.</p>')
    body.append(f'<p class="headline">{escape(headline(book, node))}</p>')
    others = book.transpositions.get(node, [])
    if others:
        body.append(
            '<p class="orders">Also reached by '
            + "; ".join(
                (
                    f'<a href="{page_name(o["at"])}">{escape(order_text(o["moves"]))}</a>'
                    if o["at"] >= 0
                    else escape(order_text(o["moves"]))
                )
                + f" ({escape(order_games(o))})"
                for o in others
            )
            + ": the same stones, another order of moves.</p>"
        )
    left = [f'<div class="diagram">{board}</div>']
    if notes:
        left.append(f'<p class="notes">{escape("; ".join(notes))}</p>')
    tenuki = [c for c in book.children(node) if not book.get(c, "move")]
    if tenuki:
        left.append(
            '<p class="notes">'
            + "; ".join(
                f'<a href="{page_name(c)}">{escape(book.move_name(c))}</a> {percent(book.share(c) or 0)}'
                for c in tenuki
            )
            + "</p>"
        )
    side = []
    facts = [("Games", number(book.games(node))), ("Times played", number(book.get(node, "count")))]
    if book.share(node) is not None:
        facts.append(("Share of the moves here", percent(book.share(node))))
    rate = book.win_rate(node)
    if rate:
        facts.append(
            (
                "Black wins",
                f"{100 * rate[0]:.1f}% (95%: {100 * rate[1]:.1f}-{100 * rate[2]:.1f}%) "
                f"of {number(rate[3])} games with a winner",
            )
        )
    if years_text(book, node):
        facts.append(("Years", years_text(book, node)))
    influence = influence_words(book, node)
    if influence:
        facts.append(("Influence", influence))
    side.append(_table(None, [[f"<b>{escape(k)}</b>", escape(v)] for k, v in facts]))
    kids = book.children(node)
    if kids:
        rows = [
            [
                f'<a href="{page_name(c)}">{escape(book.move_name(c))}</a>',
                number(book.games(c)),
                percent(book.share(c) or 0),
                escape(win_text(book, c).replace("Black wins ", "")),
                str(book.get(c, "last_year") or ""),
            ]
            for c in kids
        ]
        side.append("<h2>Next moves</h2>" + _table(["Move", "Games", "Share", "Black wins", "Last year"], rows, {1, 2}))
    body.append(f'<div class="layout"><div>{"".join(left)}</div><div class="side">{"".join(side)}</div></div>')
    shares = book.year_shares(node)
    all_years = sorted(y for y in book.about.games_by_year if y > 0)
    if plot and shares and all_years:
        games = book.years.get(node, {})
        totals = book.about.games_by_year
        held = book.held_years()
        rows = [
            [
                str(y),
                number(games.get(y, 0)),
                number(totals[y]),
                f"{100 * shares.get(y, 0.0):.1f}%",
                escape(held.get(y, "")),
            ]
            for y in all_years
        ]
        thin = book.thin_years()
        marked = (
            f" Outlined bars: years whose games are {HELD:.0%} or more one collection's "
            f"({escape(_held_text(held, all_years))}): their share is that collection's more than the year's."
            if held.keys() & set(all_years)
            else ""
        )
        peak = (
            " The year labelled is the most popular within collections (each collection's share that year, "
            "weighed by its share of all the games)."
            if book.within() and book.peak_year(node)
            else ""
        )
        pale = (
            (
                f" Pale bars: years with under {YEAR_FLOOR:.0%} of all the games, whose share says little; the "
                "most popular year is among the others."
            )
            if thin.intersection(all_years)
            else ""
        )
        body.append(
            '<h2>Popularity by year</h2><p class="notes">Its games\' share of all games of each year '
            f'(raw counts mislead where a collection is uneven across years).{pale}{marked}{peak}</p><div class="plot">'
            + plot(all_years, [shares.get(y, 0.0) for y in all_years], peak=book.peak_year(node), thin=thin, held=held)
            + "</div><details><summary>"
            "The numbers</summary>" + _table(["Year", "Games", "Of", "Share", "Mostly"], rows, {1, 2, 3}) + "</details>"
        )
    sources = book.sources.get(node, {})
    if sources:
        totals, names = book.about.games_by_collection, book.about.collection_names()
        rows = [
            [escape(names.get(k, k)), number(v), percent(v / totals[k]) if totals.get(k) else ""]
            for k, v in sorted(sources.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
        body.append("<h2>Collections</h2>" + _table(["Collection", "Games", "Of its games"], rows, {1, 2}))
    body += _examples(book, node)
    return _page(f"{title} - joseki", body)


GAMES = "games"  # the folder beside the pages of the example games' records, a file a game


def game_file(game: int) -> str:
    """The record of example game ``game`` (its number in games.parquet),
    beside the pages: one file a game, whichever nodes show it."""
    return f"{GAMES}/{game}.sgf"


def example_games(book: Book, part: tuple[int, int] = (0, 1)) -> list[int]:
    """The example games whose records part ``part`` = (i, k) writes
    (``game_file``): every node's examples, each game once, in order of
    their numbers, shared among the parts as the node pages are."""
    return part_nodes(sorted({int(r["game"]) for rows in book.examples.values() for r in rows}), part)


GAME_HEAD = ("Black", "White", "Date", "Result", "Starts at", "Record")


def _examples(book: Book, node: int) -> list[str]:
    """A node's example games: the players, date, result, where the
    sequence starts in the game, and the record (named by its collection
    and its place there, ``record_name``), which opens as SGF.  On a narrow
    screen each game's cells stack, each with its heading."""
    shown = book.examples.get(node, [])
    if not shown:
        return []
    names = book.about.collection_names()
    rows = []
    for r in shown:
        starts = ", ".join(t for t in (start_text(r.get("move")), r.get("corner") or "") if t)
        record = (
            f'<a class="sgf" href="{game_file(int(r["game"]))}">SGF</a> '
            f'<span class="record">{escape(record_name(r, names))}</span>'
        )
        cells = [
            escape(player(r, "black")),
            escape(player(r, "white")),
            escape(date_text(r.get("date") or "")),
            escape(r.get("result") or ""),
            escape(starts),
            record,
        ]
        rows.append("<tr>" + "".join(f'<td data-label="{h}">{c}</td>' for h, c in zip(GAME_HEAD, cells)) + "</tr>")
    head = "<tr>" + "".join(f"<th>{h}</th>" for h in GAME_HEAD) + "</tr>"
    return [
        '<h2>Example games</h2><p class="notes">The most recent first; the move where the sequence starts, and '
        "its corner, in the game; the record as its collection holds it (SGF: the game to replay).</p>"
        f'<table class="games">{head}{"".join(rows)}</table>'
    ]


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
        yield STYLE, CSS + (KIND_CSS if book.labelled else "")
        yield from group_pages(book).items()
        what, who = changed(), players() or []
        yield INDEX, index_page(book, what, who)
        if what:
            yield CHANGED, changed_page(book, what)
        for found in who:
            yield repertoire_name(found["player"]), repertoire_page(book, found)
