"""The book's index, ``index.html``: what the games were, the groups of
joseki by the corner's first move with the largest of each as cards, the
handicap joseki, the fuseki shapes and the moves that answer the whole
board; or, for the thesis' small book, every joseki on the one page."""

from __future__ import annotations

from html import escape

from joseki_miner.book.cards import bands_legend, card
from joseki_miner.book.groups import GROUPS, flat, group_page, grouped, largest_first
from joseki_miner.book.html import CHANGED, document, page_name, table
from joseki_miner.book.repertoire_page import repertoire_name
from joseki_miner.book.words import Book, headline, number


SHOWN_FIRST = 6  # cards of each group on the index


def index_page(book: Book, changed: dict | None = None, players: list[dict] | None = None) -> str:
    """The joseki by the corner's first move: a table of the groups, then
    each group's largest joseki as cards, each a link to its page, with a
    link to the group's pages of all its joseki (and their follow-ups);
    where the tree has kinds, the fuseki shapes follow in a section of
    their own.  The thesis' tree calls every leaf a joseki; where it has at
    most ``FLAT`` of them, one page lists them all (``flat_index_page``)."""
    if flat(book):
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
        + _elsewhere(changed, players)
        + "</p>",
        bands_legend(book),
    ]
    groups = grouped(book)
    present = [(g, title) for g, title, _ in GROUPS if groups[g]["joseki"] or groups[g]["follow-ups"]]
    body += _groups_table(book, groups, present)
    body += _group_sections(book, groups, present)
    body += _handicap_section(book)
    body += _fuseki_section(book, fuseki)
    body += _board_section(book)
    return document("Joseki", body)


def _elsewhere(changed: dict | None, players: list[dict] | None) -> str:
    """The links of the index's opening to the book's other pages: what
    changed between the eras, and the players' repertoires."""
    return (
        f' <a href="{CHANGED}">What changed</a> from {changed["before"]} to {changed["after"]}.' if changed else ""
    ) + (
        " Repertoires: "
        + ", ".join(f'<a href="{repertoire_name(r["player"])}">{escape(r["player"])}</a>' for r in players)
        + "."
        if players
        else ""
    )


def _groups_table(book: Book, groups: dict, present: list[tuple[str, str]]) -> list[str]:
    """The table of the groups: each one's joseki, the games of its first
    moves, and (with kinds) its follow-ups and fuseki shapes."""
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
    return [table(head, rows, set(range(1, len(head))))] if rows else []


def _group_sections(book: Book, groups: dict, present: list[tuple[str, str]]) -> list[str]:
    """Each group with joseki: its heading, a link to all of them, and
    its largest ``SHOWN_FIRST`` as cards."""
    body = []
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
        body += [card(book, n, "joseki") for n in mine["joseki"][:SHOWN_FIRST]]
        body.append("</div>")
    return body


def _fuseki_section(book: Book, fuseki: list[int]) -> list[str]:
    """The fuseki shapes, named apart from the joseki: the largest
    ``SHOWN_FIRST`` as cards, and a link to all of them."""
    if not fuseki:
        return []
    return [
        '<h2 id="fuseki">Fuseki shapes</h2><p class="lead">Lines the games played often '
        "that are not joseki: an <b>approach from the side</b> (answered on the side, for the whole "
        "board's opening), an <b>enclosure</b> (the corner's first player plays there again before "
        "the other answers) or an <b>extension</b> (a move on the side or on a central line, out of the "
        f'corner). The most played first; <a href="{group_page("fuseki")}">all {number(len(fuseki))} '
        'of them</a>.</p><div class="cards">',
        *(card(book, n, book.kind(n)) for n in largest_first(book, fuseki)[:SHOWN_FIRST]),
        "</div>",
    ]


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
        mine = [n for n in largest_first(book, moves) if book.kind(n) == kind]
        if mine:
            out.append(f'<h3 id="{kind}">{heading} ({number(len(mine))})</h3><div class="cards">')
            out += [card(book, n, kind) for n in mine[:SHOWN_FIRST]]
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
        + [card(book, n, "joseki") for n in largest_first(book, handicap)[:SHOWN_FIRST]]
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
        + _elsewhere(changed, players)
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
        body += [card(book, leaf, "joseki") for leaf in under.get(first, [])]
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
                body += [card(book, n, kind) for n in mine]
                body.append("</div>")
    return document("Joseki", body)


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
