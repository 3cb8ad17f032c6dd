"""Archives read in place: zip, tar, tar.gz/.tgz, tar.bz2, tar.xz, .gz, .bz2."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import lzma
import tarfile
import zipfile

import pytest

from helpers import make_tar, make_zip
from joseki_miner.readers import read_bytes, read_paths
from joseki_miner.method.records import GameRecord, Reject


def game(i: int) -> bytes:
    noise = hashlib.sha256(str(i).encode()).hexdigest() * 4  # not too compressible
    return f"(;GM[1]FF[4]SZ[19]PB[p{i}];B[pd];W[dp];B[pq];W[dd];C[{noise}])\n".encode()


MEMBERS = {
    "games/a.sgf": game(1),
    "games/b.SGF": game(2) + game(3),  # a collection of two
    "games/README.txt": b"These are some games.\n",
    "games/c.sgf": game(4),
}
EXPECTED = [("games/a.sgf", "p1"), ("games/b.SGF:game 1", "p2"), ("games/b.SGF:game 2", "p3"), ("games/c.sgf", "p4")]


ARCHIVES = {
    "games.zip": lambda: make_zip(MEMBERS),
    "games.tar": lambda: make_tar(MEMBERS),
    "games.tar.gz": lambda: make_tar(MEMBERS, "w:gz"),
    "games.tgz": lambda: make_tar(MEMBERS, "w:gz"),
    "games.tar.bz2": lambda: make_tar(MEMBERS, "w:bz2"),
    "games.tar.xz": lambda: make_tar(MEMBERS, "w:xz"),
    "no_extension_archive": lambda: make_tar(MEMBERS, "w:gz"),
}


def summary(items):
    return [(i.location, i.meta.get("PB")) if isinstance(i, GameRecord) else (i.location, i.reason) for i in items]


@pytest.mark.parametrize("name", sorted(ARCHIVES))
def test_archive_kinds(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(ARCHIVES[name]())
    skipped = []
    items = list(read_paths([path], on_skip=lambda s, where, w: skipped.append(where)))
    assert summary(items) == EXPECTED
    assert all(i.source == str(path) for i in items)
    assert skipped == ["games/README.txt"]


@pytest.mark.parametrize("suffix, compress", [(".gz", gzip.compress), (".bz2", bz2.compress), (".xz", lzma.compress)])
def test_single_compressed_file(tmp_path, suffix, compress):
    path = tmp_path / ("coll.sgf" + suffix)
    path.write_bytes(compress(game(1) + game(2)))
    items = list(read_paths([path]))
    assert summary(items) == [("coll.sgf:game 1", "p1"), ("coll.sgf:game 2", "p2")]


def test_kifu_file_gzipped(tmp_path):
    path = tmp_path / "2011-01.gz"
    path.write_bytes(gzip.compress(b"1\t;B[pd]\n2\t;B[dd]\n"))
    assert [i.location for i in read_paths([path])] == ["2011-01:line 1", "2011-01:line 2"]


def test_nested_archive(tmp_path):
    inner = make_zip({"x.sgf": game(7)})
    path = tmp_path / "outer.tar.gz"
    path.write_bytes(make_tar({"in/inner.zip": inner, "y.sgf": game(8)}, "w:gz"))
    assert summary(read_paths([path])) == [("in/inner.zip!x.sgf", "p7"), ("y.sgf", "p8")]


def test_truncated_tar_gz_loses_only_the_unreadable_members(tmp_path):
    members = {f"g/{i:03d}.sgf": game(i) for i in range(40)}
    data = make_tar(members, "w:gz")
    path = tmp_path / "cut.tar.gz"
    path.write_bytes(data[: len(data) * 2 // 3])
    items = list(read_paths([path]))
    good = [i for i in items if isinstance(i, GameRecord)]
    bad = [i for i in items if isinstance(i, Reject)]
    assert len(good) >= 15
    assert [g.meta["PB"] for g in good] == [f"p{i}" for i in range(len(good))]
    assert len(bad) == 1 and bad[0].reason == "unreadable archive member"
    assert bad[0].location.startswith("g/") or bad[0].location.startswith("(after g/")
    assert bad[0].detail


def test_zip_with_a_corrupt_member(tmp_path):
    members = {f"{i}.sgf": game(i) for i in range(5)}
    data = bytearray(make_zip(members))
    # damage the compressed data of member 2 (find its local header)
    start = data.find(b"2.sgf") + len("2.sgf")
    for k in range(start + 10, start + 40):
        data[k] ^= 0x5A
    path = tmp_path / "bad.zip"
    path.write_bytes(bytes(data))
    items = list(read_paths([path]))
    assert summary(items)[:2] == [("0.sgf", "p0"), ("1.sgf", "p1")]
    assert isinstance(items[2], Reject) and items[2].reason == "unreadable archive member"
    assert items[2].location == "2.sgf" and items[2].detail
    assert summary(items)[3:] == [("3.sgf", "p3"), ("4.sgf", "p4")]


def test_truncated_zip_is_read_by_its_local_headers(tmp_path):
    members = {f"{i}.sgf": game(i) for i in range(10)}
    data = make_zip(members)
    path = tmp_path / "cut.zip"
    path.write_bytes(data[: data.find(b"5.sgf") + 40])  # inside member 5's data
    items = list(read_paths([path]))
    assert summary(items) == [(f"{i}.sgf", f"p{i}") for i in range(5)] + [("5.sgf", "unreadable archive member")]
    assert "cut short" in items[-1].detail
    # cut inside a member header: the damage is placed after the last member read
    path.write_bytes(data[: data.find(b"5.sgf") - 10])
    items = list(read_paths([path]))
    assert summary(items) == [(f"{i}.sgf", f"p{i}") for i in range(5)] + [
        ("(after 4.sgf)", "unreadable archive member")
    ]


def test_truncated_single_gz(tmp_path):
    data = gzip.compress(game(1) * 50)
    path = tmp_path / "c.sgf.gz"
    path.write_bytes(data[: len(data) // 2])
    items = list(read_paths([path]))
    assert len(items) == 1 and items[0].reason == "unreadable archive member" and items[0].location == "c.sgf"


def test_not_an_archive_after_all(tmp_path):
    path = tmp_path / "x.zip"
    path.write_bytes(b"PK\x03\x04 this is not really a zip")
    items = list(read_paths([path]))
    assert len(items) == 1 and items[0].reason == "unreadable archive member"


def test_stored_zip_and_read_bytes():
    data = make_zip({"a.sgf": game(1)}, zipfile.ZIP_STORED)
    assert summary(read_bytes(data, "x.zip")) == [("a.sgf", "p1")]
    assert summary(read_bytes(data[:-30], "x.zip")) == [("a.sgf", "p1")]  # directory cut off


def test_macos_junk_members_skipped(tmp_path):
    path = tmp_path / "mac.zip"
    path.write_bytes(make_zip({"a.sgf": game(1), "__MACOSX/._a.sgf": b"\x00\x05\x16\x07junk", "._b.sgf": b"\x00\x05"}))
    assert summary(read_paths([path])) == [("a.sgf", "p1")]


@pytest.mark.parametrize("mode", ["w", "w:gz", "w:bz2"])
@pytest.mark.parametrize("fraction", [0.2, 0.5, 0.8, 0.97])
def test_truncated_tar_every_compression(tmp_path, mode, fraction):
    members = {f"g/{i:03d}.sgf": game(i) for i in range(30)}
    data = make_tar(members, mode)
    path = tmp_path / {"w": "cut.tar", "w:gz": "cut.tar.gz", "w:bz2": "cut.tbz2"}[mode]
    path.write_bytes(data[: int(len(data) * fraction)])
    items = list(read_paths([path]))
    good = [i for i in items if isinstance(i, GameRecord)]
    bad = [i for i in items if isinstance(i, Reject)]
    # members before the cut intact and in order, then one reject naming where
    assert [g.location for g in good] == [f"g/{i:03d}.sgf" for i in range(len(good))]
    assert all(g.meta["PB"] == f"p{i}" for i, g in enumerate(good))
    if len(good) == len(members):  # the cut fell in the zero padding at the end
        assert bad == []
        return
    assert len(bad) == 1 and bad[0].reason == "unreadable archive member" and bad[0].detail
    assert items[-1] is bad[0]
    assert bad[0].location in (f"g/{len(good):03d}.sgf", f"(after g/{len(good) - 1:03d}.sgf)", "(start of archive)")


def test_tar_with_a_damaged_header_in_the_middle(tmp_path):
    members = {f"{i}.sgf": game(i) for i in range(6)}
    data = bytearray(make_tar(members))
    header = data.find(b"3.sgf")  # the header of member 3
    data[header + 148 : header + 156] = b"9999999\x00"  # a wrong checksum
    path = tmp_path / "damaged.tar"
    path.write_bytes(bytes(data))
    items = list(read_paths([path]))
    assert summary(items) == [(f"{i}.sgf", f"p{i}") for i in range(3)] + [
        ("(after 2.sgf)", "unreadable archive member")
    ]
    assert "header" in items[-1].detail


@pytest.mark.parametrize("data", [b"\x1f\x8b\x08", b"\x1f\x8b", b"BZh9", b"\xfd7zXZ\x00", b"PK\x03\x04"])
@pytest.mark.parametrize("name", ["games.tar.gz", "x.gz", "blob"])
def test_archive_cut_in_its_first_bytes(name, data):
    """Found by the fuzz test: tarfile raised TypeError on a 3-byte gzip."""
    items = list(read_bytes(data, name))
    assert len(items) == 1 and items[0].reason == "unreadable archive member" and items[0].detail


def _damaged_zip() -> bytes:
    """A zip whose second member's data is damaged (its CRC fails)."""
    data = bytearray(make_zip(MEMBERS))
    at = data.index(b"PK\x03\x04", 1)  # the second member's header
    data[at + 60] ^= 0xFF
    return bytes(data)


