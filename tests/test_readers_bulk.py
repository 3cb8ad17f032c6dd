"""The bulk reader (compiled scanners, batches of arrays) reads the same games
as the Python readers: same order, locations, metadata, setup stones, moves
and reader rejects, on hand-made edge cases and on fuzzed files."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from helpers import make_tar
from hypothesis import given, settings
from hypothesis import strategies as st
from test_readers_fuzz import FUZZ, FUZZ_EXAMPLES, cases, time_limit
from test_readers_sgf import FIXTURES, _ff4_ex, sgf_collections

from joseki_miner.stages.ingest import META
from joseki_miner.readers import read_paths
from joseki_miner.readers.bulk import UNITS_A_SCAN, read_batches
from joseki_miner.method.records import GameRecord


def kept(meta: dict) -> dict:
    """The metadata games.parquet keeps (the bulk reader decodes no more)."""
    return {k: v for k, v in meta.items() if k in META}


def python_view(paths, **limits) -> list[tuple]:
    out = []
    for item in read_paths(paths, **limits):
        if isinstance(item, GameRecord):
            out.append(
                (
                    item.source,
                    item.location,
                    "game",
                    item.size,
                    item.handicap,
                    kept(item.meta),
                    sorted(item.setup_black),
                    sorted(item.setup_white),
                    item.setup_events,
                    [(m.colour, m.point) for m in item.moves],
                )
            )
        else:
            out.append((item.source, item.location, "reject", item.reason, item.detail))
    return out


def bulk_view(paths, **limits) -> list[tuple]:
    out = []
    for b in read_batches(paths, games=7, **limits):  # small batches: gathering must not matter
        mo, so = b.move_offsets, b.setup_offsets
        for k in range(len(b)):
            if b.reject[k] is not None:
                out.append((b.source[k], b.location[k], "reject", *b.reject[k]))
                continue
            sc, sp = b.setup_colours[so[k] : so[k + 1]], b.setup_points[so[k] : so[k + 1]]
            out.append(
                (
                    b.source[k],
                    b.location[k],
                    "game",
                    b.size[k],
                    b.handicap[k],
                    b.info_of(k),
                    sorted(int(p) for p in sp[sc < 0]),
                    sorted(int(p) for p in sp[sc > 0]),
                    b.events[k],
                    list(zip(b.colours[mo[k] : mo[k + 1]].tolist(), b.points[mo[k] : mo[k + 1]].tolist())),
                )
            )
    return out


ROOTS = [
    "GM[1]FF[4]SZ[19]PB[Lee Sedol]PW[Gu Li]BR[9p]WR[9p]DT[2014-01-26]EV[Mlily]RE[B+R]KM[7.5]",
    "GM[1]PB[a \\] b]PW[c\\\\d]",  # escapes
    "GM[1]EV[two\nlines]PB[\ttab]PW[soft\\\nbreak]",  # line breaks and tabs
    "GM[1]PB[first][second]PB[again]",  # first value of the first occurrence
    "GM[1]PB[  ]PW[ padded ]RE[]",  # blank values are missing
    "GM[2]PB[chess]",  # not Go
    "GM[ 1 ]SZ[ 19 ]HA[ 0 ]",
    "SZ[19x19]",
    "SZ[19:19]",
    "HA[two]",
    "SZ[]",
    "HA[3]AB[dd][pd][dp]",
    "AB[dd][dd][pp]AW[qq]",
    "AB[dd]",
    "PB[李昌镐]PW[曺薰鉉]CA[UTF-8]",
    "PlayerBlack[long name]",
    "KM[6.5]C[a comment PB[not this]]PB[this]",
]


@pytest.mark.parametrize("root", ROOTS)
def test_root_properties_read_as_the_python_reader_does(root, tmp_path):
    (tmp_path / "g.sgf").write_text(f"(;{root};B[pd];W[dp];B[pp];W[dd])\n", encoding="utf-8")
    assert bulk_view([tmp_path]) == python_view([tmp_path])


def test_collections_archives_and_loose_files_in_order(tmp_path):
    """Units gathered for one scan, across files and archive members, with
    a unit the Python reader must take (variations) in the middle."""
    games = [f"(;GM[1]PB[p{i}];B[{'abcdefghijklmnopqrs'[i % 19]}d];W[dp])" for i in range(3 * UNITS_A_SCAN + 5)]
    members = {f"m/{i:05d}.sgf": g.encode() for i, g in enumerate(games)}
    members["m/00100.sgf"] = b"(;GM[1]PB[var];B[pd](;W[dp])(;W[dd]))"
    members["m/00101.sgf"] = games[0].encode() + b"\n" + games[1].encode()  # a collection
    members["m/00102.sgf"] = b"junk before (;GM[1];B[pd])"
    (tmp_path / "a.tar.gz").write_bytes(make_tar(members, "w:gz"))
    (tmp_path / "b.sgf").write_text(games[5])
    (tmp_path / "c.sgf").write_text("(;GM[1];B[zz])")
    view = bulk_view([tmp_path])
    assert view == python_view([tmp_path])
    assert len(view) == len(members) + 1 + 2


@settings(FUZZ, max_examples=max(10, FUZZ_EXAMPLES // 4))
@given(files=st.lists(cases(), min_size=1, max_size=4))
def test_fuzz_bulk_reader_equals_python_readers(files):
    with tempfile.TemporaryDirectory() as tmp, time_limit(60):
        for i, (name, data) in enumerate(files):
            (Path(tmp) / f"{i:02d}_{name}").write_bytes(data)
        assert bulk_view([tmp]) == python_view([tmp])


def test_no_games_no_batches(tmp_path):
    (tmp_path / "readme.txt").write_text("nothing here")
    assert bulk_view([tmp_path]) == python_view([tmp_path]) == []
    assert np.all([len(b) == 0 for b in read_batches([tmp_path])])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from([-1, 1]), st.integers(-1, 400)), max_size=6), max_size=6))
def test_setup_stones_of_a_run_are_each_games_sorted_and_deduplicated(games):
    """All games' setup stones at once: per game its black stones then its
    white ones, each sorted without repeats, as a record holds them."""
    from joseki_miner.readers.bulk import _setup_stones

    offsets = np.r_[0, np.cumsum([len(g) for g in games])].astype(np.int64)
    colours = np.array([c for g in games for c, _ in g], dtype=np.int8)
    points = np.array([p for g in games for _, p in g], dtype=np.int16)
    got_colours, got_points, black, white = _setup_stones(colours, points, offsets)
    want = []
    for g in games:
        want += [(-1, p) for p in sorted({p for c, p in g if c < 0})] + [
            (1, p) for p in sorted({p for c, p in g if c > 0})
        ]
    assert list(zip(got_colours.tolist(), got_points.tolist())) == want
    assert black.tolist() == [len({p for c, p in g if c < 0}) for g in games]
    assert white.tolist() == [len({p for c, p in g if c > 0}) for g in games]


def test_a_large_unit_is_cut_into_batches_of_about_the_batch_size(tmp_path):
    """A kifu month is one unit of thousands of games: it is cut into parts
    of about ``games`` (so the kernel's threads start on the first part and
    have little left when reading ends), holding the same games in order."""
    lines = "".join(f"{i}\t;B[pd];W[dp];B[p{chr(97 + i % 19)}]\n" for i in range(100))
    (tmp_path / "month").write_text(lines)
    sizes = [len(b) for b in read_batches([tmp_path], games=30)]
    assert sizes == [33, 33, 34]
    whole = [b for b in read_batches([tmp_path], games=1000)]
    assert len(whole) == 1 and len(whole[0]) == 100
    assert bulk_view([tmp_path]) == python_view([tmp_path])  # bulk_view cuts it into parts of 7


def test_parts_of_a_batch_join_back_into_it(tmp_path):
    """``GameBatch.part``: moves, setup stones, rejects and game information
    of games lo..hi-1, offsets from 0; the parts concatenated are the batch."""
    from joseki_miner.readers.bulk import concat

    games = [
        "(;GM[1]SZ[19]PB[a]AB[dd][pp]AW[dp];B[qd];W[cc])",
        "(;GM[1]SZ[9];B[ee])",
        "(;GM[1]SZ[19]PW[b];B[pd])",
        "(;GM[1]SZ[19]AB[aa];W[bb];B[cc];W[dd])",
        "(;GM[1]SZ[19]PB[c]PW[d];B[pd];W[dp];B[pp])",
    ]
    for i, g in enumerate(games):
        (tmp_path / f"{i}.sgf").write_text(g)
    (batch,) = read_batches([tmp_path], games=100)
    assert len(batch) == 5
    for cuts in ([0, 5], [0, 1, 5], [0, 2, 3, 5], [0, 1, 2, 3, 4, 5]):
        parts = [batch.part(lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:])]
        assert [len(p) for p in parts] == np.diff(cuts).tolist()
        joined = concat(parts)
        for name in ("source", "location", "reject", "size", "handicap", "events"):
            assert getattr(joined, name) == getattr(batch, name)
        for name in ("colours", "points", "move_offsets", "setup_colours", "setup_points", "setup_offsets"):
            assert np.array_equal(getattr(joined, name), getattr(batch, name)), name
        assert [joined.info_of(k) for k in range(5)] == [batch.info_of(k) for k in range(5)]
    part = batch.part(3, 5)
    assert part.move_offsets[0] == part.setup_offsets[0] == 0
    assert part.info_of(1) == batch.info_of(4) and part.setup_points.tolist() == [0]


def test_limits_give_the_bulk_reader_the_python_readers_rejects(tmp_path):
    """limits.member_mb and limits.field_kb: the bulk reader rejects what
    the Python readers reject (a value past the field limit in a plain
    game the scanner would take, in a kifu line, a member or a file past
    the member limit) and reads the rest alike."""
    games = [f"(;GM[1]PB[p{i}]PW[{'w' * (100 * i)}];B[pd];W[d{chr(97 + i)}])".encode() for i in range(8)]
    (tmp_path / "a.tar.gz").write_bytes(
        make_tar({f"{i}.sgf": g for i, g in enumerate(games)} | {"zeros.sgf": bytes(5000)}, "w:gz")
    )
    (tmp_path / "coll.sgf").write_bytes(b"\n".join(games))
    (tmp_path / "big.sgf").write_bytes(games[0] + b" " * 5000)
    (tmp_path / "kifu").write_bytes(b"1\t;B[pd];W[dp]\n2\t;B[pd]C[" + b"c" * 500 + b"]\n")
    limits = {"member_bytes": 4096, "field_bytes": 400}
    view = bulk_view([tmp_path], **limits)
    assert view == python_view([tmp_path], **limits)
    assert [v[3] for v in view if v[2] == "reject"] == ["field too long"] * 3 + ["archive member too large"] + [
        "file too large"
    ] + ["field too long"] * 4


def test_games_of_many_moves_are_gathered_by_their_moves_too(tmp_path, monkeypatch):
    """Small files are gathered until a batch holds ``games`` games or
    MOVES_A_BATCH moves: a few games of millions of moves (their move text
    past 2 GiB) never share one batch's 32-bit offsets."""
    from joseki_miner.readers import bulk

    monkeypatch.setattr(bulk, "MOVES_A_BATCH", 50)
    for i in range(5):
        (tmp_path / f"{i}.kifu").write_text(f"{i}\t;B[pd]" + ";W[];B[]" * 20 + "\n")  # 41 moves each
    assert [len(b) for b in read_batches([tmp_path], games=1000)] == [2, 2, 1]
    assert bulk_view([tmp_path]) == python_view([tmp_path])


