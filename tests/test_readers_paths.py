"""read_paths: files, folders, mixes; formats told apart by content."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from joseki_miner.readers import iter_files, read_paths, sniff
from joseki_miner.readers.dispatch import sniff_every_rule
from joseki_miner.method.records import REJECT_REASONS, GameRecord, Reject

GAME = b"(;GM[1]FF[4]SZ[19]PB[x];B[pd];W[dp])\n"


def build(root: Path) -> None:
    (root / "b").mkdir()
    (root / "a").mkdir()
    (root / "b" / "z.sgf").write_bytes(GAME)
    (root / "b" / "y.SGF").write_bytes(GAME + GAME)
    (root / "a" / "old.mgt").write_bytes(GAME)
    (root / "a" / "noext").write_bytes(b"\n  " + GAME)
    (root / "a" / "dump").write_bytes(b"7\t;B[pd];W[dp]\n8\t;B[dd]\n")
    (root / "a" / "Kifu.index").write_bytes("7\t2003.01.01 10:00\tW\tB\t6.5\tB+R\t2\t-\n".encode())
    (root / "a" / "ishi.go").write_bytes(b"EVENT\r\nB 1 Q4\r\n")
    (root / "README.md").write_text("# My games\nDownloaded from a server (; with love).\n")
    (root / "sgf.txt").write_bytes(GAME)  # SGF content, unusual name
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (root / "c.sgf.gz").write_bytes(gzip.compress(GAME))


def test_mixed_folder_sorted_and_accounted(tmp_path):
    build(tmp_path)
    skipped = []
    items = list(read_paths([tmp_path], on_skip=lambda s, where, w: skipped.append((Path(s).name, w))))
    where = [(Path(i.source).name, i.location) for i in items]
    # a folder's files first, then its subfolders, each in sorted order
    assert where == [
        ("c.sgf.gz", "c.sgf"),
        ("sgf.txt", ""),
        ("dump", "line 1"),
        ("dump", "line 2"),
        ("ishi.go", ""),
        ("noext", ""),
        ("old.mgt", ""),
        ("y.SGF", "game 1"),
        ("y.SGF", "game 2"),
        ("z.sgf", ""),
    ]
    assert all(isinstance(i, GameRecord) for i in items)
    assert items[2].meta["PB"] == "B"  # the index joined
    assert sorted(skipped) == [
        ("Kifu.index", "index file (metadata, not games)"),
        ("README.md", "not a game record"),
        ("image.png", "not a game record"),
    ]
    # deterministic
    assert [(i.source, i.location) for i in read_paths([tmp_path])] == [(i.source, i.location) for i in items]


def test_files_and_folders_mixed_and_given_twice(tmp_path):
    build(tmp_path)
    items = list(read_paths([tmp_path / "b" / "z.sgf", tmp_path / "b", str(tmp_path / "a" / "old.mgt")]))
    assert [Path(i.source).name for i in items] == ["z.sgf", "y.SGF", "y.SGF", "old.mgt"]
    assert [p.name for p in iter_files(tmp_path / "b")] == ["y.SGF", "z.sgf"]


def test_single_path_argument(tmp_path):
    (tmp_path / "g.sgf").write_bytes(GAME)
    assert len(list(read_paths(tmp_path / "g.sgf"))) == 1
    assert len(list(read_paths(str(tmp_path)))) == 1


def test_missing_path_is_an_unusable_invocation(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope"):
        list(read_paths([tmp_path / "nope"]))


def test_unreadable_file(tmp_path):
    os.symlink(tmp_path / "gone.sgf", tmp_path / "dangling.sgf")
    (tmp_path / "ok.sgf").write_bytes(GAME)
    items = list(read_paths([tmp_path]))
    assert isinstance(items[0], Reject) and items[0].reason == "unreadable file" and items[0].detail
    assert isinstance(items[1], GameRecord)


@pytest.mark.parametrize(
    "name, head, kind",
    [
        ("x.sgf", GAME, "sgf"),
        ("x", b"\xef\xbb\xbf (;FF[4])", "sgf"),
        ("x.sgf", b"garbage", "sgf"),  # named a game: read (and rejected) as one
        ("x", b"garbage", None),
        ("2011-01", b"12\t;B[pd];W[dp]\n13\t;B[pd]\n", "kifu"),
        ("k", b"12\t2011.01.01 00:01\ta\tb\t0\tc\td\t2\tB+R\t3\t20/3 0m\n", "index"),
        ("Kifu.index", b"anything", "index"),
        ("t.go", b"Remark x\nEVENT\nB 1 Q4\n", "ishi"),
        ("t.go", b"package main\n", None),
        ("a.zip", b"PK\x03\x04", "zip"),
        ("a", b"\x1f\x8b\x08", "gzip"),
        ("a", b"BZh91AY", "bz2"),
        ("._a.sgf", GAME, None),
        # found by the fuzz test: damage made a named SGF file look like a kifu line
        ("coll.sgf", b"\x00\t;GM[1]PB[a];B[pd])(;GM[1]PB[b];B[pd])", "sgf"),
        ("k", b"\x00\t;B[pd]\n", None),
    ],
)
def test_sniff(name, head, kind):
    assert sniff(name, head) == kind


@settings(max_examples=400, deadline=None)
@given(
    name=st.sampled_from(["x.sgf", "x", "x.SGF", "Kifu.index", "._x.sgf", "__MACOSX/x.sgf", "t.go", "a.tar"]),
    body=st.binary(max_size=700),
    blanks=st.integers(0, 3),
    nul=st.booleans(),
    tar=st.booleans(),
)
def test_sniff_decides_a_game_start_as_every_rule_would(name, body, blanks, nul, tar):
    """The shortcut for heads that open with a game tree gives what the
    rules in their order give, for any name and any bytes after it (a NUL,
    a tar header's mark, a semicolon or none)."""
    head = bytearray(b"(" + b";" * (blanks > 0) + body)
    if nul:
        head[min(len(head) - 1, blanks * 40)] = 0
    if tar and len(head) < 600:
        head += b" " * (600 - len(head))
        head[257:262] = b"ustar"
    head = bytes(head)
    assert sniff(name, head) == sniff_every_rule(name, head)


def test_every_reader_reject_reason_is_documented_and_produced(tmp_path):
    """The reasons a reader can give, each met once here."""
    files = {
        "parse.sgf": b"(;B[pd]",
        "size.sgf": b"(;SZ[13];B[pd])",
        "off.sgf": b"(;B[zz])",
        "text.sgf": b"(;CA[UTF-8]PB[\xff\xfe\xfd\xfc\xff\xfe];B[pd])",
        "empty.sgf": b"",
        "cut.sgf.gz": gzip.compress(GAME * 100)[:60],
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    os.symlink(tmp_path / "nowhere", tmp_path / "link.sgf")
    reasons = {Path(i.source).name: i.reason for i in read_paths([tmp_path])}
    assert reasons == {
        "cut.sgf.gz": "unreadable archive member",
        "empty.sgf": "not a game",
        "link.sgf": "unreadable file",
        "off.sgf": "move off the board",
        "parse.sgf": "parse error",
        "size.sgf": "not 19x19",
        "text.sgf": "undecodable text",
    }
    assert set(reasons.values()) <= set(REJECT_REASONS)


def test_file_names_that_are_not_utf8_are_read_and_shown_escaped(tmp_path):
    """A file named b"\\xff\\xfe.sgf" (Latin-1 or cp1252 names copied from an
    old disk) is read; its name is shown with backslash escapes, so the
    source is text that any table can hold."""
    folder = os.fsencode(tmp_path) + b"/old\xe9"
    os.mkdir(folder)
    with open(folder + b"/\xff\xfe.sgf", "wb") as f:
        f.write(GAME)
    with open(folder + b"/\xfe.sgf.gz", "wb") as f:
        f.write(gzip.compress(GAME))
    items = list(read_paths([tmp_path]))
    assert all(isinstance(i, GameRecord) for i in items)
    assert [(i.source, i.location) for i in items] == [
        (f"{tmp_path}/old\\xe9/\\xfe.sgf.gz", "\\xfe.sgf"),
        (f"{tmp_path}/old\\xe9/\\xff\\xfe.sgf", ""),
    ]
    for i in items:  # no lone surrogate left: UTF-8 holds them
        i.source.encode("utf-8")
        i.location.encode("utf-8")


def test_a_plain_file_past_the_member_limit_is_rejected_unread(tmp_path):
    """limits.member_mb bounds a file read whole too: a larger game file is
    rejected as "file too large", a larger index file is left out (named in
    the skipped files); a file within it is read."""
    limit = 4096
    (tmp_path / "big.sgf").write_bytes(GAME + b" " * limit)
    (tmp_path / "small.sgf").write_bytes(GAME)
    (tmp_path / "dump").write_bytes(b"7\t;B[pd];W[dp]\n")
    (tmp_path / "Kifu.index").write_bytes(b"7\t2003.01.01 10:00\tW\tB\t6.5\tB+R\t2\t-\n" + b"\n" * limit)
    skipped = []
    items = list(read_paths([tmp_path], member_bytes=limit, on_skip=lambda s, where, w: skipped.append(w)))
    assert [(Path(i.source).name, i.reason if isinstance(i, Reject) else i.meta) for i in items] == [
        ("big.sgf", "file too large"),
        ("dump", {"id": "7"}),
        ("small.sgf", {"PB": "x"}),
    ]
    assert items[0].detail == f"more than {limit:,} bytes (limits.member_mb)"
    assert skipped == ["index file too large (limits.member_mb): ignored"]