def test_inflater_reads_ahead_what_iter_members_would_read(tmp_path):
    """The background read-ahead gives a compressed tar's content and a zip's
    members exactly as the reader would get them itself, and nothing (so the
    reader reads the file itself and reports the damage) for a broken one."""
    from joseki_miner.readers import archives, tarwalk

    paths = {}
    for name, data in {
        "a.tar.gz": make_tar(MEMBERS, "w:gz"),
        "b.zip": make_zip(MEMBERS),
        "c.tar.bz2": make_tar(MEMBERS, "w:bz2"),
        "stored.zip": make_zip(MEMBERS, zipfile.ZIP_STORED),
        "damaged.zip": _damaged_zip(),
        "broken.tar.gz": make_tar(MEMBERS, "w:gz")[:-40],
        "plain.gz": gzip.compress(game(5)),
    }.items():
        paths[name] = tmp_path / name
        paths[name].write_bytes(data)
    inflater = archives.Inflater(list(paths.values()), ahead=2)
    try:
        for name in ("a.tar.gz", "c.tar.bz2"):
            data = archives._decompressed("gzip" if name.endswith("gz") else "bz2", paths[name].open("rb"))
            assert inflater.take(paths[name]) == (data, tarwalk.tar_members(data))
        for name in ("b.zip", "stored.zip", "damaged.zip"):
            with paths[name].open("rb") as fh:
                assert inflater.take(paths[name]) == list(archives.iter_zip(fh)), name
        assert inflater.take(paths["broken.tar.gz"]) == archives.Tar(None, None)  # to be streamed
        assert inflater.take(paths["plain.gz"]) is None  # not a tar: read as a single file
    finally:
        inflater.close()
    # as the index pre-pass asks: of a zip only the members it wants inflated, the others named
    wanted = sorted(MEMBERS)[1]
    inflater = archives.Inflater(list(paths.values()), ahead=2, want=lambda name: name == wanted)
    try:
        for name in ("b.zip", "stored.zip", "damaged.zip"):
            with paths[name].open("rb") as fh:
                expected = list(archives.iter_zip(fh, lambda n: n == wanted))
            assert inflater.take(paths[name]) == expected, name
            assert any(data is not None for _, data, _ in expected) and any(data is None for _, data, _ in expected)
    finally:
        inflater.close()
    assert [(r.location, r.meta.get("PB")) for r in read_paths([paths["a.tar.gz"]])] == EXPECTED


