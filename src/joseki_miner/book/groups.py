"""The joseki by the corner's first move (4-4, 3-4, 3-3, 4-5, 3-5 point,
the rest): which group a line is in, and each group's pages of cards (its
joseki, the most played first, each with its follow-ups; its follow-ups by
the line they follow), and the fuseki shapes' pages by kind.  At most
``PER_PAGE`` cards a page, so that a page stays small at any tree size."""

from __future__ import annotations

from html import escape

from joseki_miner.book.cards import bands_legend, card
from joseki_miner.book.html import INDEX, document, page_name, sequence_name
from joseki_miner.book.words import Book, number


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
FLAT = 400  # a tree without kinds of at most this many leaves has them all on the index, as the thesis' book had


def flat(book: Book) -> bool:
    """Whether the book is the thesis' small one: a tree without kinds of at
    most ``FLAT`` leaves, its every joseki on the index (no groups' pages)."""
    return not book.labelled and len(book.leaves()) <= FLAT


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


def largest_first(book: Book, nodes: list[int]) -> list[int]:
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
        g["joseki"] = largest_first(book, g["joseki"])
        g["fuseki"] = largest_first(book, g["fuseki"])
        g["follow-ups"] = {j: largest_first(book, f) for j, f in g["follow-ups"].items()}
    return out


def pager(group: str, page: int, pages: int, what: str = "joseki") -> str:
    """The links to a group's ``pages`` pages ("" for one page)."""
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
    if flat(book):
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
                pager(g, page, pages),
                '<div class="cards">',
            ]
            body += [card(book, n, "joseki", mine["follow-ups"].get(n, [])) for n in shown]
            body += ["</div>", pager(g, page, pages)]
            out[group_page(g, page)] = document(f"Joseki of the {title}", body)
    fuseki = largest_first(book, book.fuseki())
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
                pager("fuseki", page, pages),
            ]
            for kind, heading in (
                ("approach", "Approaches from the side"),
                ("enclosure", "Enclosures"),
                ("extension", "Extensions"),
            ):
                cards = [n for n in shown if book.kind(n) == kind]
                if cards:
                    body.append(f'<h3 id="{kind}s">{heading}</h3><div class="cards">')
                    body += [card(book, n, kind) for n in cards]
                    body.append("</div>")
            body.append(pager("fuseki", page, pages))
            out[group_page("fuseki", page)] = document("Fuseki shapes", body)
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
            pager(group, page, pages, "follow-ups"),
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
            body.append(card(book, n, "follow-up"))
        body += ["</div>", pager(group, page, pages, "follow-ups")]
        out[group_page(group, page, "follow-ups")] = document(f"Follow-ups of the {title}", body)
    return out