def test_a_folder_of_small_files_reads_as_each_file_alone(tmp_path):
    """A folder of files small and not (a small file is read whole by its
    descriptor, with no file object, and named SGF from its first bytes):
    what reading each file alone gives, whatever they hold, by both readers."""
    import gzip

    from joseki_miner.readers import HEAD

    folder = tmp_path / "games"
    folder.mkdir()
    odd = {
        "a-blank-names.sgf": "(;GM[1]PB[\u3000Lee\u2003]PW[ \u00a0Gu Li\u0085];B[pd];W[dp])".encode(),
        "a-latin1.sgf": b"(;GM[1]PB[Jos\xe9]PW[b];B[pd];W[dp])",
        "a-euc-kr.sgf": "(;GM[1]CA[EUC-KR]PB[\uc774\ucc3d\ud638];B[pd])".encode("euc-kr"),
        "a-utf16.sgf": "\ufeff(;GM[1]PB[x];B[pd])".encode("utf-16-le"),
        "a-gzip.sgf.gz": gzip.compress(b"(;GM[1]PB[zipped];B[pd];W[dp])"),
        "a-empty.sgf": b"",
        "a-junk": b"not a game",
        "a-head-less-one.sgf": b"(;GM[1]C[" + b"x" * (HEAD - 18) + b"];B[pd])",
        "a-head.sgf": b"(;GM[1]C[" + b"x" * (HEAD - 17) + b"];B[pd])",
        "a-large.sgf": b"(;GM[1]C[" + b"x" * (3 * HEAD) + b"];B[pd];W[dp])",
        "a-two-games.sgf": b"(;GM[1]PB[one];B[pd])\n(;GM[1]PB[two];B[dp])",
    }
    assert len(odd["a-head-less-one.sgf"]) == HEAD - 1 and len(odd["a-head.sgf"]) == HEAD
    for name, data in odd.items():
        (folder / name).write_bytes(data)
    for i in range(300):
        (folder / f"g{i:04d}.sgf").write_text(f"(;GM[1]PB[p{i}]DT[2001-01-{1 + i % 28:02d}];B[pd];W[dp])")
    (folder / "b-dangling.sgf").symlink_to(folder / "nowhere")
    alone = [row for f in sorted(folder.iterdir()) for row in python_view([f])]
    assert python_view([folder]) == alone
    assert bulk_view([folder]) == alone
    assert any(row[2] == "reject" and row[3] == "unreadable file" for row in alone)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.lists(
            st.one_of(st.none(), st.text(max_size=12), st.binary(max_size=8)), min_size=len(META), max_size=len(META)
        ),
        min_size=1,
        max_size=6,
    ),
    plain=st.lists(st.booleans(), min_size=6, max_size=6),
)
def test_root_information_read_compiled_as_in_python(values, plain):
    """A scanned game's root values: stripped of str.strip's blanks from
    their bytes where they are plain UTF-8, read in Python otherwise (not
    UTF-8, escapes): the same text either way."""
    from joseki_miner.readers.bulk import _info_values, _infos

    pieces, spans, at = [], [], 0
    for game in values:
        row = []
        for value in game:
            if value is None:
                row.append((-1, -1))
                continue
            data = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
            pieces.append(data)
            row.append((at, at + len(data)))
            at += len(data)
        spans.append(row)
    buf = b"".join(pieces)
    text = np.array(spans, np.int64).reshape(len(values), len(META), 2)
    flags = np.array(plain[: len(values)], np.bool_)
    try:
        expected = [_info_values(buf, text[g].tolist(), bool(flags[g])) for g in range(len(values))]
        [v.encode("utf-8") for row in expected for v in row]
    except UnicodeError:
        return  # text no reader gives (a lone surrogate)
    columns = _infos(buf, text, flags)
    assert [[columns[m][g].as_py() for m in META] for g in range(len(values))] == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(sgf_collections(), min_size=1, max_size=3))