def test_index_pre_pass_decompresses_each_archive_once(tmp_path, monkeypatch):
    """The main pass takes the tars the index pre-pass decompressed.  (Only
    this test's archive counts: an inflater closed by the test before may
    still be inflating its own ahead, in a thread that close leaves to end.)"""
    from joseki_miner.readers import archives

    (tmp_path / "games.tar.gz").write_bytes(make_tar(MEMBERS, "w:gz"))
    calls = []
    real = archives._decompressed

    def counted(kind, fileobj, *args):
        if str(getattr(fileobj, "name", "")).startswith(str(tmp_path)):
            calls.append(kind)
        return real(kind, fileobj, *args)

    monkeypatch.setattr(archives, "_decompressed", counted)
    items = list(read_paths([tmp_path]))
    assert [(r.location, r.meta.get("PB")) for r in items] == EXPECTED
    assert calls == ["gzip"]


def _tar_of(members, fmt) -> bytes:
    import io
    import tarfile

    buf = io.BytesIO()
    fmt = {"ustar": tarfile.USTAR_FORMAT, "gnu": tarfile.GNU_FORMAT, "pax": tarfile.PAX_FORMAT}[fmt]
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as tar:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            if kind == "dir":
                info.type = tarfile.DIRTYPE
            elif kind == "link":
                info.type, info.linkname = tarfile.SYMTYPE, "a.sgf"
            else:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if kind == "file" else None)
    return buf.getvalue()


