"""Board diagrams (joseki_miner.book.diagram): each stone drawn at its point, in
the orientation the coordinates on the board's edges show."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from joseki_miner.book.diagram import MIN_CROP, Mark, diagram, svg
from joseki_miner.book.lookup import board_name
from joseki_miner.method.points import SIZE, TENUKI, from_sgf, to_sgf

NS = "{http://www.w3.org/2000/svg}"


def drawn(text: str) -> tuple[dict, dict, dict]:
    """Stones (SGF point -> (colour, number, x, y)) and the coordinates'
    positions (column letter -> x, row number -> y) of a diagram."""
    root = ET.fromstring(text)
    stones = {}
    for g in root.iter(f"{NS}g"):
        if "stone" in g.get("class", "").split():
            circle, label = g.find(f"{NS}circle"), g.find(f"{NS}text")
            stones[g.get("data-point")] = (
                g.get("data-colour"),
                int(label.text),
                float(circle.get("cx")),
                float(circle.get("cy")),
            )
    columns = {t.get("data-col"): float(t.get("x")) for t in root.iter(f"{NS}text") if t.get("data-col")}
    rows = {t.get("data-row"): float(t.get("y")) for t in root.iter(f"{NS}text") if t.get("data-row")}
    return stones, columns, rows


def test_every_stone_is_drawn_where_its_coordinates_say():
    moves = [("B", from_sgf("dc")), ("W", from_sgf("fc")), ("B", from_sgf("cf")), ("W", from_sgf("db"))]
    text = svg(diagram(moves))
    stones, columns, rows = drawn(text)
    cell = float(ET.fromstring(text).get("data-cell"))
    assert list(stones) == ["dc", "fc", "cf", "db"]
    for number, (colour, point) in enumerate(moves, 1):
        name = board_name(point)  # D17: column D, row 17
        c, n, x, y = stones[to_sgf(point)]
        assert (c, n) == (colour, number)
        assert x == columns[name[0]]
        assert abs(y - rows[name[1:]]) < cell / 2  # the row's label sits on its line
    # the board's corner is the upper left: A at the left, 19 at the top
    assert min(columns, key=columns.get) == "A" and min(rows, key=rows.get) == "19"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, SIZE - 1), st.integers(0, SIZE - 1)), min_size=1, max_size=30, unique=True))
def test_any_sequence_is_drawn_at_its_points(points):
    moves = [("B" if i % 2 == 0 else "W", r * SIZE + c) for i, (r, c) in enumerate(points)]
    d = diagram(moves)
    stones, columns, rows = drawn(svg(d))
    assert d.size == min(SIZE, max(MIN_CROP, max(max(p) for p in points) + 3))
    assert len(stones) == len(points)
    for number, (colour, point) in enumerate(moves, 1):
        c, n, x, y = stones[to_sgf(point)]
        assert (c, n, x) == (colour, number, columns[board_name(point)[0]])


def test_a_tenuki_takes_its_number_and_is_noted_under_the_board():
    moves = [("B", from_sgf("dd")), ("W", from_sgf("fc")), ("B", TENUKI), ("W", from_sgf("cf"))]
    d = diagram(moves)
    assert d.notes == ["3: Black tenuki (plays elsewhere)"]
    assert [(s.colour, s.number) for s in d.stones] == [("B", 1), ("W", 2), ("W", 4)]


def test_a_stone_played_where_one_stood_is_noted_as_sgf2dg_does():
    moves = [("B", from_sgf("cc")), ("W", from_sgf("dc")), ("B", from_sgf("cd")), ("W", from_sgf("cc"))]
    d = diagram(moves)
    assert d.notes == ["4 at 1"]
    assert len(d.stones) == 3


def test_candidates_are_marked_linked_and_inside_the_crop():
    marks = [Mark(from_sgf("mc"), "64%", "n5.html", "W M17"), Mark(TENUKI, "25%", "n6.html")]
    d = diagram([("B", from_sgf("dd"))], marks)
    assert d.size == 15  # column m is the 13th: two lines to spare
    root = ET.fromstring(svg(d))
    links = [(a.get("href"), a.find(f"{NS}g").get("data-point")) for a in root.iter(f"{NS}a")]
    assert links == [("n5.html", "mc")]  # a tenuki is listed beside the board, not drawn


def test_influence_is_drawn_on_the_side_it_points_to():
    d = diagram([("B", from_sgf("dd"))], sides={"right": "white", "down": "black", "up": "none"})
    sides = {
        g.get("data-side"): g.get("class")
        for g in ET.fromstring(svg(d)).iter(f"{NS}g")
        if "influence" in g.get("class", "")
    }
    assert sides == {"right": "influence white", "down": "influence black"}


@pytest.mark.parametrize("cell", [14, 20, 28])
def test_the_coordinates_fit_the_board_at_any_cell(cell):
    """The row names ("19" the widest) and column names lie wholly inside
    the board's picture, on small boards too (the repertoire's cells of 14
    clipped "19" to "9")."""
    import re

    from joseki_miner.book.diagram import COORD_FONT

    picture = svg(diagram([("B", from_sgf("dd"))]), cell=cell)
    width = float(re.search(r'width="(\d+)"', picture).group(1))
    half = 0.6 * COORD_FONT  # half the width of two digits, centred
    for x in re.findall(r'<text class="coord" data-row="\d+" x="(-?[\d.]+)"', picture):
        assert half <= float(x) <= width - half
    for y in re.findall(r'<text class="coord" data-col="\w" x="[\d.]+" y="(-?[\d.]+)"', picture):
        assert float(y) >= COORD_FONT * 0.8
