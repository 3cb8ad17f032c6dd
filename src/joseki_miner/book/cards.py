"""A line's card, as the index and the groups' pages show it: its final
position small, its moves and figures, and the follow-ups played after
it; and the legend of the bands beside the cards' boards."""

from __future__ import annotations

from html import escape

from joseki_miner.book.html import board_of, page_name, sequence_name
from joseki_miner.book.words import Book, handicap_text, number, percent, verdicts, win_text, years_text


DOT = " \u00b7 "  # between the figures of a card
FOLLOW_UPS = 12  # follow-ups listed under a joseki's card (the rest are a click away, on its page)


def card(book: Book, node: int, kind: str, follow_ups: list[int] | None = None) -> str:
    """A small card of the index and the groups' pages: the node's final
    position, its moves and figures (where a joseki ends, how often players
    then tenuki), and the first ``FOLLOW_UPS`` of the follow-ups played
    after it."""
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