def _tar_cases():
    from hypothesis import strategies as st

    names = st.sampled_from(["a.sgf", "d/b.sgf", "d/", "x" * 120 + "/long.sgf", "é.sgf", "k/" * 60 + "deep"])
    member = st.tuples(names, st.sampled_from(["file", "file", "dir", "link"]), st.binary(max_size=700))
    fmt = st.sampled_from(["ustar", "gnu", "pax"])
    # a damaged copy: a byte set at a position (headers and their fields included)
    damage = st.lists(
        st.tuples(st.integers(0, 4096), st.sampled_from([0, 32, ord("0"), ord("7"), ord("8"), 0x80, ord("_")])),
        max_size=3,
    )
    return st.tuples(st.lists(member, max_size=5), fmt, damage, st.integers(0, 2))


def test_compiled_tar_walk_reads_headers_as_the_python_walk():
    """The compiled header walk gives exactly what the header-by-header
    Python reading gives (member list or None), on sound tars of every
    format and on damaged and cut ones."""
    from hypothesis import given, settings

    from joseki_miner.readers import tarwalk

    @settings(max_examples=400, deadline=None)
    @given(_tar_cases())
    def check(case):
        members, fmt, damage, cut = case
        data = bytearray(_tar_of(members, fmt))
        for at, value in damage:
            if at < len(data):
                data[at] = value
        data = bytes(data[: len(data) - 512 * cut])
        assert tarwalk.tar_members(data) == tarwalk.tar_headers(data)

    check()