def test_collections_of_any_shape_read_compiled_as_in_python(texts):
    """Variations with game information anywhere: the compiled scan hands
    what it does not read as the Python reader does back to it."""
    with tempfile.TemporaryDirectory() as tmp:
        for i, text in enumerate(texts):
            (Path(tmp) / f"{i}.sgf").write_text(text)
        assert bulk_view([tmp]) == python_view([tmp])


def test_what_other_readers_read_is_read_compiled_as_in_python(tmp_path):
    sjis = "(;GM[1]FF[4]CA[Shift_JIS]SZ[19]PB[井山裕太]PW[代表];B[pd];W[dp])\n".encode("shift_jis")
    files = {
        "small.sgf": b"(;GM[1]FF[4]SZ[19];B[pd](;PW[X]W[dp];B[pp])(;PW[Y]W[cp]))",
        "ff4_ex.sgf": _ff4_ex(),
        "later-info.sgf": b"(;GM[1]FF[4]SZ[19]PB[b];B[pd];PW[w]RE[W+R]W[dp])",
        "sabaki.sgf": b"(\r\nTE[1]GM[1]SZ[19];B[pd];W[dp])",
        "sabaki-collection.sgf": b"(;GM[1]SZ[19];B[pd])\n(\r\nGM[1]SZ[19]PB[x];B[dd];W[pp])",
        "mixed.sgf": "(;GM[1]PB[井山裕太];B[pd])\n".encode() + sjis,
        "gb.sgf": b"(;GM[1]CA[GB18030]PB[" + "交通".encode("gb18030").replace(b"\\", b"\\\\") + b"];B[pd])",
        "node-after-variations.sgf": b"(;GM[1]SZ[19];B[pd](;W[dd]);PW[X]B[qq])",
        "property-after-variations.sgf": b"(;GM[1]SZ[19];B[pd](;W[dd])PW[X])",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    for name in ("mixed-encoding.sgf", "test-result.sgf"):
        (tmp_path / name).write_bytes((FIXTURES / "sgfc" / name).read_bytes())
    (tmp_path / "concatenated.sgf").write_bytes((FIXTURES / "concatenated.sgf").read_bytes())
    view = bulk_view([tmp_path])
    assert view == python_view([tmp_path])
    assert ("later-info.sgf", {"PB": "b", "PW": "w", "RE": "W+R"}) in [
        (Path(v[0]).name, v[5]) for v in view if v[2] == "game"
    ]
