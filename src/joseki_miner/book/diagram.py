"""Board diagrams of a joseki as SVG, drawn by hand: a board is a grid,
some circles and numbers, and needs no library.

A diagram shows the corner of a sequence as printed books and the thesis'
figures do: the board cropped to the upper left corner (the tree's
orientation: every joseki starts there) with the board's coordinates on
its edges, each stone numbered by its move in the sequence (a tenuki takes
its number and is noted under the board, as is a stone played where an
earlier one stood, "7 at 3", as sgf2dg writes it), and, on a node's page,
the candidate next moves marked with their share and linked to their pages,
and the influence verdicts drawn as bands on the sides they point to.

Every stone is a ``<g class="stone">`` with ``data-point`` (its SGF point)
and ``data-colour``, so what is drawn can be checked against the tree.

Knows points and SVG; nothing of files or of the statistics.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from joseki_miner.book.lookup import GTP_COLUMNS
from joseki_miner.method.points import SIZE, TENUKI, row_col, to_sgf

MIN_CROP = 9  # the least side of the corner shown (a joseki needs room around it)
HOSHI = {(3, 3), (3, 9), (3, 15), (9, 3), (9, 9), (9, 15), (15, 3), (15, 9), (15, 15)}
COLOURS = {"B": "Black", "W": "White"}


@dataclass(frozen=True)
class Stone:
    point: int
    colour: str  # "B" or "W"
    number: int  # its move in the sequence (1 = the first)


@dataclass(frozen=True)
class Mark:
    """A candidate next move: its point (TENUKI: listed, not drawn), label,
    link and tooltip; or (``colour`` "B" or "W") a move played there that
    the tree does not hold, drawn as a ringed stone."""

    point: int
    label: str
    href: str = ""
    title: str = ""
    colour: str = ""


@dataclass
class Diagram:
    stones: list[Stone] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # tenuki, stones played at an earlier one's point
    marks: list[Mark] = field(default_factory=list)
    sides: dict[str, str] = field(default_factory=dict)  # direction -> "black" / "white" / "any"
    size: int = MIN_CROP  # the side of the corner shown


def diagram(
    moves: list[tuple[str, int]], marks: list[Mark] = (), sides: dict[str, str] | None = None, least: int = MIN_CROP
) -> Diagram:
    """The diagram of a sequence (``moves``: (colour "B"/"W", trie key),
    TENUKI for a tenuki), with candidate ``marks`` and influence ``sides``.
    The crop is the smallest square from the upper left corner that holds
    every stone and mark with two lines to spare (at least ``least``)."""
    stones, notes, first_at = [], [], {}
    for number, (colour, key) in enumerate(moves, 1):
        if key == TENUKI:
            notes.append(f"{number}: {COLOURS[colour]} tenuki (plays elsewhere)")
        elif key in first_at:
            notes.append(f"{number} at {first_at[key]}")
        else:
            first_at[key] = number
            stones.append(Stone(key, colour, number))
    reach = [max(row_col(p)) for p in [s.point for s in stones] + [m.point for m in marks if m.point != TENUKI]]
    size = min(SIZE, max(least, max(reach, default=0) + 3))
    return Diagram(stones, notes, list(marks), dict(sides or {}), size)


def column_name(col: int) -> str:
    return GTP_COLUMNS[col]


def row_name(row: int) -> str:
    return str(SIZE - row)


COORD_FONT = 11  # pixels: the coordinates' size (the report's style sheet), whatever the cell


def svg(d: Diagram, cell: int = 28, coordinates: bool = True, label: str = "") -> str:
    """The diagram as an inline SVG element: ``cell`` pixels between lines;
    the board's coordinates on the top and left edges (the board's own
    edges: the corner is the upper left), with room for "19" on a small
    board too."""
    n = d.size
    edge = max(cell, 2 * COORD_FONT) if coordinates else cell // 2  # room for the coordinates, or the stones' half
    band = max(4, cell // 5)  # the influence bands outside the grid
    x0 = y0 = edge + band
    width = x0 + (n - 1) * cell + cell // 2 + 2 * band + 2
    out = [
        f'<svg class="board" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {width}" '
        f'width="{width}" height="{width}" role="img" aria-label="{escape(label or "board diagram")}" '
        f'data-cell="{cell}" data-x0="{x0}" data-y0="{y0}" data-size="{n}">',
        f'<rect class="wood" x="{x0 - cell // 2}" y="{y0 - cell // 2}" width="{n * cell}" height="{n * cell}"/>',
    ]
    far = x0 + (n - 1) * cell + (0 if n == SIZE else cell // 2)  # lines run on past the crop's open sides
    lines = [f"M{x0} {y0 + i * cell}H{far}M{x0 + i * cell} {y0}V{far}" for i in range(n)]
    out.append(f'<path class="grid" d="{"".join(lines)}"/>')
    edges = f"M{x0} {far}V{y0}H{far}" + (f"V{far}H{x0}" if n == SIZE else "")
    out.append(f'<path class="edge" d="{edges}"/>')
    for r, c in sorted(HOSHI):
        if r < n and c < n:
            out.append(f'<circle class="hoshi" cx="{x0 + c * cell}" cy="{y0 + r * cell}" r="{max(2, cell // 10)}"/>')
    if coordinates:
        for i in range(n):
            out.append(
                f'<text class="coord" data-col="{column_name(i)}" x="{x0 + i * cell}" '
                f'y="{y0 - cell // 2 - band - 2}">{column_name(i)}</text>'
            )
            out.append(
                f'<text class="coord" data-row="{row_name(i)}" x="{x0 - cell // 2 - band - 4}" '
                f'y="{y0 + i * cell + cell // 6}">{row_name(i)}</text>'
            )
    out += _sides(d, x0, y0, n, cell, band)
    radius = cell * 0.47
    font = cell * (0.5 if len(d.stones) < 10 else 0.42)
    for s in d.stones:
        r, c = row_col(s.point)
        x, y = x0 + c * cell, y0 + r * cell
        out.append(
            f'<g class="stone {s.colour.lower()}" data-point="{to_sgf(s.point)}" data-colour="{s.colour}" '
            f'data-move="{s.number}"><circle cx="{x}" cy="{y}" r="{radius:.1f}"/>'
            f'<text x="{x}" y="{y + font * 0.35:.1f}" font-size="{font:.1f}">{s.number}</text></g>'
        )
    for m in d.marks:
        if m.point == TENUKI:
            continue
        r, c = row_col(m.point)
        x, y = x0 + c * cell, y0 + r * cell
        size = cell * (0.36 if len(m.label) > 3 else 0.42)
        kind = f"played {m.colour.lower()}" if m.colour else "candidate"
        mark = (
            f'<g class="{kind}" data-point="{to_sgf(m.point)}"><title>{escape(m.title)}</title>'
            f'<circle cx="{x}" cy="{y}" r="{radius:.1f}"/>'
            f'<text x="{x}" y="{y + size * 0.35:.1f}" font-size="{size:.1f}">{escape(m.label)}</text></g>'
        )
        out.append(f'<a href="{escape(m.href)}">{mark}</a>' if m.href else mark)
    out.append("</svg>")
    return "".join(out)


def _sides(d: Diagram, x0: int, y0: int, n: int, cell: int, band: int) -> list[str]:
    """The influence verdicts as bands just outside the grid: black, white,
    or half and half for "any"."""
    lo, hi = x0 - cell // 2 - band, x0 + (n - 1) * cell + cell // 2
    span = hi - lo + band
    where = {
        "up": (lo, lo, span, band),
        "down": (lo, hi, span, band),
        "left": (lo, lo, band, span),
        "right": (hi, lo, band, span),
    }
    words = {"up": "above", "right": "to the right", "down": "below", "left": "to the left"}
    out = []
    for direction, verdict in d.sides.items():
        if verdict not in ("black", "white", "any"):
            continue
        x, y, w, h = where[direction]
        title = (
            f"both colours' influence {words[direction]}"
            if verdict == "any"
            else f"{verdict.capitalize()}'s influence {words[direction]}"
        )
        out.append(
            f'<g class="influence {verdict}" data-side="{direction}"><title>{title}</title>'
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}"/></g>'
        )
    return out