def _tar_of_raw_names(members: dict[bytes, bytes], mode: str) -> bytes:
    """A tar whose member names are the given bytes, UTF-8 or not (GNU
    headers hold them as they are)."""
    buf = io.BytesIO()
    with tarfile.open(
        fileobj=buf, mode=mode, format=tarfile.GNU_FORMAT, encoding="utf-8", errors="surrogateescape"
    ) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name.decode("utf-8", "surrogateescape"))
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _zip_of_raw_names(members: dict[bytes, bytes]) -> bytes:
    """A zip whose member names are the given bytes, flagged UTF-8 (0x800)
    whether they are or not: each written under a stand-in name of its
    length, then renamed and flagged in its local and central headers."""
    stand_ins = {chr(65 + i).encode() * len(name): name for i, name in enumerate(members)}
    data = bytearray(make_zip({s.decode(): members[n] for s, n in stand_ins.items()}))
    for magic, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(magic)
        while at >= 0:
            data[at + flags + 1] |= 0x08
            at = data.find(magic, at + 4)
    for stand_in, name in stand_ins.items():
        data = data.replace(stand_in, name)
    return bytes(data)


@pytest.mark.parametrize("kind", ["tar", "tar.gz", "zip"])
def test_member_names_that_are_not_utf8_are_shown_escaped(tmp_path, kind):
    """Member names that are not UTF-8 (a tar or a zip made on a Latin-1
    system, a zip that flags UTF-8 and lies) are read, shown with backslash
    escapes; nested members too."""
    inner = _tar_of_raw_names({b"\xe9t\xe9.sgf": game(2)}, "w")
    members = {b"\xff\xfe.sgf": game(1), b"in\xff.tar": inner, "caf\u00e9.sgf".encode(): game(3)}
    data = (
        _zip_of_raw_names(members) if kind == "zip" else _tar_of_raw_names(members, "w:gz" if kind == "tar.gz" else "w")
    )
    path = tmp_path / f"old.{kind}"
    path.write_bytes(data)
    assert summary(read_paths([path])) == [
        ("\\xff\\xfe.sgf", "p1"),
        ("in\\xff.tar!\\xe9t\\xe9.sgf", "p2"),
        ("caf\u00e9.sgf", "p3"),
    ]


LIMIT = 1 << 20  # limits.member_mb of 1 for these tests
ZEROS = bytes(16 << 20)  # a member of zeros, 16 times the limit


def _bombs() -> dict:
    """Archives (name -> bytes) that each hold a member of ZEROS among small
    games; their compressed sizes are a few KB."""
    small = {"a.sgf": game(1), "c.sgf": game(3)}
    both = {"a.sgf": game(1), "b.sgf": ZEROS, "c.sgf": game(3)}
    return {
        "bomb.zip": make_zip(both),
        "bomb.tar": make_tar(both),
        "bomb.tar.gz": make_tar(both, "w:gz"),
        "bomb.tar.bz2": make_tar(both, "w:bz2"),
        "bomb.tar.xz": lzma.compress(make_tar(both), preset=0),  # xz's decoder holds its dictionary: a small one
        "b.sgf.gz": gzip.compress(ZEROS),
        "b.sgf.bz2": bz2.compress(ZEROS),
        "b.sgf.xz": lzma.compress(ZEROS, preset=0),
        "nested.tar.gz": make_tar({"in.zip": make_zip(small), "b.sgf.gz": gzip.compress(ZEROS)}, "w:gz"),
        "cut.zip": make_zip(both)[:-60],  # its central directory lost: the local headers are walked
    }


BOMB_READS = {
    "bomb.zip": [("a.sgf", "p1"), ("b.sgf", "archive member too large"), ("c.sgf", "p3")],
    "b.sgf.gz": [("b.sgf", "archive member too large")],
    "nested.tar.gz": [("in.zip!a.sgf", "p1"), ("in.zip!c.sgf", "p3"), ("b.sgf.gz!b.sgf", "archive member too large")],
    "cut.zip": [("a.sgf", "p1"), ("b.sgf", "archive member too large"), ("c.sgf", "p3")],
}


