"""The page of what changed, ``changed.html``: the moves played more,
then those played less, from the earlier era of the games to the later
(``compare``), the first of each as cards with both eras' figures, the
rest in a table."""

from __future__ import annotations

from html import escape

from joseki_miner.book.html import INDEX, board_of, document, page_name, sequence_name, table
from joseki_miner.book.words import Book, number, percent


SHOWN = 20  # the risers and the fallers on the page of what changed
ROWS = 2000  # the rest of them in its tables: the page stays below 2 MB at any tree size


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
                + table(
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
    return document("What changed", body)


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
