"""The duplicates of the ingest stage (joseki_miner.stages.ingest) under
the 16 maps (dedupe.symmetric): the same game recorded turned, mirrored or
with its colours swapped is one game, in both engines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import alternate, transform_record
from joseki_miner.stages.ingest import _fingerprint, read
from joseki_miner.stages.params import Reading
from joseki_miner.fast import kernel
from joseki_miner.method.points import NPOINTS, PASS, to_sgf
from joseki_miner.method.records import GameRecord

games = st.lists(st.integers(0, NPOINTS - 1), min_size=1, max_size=40, unique=True).map(alternate)
handicap = st.lists(st.integers(0, NPOINTS - 1), min_size=2, max_size=6, unique=True)
maps = st.tuples(st.integers(0, 7), st.booleans())


def fast_fingerprint(record: GameRecord) -> tuple[int, int]:
    """The fast engine's symmetric fingerprint of one game."""
    colours = np.array([m.colour for m in record.moves], np.int8)
    points = np.array([m.point for m in record.moves], np.int16)
    setup = [(-1, p) for p in record.setup_black] + [(1, p) for p in record.setup_white]
    h1, h2 = kernel.symmetric_fingerprints(
        colours,
        points,
        np.array([0, len(points)]),
        np.array([c for c, _ in setup], np.int8),
        np.array([p for _, p in setup], np.int16),
        np.array([0, len(setup)]),
        np.array([0]),
    )
    return int(h1[0]), int(h2[0])


@settings(max_examples=150, deadline=None)
@given(games, maps, st.booleans(), handicap)
def test_a_game_and_its_image_under_any_map_have_one_fingerprint(game, image, with_setup, stones):
    """Both engines' symmetric fingerprints are the same for a game and for
    it turned, mirrored, its colours swapped (setup stones too, in any
    order); the plain fingerprint tells them apart unless the map leaves the
    game as it was."""
    if with_setup:
        game = GameRecord(
            source="test",
            setup_black=tuple(s for s in stones if s not in {m.point for m in game.moves}),
            moves=game.moves,
        )
    other = transform_record(game, *image)
    other = GameRecord(
        source="test",
        setup_black=tuple(reversed(other.setup_black)),
        setup_white=tuple(reversed(other.setup_white)),
        moves=other.moves,
    )
    assert _fingerprint(game, True) == _fingerprint(other, True)
    assert fast_fingerprint(game) == fast_fingerprint(other)
    same = (
        game.moves == other.moves
        and sorted(game.setup_black) == sorted(other.setup_black)
        and sorted(game.setup_white) == sorted(other.setup_white)
    )
    assert (_fingerprint(game) == _fingerprint(other)) == (same and game.setup_black == other.setup_black)


@settings(max_examples=60, deadline=None)
@given(games, games)
def test_different_games_keep_apart(a, b):
    """Games that no map turns into each other keep their own fingerprints."""
    images = {tuple(transform_record(a, t, s).moves) for t in range(8) for s in (False, True)}
    if tuple(b.moves) not in images:
        assert _fingerprint(a, True) != _fingerprint(b, True)
        assert fast_fingerprint(a) != fast_fingerprint(b)


def sgf(record: GameRecord) -> str:
    moves = "".join(
        f";{'B' if m.colour < 0 else 'W'}[{'' if m.point == PASS else to_sgf(m.point)}]" for m in record.moves
    )
    return f"(;GM[1]FF[4]SZ[19]{moves})\n"


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_a_game_recorded_another_way_is_a_duplicate_naming_the_first(tmp_path, engine):
    game = alternate([72, 288, 300, 60, 42, 44, 62, 98, 100, 320])
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "a.sgf").write_text(sgf(game))
    (folder / "b.sgf").write_text(sgf(transform_record(game, 5, True)))  # mirrored, turned, colours swapped
    (folder / "c.sgf").write_text(sgf(alternate([72, 288, 300, 60, 42, 44, 62, 98, 100, 321])))  # another game
    for symmetric, accepted in ((False, 3), (True, 2)):
        out = tmp_path / f"{engine}-{symmetric}"
        out.mkdir()
        figures = read(
            [folder], out / "games.parquet", out / "rejects.parquet", Reading(engine=engine, symmetric=symmetric)
        )
        assert figures["games_accepted"] == accepted
        rejects = pq.read_table(out / "rejects.parquet").to_pylist()
        if symmetric:
            assert [(Path(r["source"]).name, r["reason"]) for r in rejects] == [("b.sgf", "duplicate")]
            assert "a.sgf" in rejects[0]["detail"]
        else:
            assert rejects == []