@pytest.mark.parametrize("name", sorted(_bombs()))
def test_a_member_past_the_limit_is_rejected_without_being_inflated_whole(tmp_path, name):
    """limits.member_mb: a member that inflates past it is rejected as
    "archive member too large" (the others are read), and reading it never
    holds much more than the limit (traced Python memory: the inflated
    member would be 16 MB)."""
    import tracemalloc

    path = tmp_path / name
    path.write_bytes(_bombs()[name])
    tracemalloc.start()
    try:
        items = list(read_paths([path], member_bytes=LIMIT))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    expected = BOMB_READS.get(name) or BOMB_READS["bomb.zip" if "bomb" in name else "b.sgf.gz"]
    assert summary(items) == expected
    assert all(
        i.detail == f"more than {LIMIT:,} bytes inflated (limits.member_mb)" for i in items if isinstance(i, Reject)
    )
    assert peak < 4 * LIMIT


def test_a_tar_past_the_limit_whose_members_are_not_is_streamed(tmp_path):
    """A tar larger inflated than the fast path may hold in memory (the
    member limit) is read member by member instead: every member read."""
    members = {f"g/{i:02d}.sgf": game(i) + bytes(200_000) for i in range(12)}  # 2.4 MB in all
    for name, mode in (("t.tar.gz", "w:gz"), ("t.tar", "w")):
        (tmp_path / name).write_bytes(make_tar(members, mode))
        items = list(read_paths([tmp_path / name], member_bytes=LIMIT))
        assert summary(items) == [(m, f"p{i}") for i, m in enumerate(members)]


def _linked_tar(mode: str) -> bytes:
    """A tar of a game, a symbolic link to it and a hard link to it, as
    ``tar`` writes a folder that holds them."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        info = tarfile.TarInfo("games/a.sgf")
        info.size = len(game(1))
        tar.addfile(info, io.BytesIO(game(1)))
        for name, kind in (("games/b.sgf", tarfile.SYMTYPE), ("games/c.sgf", tarfile.LNKTYPE)):
            link = tarfile.TarInfo(name)
            link.type, link.linkname = kind, "a.sgf" if kind == tarfile.SYMTYPE else "games/a.sgf"
            tar.addfile(link)
        fifo = tarfile.TarInfo("games/pipe")
        fifo.type = tarfile.FIFOTYPE
        tar.addfile(fifo)
    return buf.getvalue()


def _linked_zip() -> bytes:
    """A zip of a game and a symbolic link to it, as Info-ZIP stores one
    (``zip -y``): its data the target, its mode a link's."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("games/a.sgf", game(1))
        link = zipfile.ZipInfo("games/b.sgf")
        link.external_attr = 0o120777 << 16
        zf.writestr(link, "a.sgf")
    return buf.getvalue()


@pytest.mark.parametrize("name", ["links.tar", "links.tar.gz", "links.zip"])
def test_a_link_in_an_archive_is_named_among_the_skipped_files(tmp_path, name):
    """Never dropped in silence: a link member is counted among the skipped
    files, by kind, in the Python and the compiled readings alike."""
    from joseki_miner.readers.bulk import read_batches

    data = _linked_zip() if name.endswith("zip") else _linked_tar("w:gz" if name.endswith("gz") else "w")
    (tmp_path / name).write_bytes(data)
    skipped: list[tuple] = []
    items = list(read_paths([tmp_path], on_skip=lambda *s: skipped.append(s)))
    assert summary(items) == [("games/a.sgf", "p1")]
    expected = [("games/b.sgf", "symbolic link in an archive (not followed)")]
    if name != "links.zip":
        expected += [
            ("games/c.sgf", "hard link in an archive (not followed)"),
            ("games/pipe", "device or pipe in an archive"),
        ]
    assert [(location, why) for _, location, why in skipped] == expected
    compiled: list[tuple] = []
    from joseki_miner.readers.dispatch import Taken

    batches = list(read_batches([tmp_path], taken=Taken(on_skip=lambda *s: compiled.append(s))))
    assert sum(len(b) for b in batches) == 1 and compiled == skipped
