"""A node's page, ``n<node>.html``: its board with the candidate next
moves, the path back to the empty corner, its figures, the next moves, the
popularity by year, the collections, and the example games (their records
beside the pages, ``game_file``)."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from joseki_miner.book.html import INDEX, board_of, document, page_name, sequence_name, table
from joseki_miner.book.strata import HELD
from joseki_miner.book.words import (
    YEAR_FLOOR,
    Book,
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
    win_text,
    years_text,
)
from joseki_miner.method.gameinfo import date_text


PlotFn = Callable[..., str]  # (years, shares, peak=, thin=, held=): ``plots.year_shares``


GAMES = "games"  # the folder beside the pages of the example games' records, a file a game


def game_file(game: int) -> str:
    """The record of example game ``game`` (its number in games.parquet),
    beside the pages: one file a game, whichever nodes show it."""
    return f"{GAMES}/{game}.sgf"


def node_page(book: Book, node: int, plot: PlotFn | None = None) -> str:
    """A node's page (module docstring)."""
    title = sequence_name(book, node)
    body = [_crumbs(book, node), f"<h1>{escape(title)}</h1>"]
    kind = kind_text(book, node)
    if kind:
        body.append(f'<p class="kind {book.kind(node)}">{escape(kind)}.</p>')
    body.append(f'<p class="headline">{escape(headline(book, node))}</p>')
    body += _other_orders(book, node)
    body.append(
        f'<div class="layout"><div>{"".join(_board_column(book, node))}</div>'
        f'<div class="side">{"".join([_figures(book, node), *_next_moves(book, node)])}</div></div>'
    )
    body += _popularity(book, node, plot) if plot else []
    body += _collections(book, node)
    body += _examples(book, node)
    return document(f"{title} - joseki", body)


def _crumbs(book: Book, node: int) -> str:
    """The way back: the index, the empty corner, then each move of the line."""
    crumbs = [f'<a href="{INDEX}">Index</a>', f'<a href="{page_name(book.root)}">Empty corner</a>']
    crumbs += [f'<a href="{page_name(n)}">{escape(book.move_name(n))}</a>' for n in book.path(node)]
    return f'<nav class="crumbs">{" › ".join(crumbs)}</nav>'


def _other_orders(book: Book, node: int) -> list[str]:
    """The other orders of moves that reach the same stones
    (``kinds.transpositions``), each a link where the tree holds it."""
    others = book.transpositions.get(node, [])
    if not others:
        return []
    return [
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
    ]


def _board_column(book: Book, node: int) -> list[str]:
    """The board with its next moves marked, its notes, and the tenuki
    among the next moves (which a board cannot mark)."""
    board, notes = board_of(book, node)
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
    return left


def _figures(book: Book, node: int) -> str:
    """The node's figures as a table: games, times played, its share of
    the moves there, Black's win rate, the years and the influence."""
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
    return table(None, [[f"<b>{escape(k)}</b>", escape(v)] for k, v in facts])


def _next_moves(book: Book, node: int) -> list[str]:
    """The next moves' table: each a link, its games, share, Black's wins
    and the last year it was played."""
    kids = book.children(node)
    if not kids:
        return []
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
    return ["<h2>Next moves</h2>" + table(["Move", "Games", "Share", "Black wins", "Last year"], rows, {1, 2})]


def _popularity(book: Book, node: int, plot: PlotFn) -> list[str]:
    """The popularity by year: ``plot`` of the share of each year's games
    that played the line, what its bars say, and the numbers under it."""
    shares = book.year_shares(node)
    all_years = sorted(y for y in book.about.games_by_year if y > 0)
    if not (shares and all_years):
        return []
    held, thin = book.held_years(), book.thin_years()
    return [
        '<h2>Popularity by year</h2><p class="notes">Its games\' share of all games of each year '
        "(raw counts mislead where a collection is uneven across years)."
        f'{_bars_text(book, node, all_years, held, thin)}</p><div class="plot">'
        + plot(all_years, [shares.get(y, 0.0) for y in all_years], peak=book.peak_year(node), thin=thin, held=held)
        + "</div><details><summary>"
        "The numbers</summary>" + _year_table(book, node, all_years, shares, held) + "</details>"
    ]


def _bars_text(book: Book, node: int, all_years: list[int], held: dict[int, str], thin: set[int]) -> str:
    """What the plot's bars say beyond the shares: the pale (thin) years,
    the outlined years mostly one collection's, the year labelled."""
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
    return f"{pale}{marked}{peak}"


def _year_table(book: Book, node: int, all_years: list[int], shares: dict[int, float], held: dict[int, str]) -> str:
    """The plot's numbers: each year's games of the line, all its games,
    the share and the collection that holds most of them."""
    games, totals = book.years.get(node, {}), book.about.games_by_year
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
    return table(["Year", "Games", "Of", "Share", "Mostly"], rows, {1, 2, 3})


def _collections(book: Book, node: int) -> list[str]:
    """The node's games by collection, and each one's share of its collection's games."""
    sources = book.sources.get(node, {})
    if not sources:
        return []
    totals, names = book.about.games_by_collection, book.about.collection_names()
    rows = [
        [escape(names.get(k, k)), number(v), percent(v / totals[k]) if totals.get(k) else ""]
        for k, v in sorted(sources.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return ["<h2>Collections</h2>" + table(["Collection", "Games", "Of its games"], rows, {1, 2})]


def _held_text(held: dict[int, str], years: list[int]) -> str:
    """The years mostly one collection's, in runs: "2000-2003 kgs-6d, 2018-2019 ai"."""
    runs: list[list] = []
    for y in years:
        if y in held and runs and runs[-1][2] == held[y] and runs[-1][1] == y - 1:
            runs[-1][1] = y
        elif y in held:
            runs.append([y, y, held[y]])
    return ", ".join(f"{a}{f'-{b}' if b > a else ''} {name}" for a, b, name in runs)


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
