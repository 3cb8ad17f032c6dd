"""Collections at fsspec URLs: the mirror in the work folder holds what the
server holds, and a file is fetched again only when what the server says
of it changes (fsspec's in-memory file system stands in for a server)."""

from __future__ import annotations

from pathlib import Path

import pytest

fsspec = pytest.importorskip("fsspec")

from joseki_miner.remote import fetch, is_url, mirror_of  # noqa: E402


def test_urls_are_told_from_paths():
    assert is_url("http://example.org/go/") and is_url("s3://bucket/games") and is_url("file:///tmp/x")
    assert not is_url("/home/me/go") and not is_url("games/http:/x") and not is_url("C:games")


def test_the_mirror_is_named_after_the_url(tmp_path):
    assert mirror_of("http://example.org:8080/go/kgs/", tmp_path) == tmp_path / "http" / "example.org:8080" / "go" / "kgs"


def test_a_file_url_is_read_where_it_is(tmp_path):
    (tmp_path / "a.sgf").write_text("(;)")
    assert fetch(f"file://{tmp_path}", tmp_path / "mirror") == tmp_path
    assert not (tmp_path / "mirror").exists()


def test_the_mirror_follows_the_server_fetching_only_what_changed(tmp_path):
    fs = fsspec.filesystem("memory")
    root = f"/games-{tmp_path.name}"
    fs.pipe({f"{root}/kgs/a.sgf": b"(;B[pd])", f"{root}/kgs/b.sgf": b"(;B[dd])", f"{root}/tom/c.txt": b"x"})
    counts = []
    local = fetch(f"memory://{root}", tmp_path, on_fetched=lambda n, files: counts.append((n, files)))
    assert sorted(str(p.relative_to(local)) for p in local.rglob("*") if p.is_file()) == [
        "kgs/a.sgf", "kgs/b.sgf", "tom/c.txt"]
    assert (local / "kgs" / "a.sgf").read_bytes() == b"(;B[pd])"
    fetch(f"memory://{root}", tmp_path, on_fetched=lambda n, files: counts.append((n, files)))
    fs.pipe(f"{root}/kgs/a.sgf", b"(;B[pd];W[dp])")  # changed: its size differs
    fs.rm(f"{root}/tom/c.txt")
    fetch(f"memory://{root}", tmp_path, on_fetched=lambda n, files: counts.append((n, files)))
    assert counts == [(3, 3), (0, 3), (1, 2)]
    assert (local / "kgs" / "a.sgf").read_bytes() == b"(;B[pd];W[dp])"
    assert not (local / "tom" / "c.txt").exists()
    assert not list(Path(tmp_path).rglob("*.tmp"))
