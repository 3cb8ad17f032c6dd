"""Collections at fsspec URLs: the mirror in the work folder holds what the
server holds, and a file is fetched again only when what the server says
of it changes; an output folder at a URL holds the files of the local copy
once the run ends (fsspec's in-memory file system stands in for a server
and a bucket)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

fsspec = pytest.importorskip("fsspec")

from joseki_miner.runs.remote import fetch, is_url, mirror_of  # noqa: E402


def test_urls_are_told_from_paths():
    assert is_url("http://example.org/go/") and is_url("s3://bucket/games") and is_url("file:///tmp/x")
    assert not is_url("/home/me/go") and not is_url("games/http:/x") and not is_url("C:games")


def test_the_mirror_is_named_after_the_url(tmp_path):
    assert (
        mirror_of("http://example.org:8080/go/kgs/", tmp_path) == tmp_path / "http" / "example.org:8080" / "go" / "kgs"
    )
    assert mirror_of("s3://b/../../../x/./y", tmp_path) == tmp_path / "s3" / "b" / "x" / "y"  # never above it


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
        "kgs/a.sgf",
        "kgs/b.sgf",
        "tom/c.txt",
    ]
    assert (local / "kgs" / "a.sgf").read_bytes() == b"(;B[pd])"
    fetch(f"memory://{root}", tmp_path, on_fetched=lambda n, files: counts.append((n, files)))
    fs.pipe(f"{root}/kgs/a.sgf", b"(;B[pd];W[dp])")  # changed: its size differs
    fs.rm(f"{root}/tom/c.txt")
    fetch(f"memory://{root}", tmp_path, on_fetched=lambda n, files: counts.append((n, files)))
    assert counts == [(3, 3), (0, 3), (1, 2)]
    assert (local / "kgs" / "a.sgf").read_bytes() == b"(;B[pd];W[dp])"
    assert not (local / "tom" / "c.txt").exists()
    assert not list(Path(tmp_path).rglob("*.tmp"))


# -- an output folder at a URL ----------------------------------------------------------


def _remote_files(fs, root: str) -> dict[str, bytes]:
    return {name[len(root) + 1 :]: fs.cat_file(name) for name in fs.find(root)}


def test_a_publication_sends_what_changed_removes_what_went_and_names_it_all_last(tmp_path):
    from joseki_miner.runs.remote import PUBLISHED, publish

    fs = fsspec.filesystem("memory")
    root = f"/tree-{tmp_path.name}"
    local = tmp_path / "out"
    (local / "report").mkdir(parents=True)
    (local / "interim").mkdir()
    (local / "joseki.sgf").write_bytes(b"(;GM[1])")
    (local / "report" / "index.html").write_bytes(b"<html>")
    (local / "prune.manifest.json").write_bytes(b"{}")
    (local / ".joseki.lock").write_bytes(b"pid 1")
    (local / "interim" / "games.parquet").write_bytes(b"PAR1")  # the work folder: never published
    (local / "half.tmp").write_bytes(b"")
    assert publish(local, f"memory://{root}", skip=(".joseki.lock",), leave_out=local / "interim") == (3, 3)
    files = _remote_files(fs, root)
    index = json.loads(files.pop(PUBLISHED))["files"]
    assert files == {"joseki.sgf": b"(;GM[1])", "report/index.html": b"<html>", "prune.manifest.json": b"{}"}
    assert index == {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}

    (local / "joseki.sgf").write_bytes(b"(;GM[1];B[pd])")
    (local / "report" / "index.html").unlink()
    assert publish(local, f"memory://{root}", skip=(".joseki.lock",), leave_out=local / "interim") == (1, 2)
    files = _remote_files(fs, root)
    assert sorted(files) == [PUBLISHED, "joseki.sgf", "prune.manifest.json"]
    assert files["joseki.sgf"] == b"(;GM[1];B[pd])"
    assert publish(local, f"memory://{root}", skip=(".joseki.lock",), leave_out=local / "interim") == (0, 2)
    # the folder to leave out holds the published one (--work above --out): nothing of it is left out
    assert publish(local, f"memory://{root}", skip=(".joseki.lock",), leave_out=tmp_path) == (1, 3)
    assert "interim/games.parquet" in _remote_files(fs, root)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(OSError, match="no files"):  # never a publication that would remove everything
        publish(empty, f"memory://{root}")
    assert "joseki.sgf" in _remote_files(fs, root)


def test_a_publication_stopped_half_way_is_mended_by_the_next(tmp_path, monkeypatch):
    """The index of the last whole publication stays until the new one is
    whole; the next publication sends what the stopped one did not."""
    from joseki_miner.runs.remote import PUBLISHED, publish

    fs = fsspec.filesystem("memory")
    root = f"/tree-{tmp_path.name}"
    local = tmp_path / "out"
    local.mkdir()
    for name in ("a.sgf", "b.sgf", "c.sgf"):
        (local / name).write_bytes(b"old " + name.encode())
    publish(local, f"memory://{root}")
    before = fs.cat_file(f"{root}/{PUBLISHED}")
    for name in ("a.sgf", "b.sgf", "c.sgf"):
        (local / name).write_bytes(b"new " + name.encode())
    put = type(fs).put_file
    sent = []

    def failing(self, lpath, rpath, **kw):
        if len(sent) == 1:
            raise OSError("connection reset")
        sent.append(rpath)
        return put(self, lpath, rpath, **kw)

    monkeypatch.setattr(type(fs), "put_file", failing)
    with pytest.raises(OSError):
        publish(local, f"memory://{root}")
    assert fs.cat_file(f"{root}/{PUBLISHED}") == before
    monkeypatch.setattr(type(fs), "put_file", put)
    assert publish(local, f"memory://{root}") == (3, 3)
    assert {n: fs.cat_file(f"{root}/{n}") for n in ("a.sgf", "b.sgf", "c.sgf")} == {
        n: b"new " + n.encode() for n in ("a.sgf", "b.sgf", "c.sgf")
    }


def test_mine_publishes_the_tree_to_an_output_url(demo_games, tmp_path, monkeypatch):
    """`joseki mine --out URL`: the tree is written to a local copy
    (data/published/<the URL>) and published; the URL then holds the files
    a local output folder holds, and a second run with another threshold
    sends only the files that changed."""
    from typer.testing import CliRunner

    from joseki_miner.runs.remote import PUBLISHED
    from pipeline.cli import app

    monkeypatch.chdir(tmp_path)
    fs = fsspec.filesystem("memory")
    url = f"memory://tree-{tmp_path.name}/joseki"
    done = CliRunner().invoke(app, ["mine", str(demo_games), "--out", url, "--jobs", "1"])
    assert done.exit_code == 0, done.output
    assert f"outputs in {url}" in done.output and "published to" in done.output
    local = CliRunner().invoke(
        app, ["mine", str(demo_games), "--out", str(tmp_path / "local"), "--jobs", "1", "--quiet"]
    )
    assert local.exit_code == 0, local.output
    root = url[len("memory://") :].rstrip("/")
    published = _remote_files(fs, f"/{root}")
    index = json.loads(published.pop(PUBLISHED))["files"]
    kept = {
        str(p.relative_to(tmp_path / "local")): p.read_bytes()
        for p in (tmp_path / "local").rglob("*")
        if p.is_file() and "interim" not in p.parts and p.name != ".joseki.lock"
    }
    assert sorted(published) == sorted(kept) == sorted(index)
    for name in ("joseki.sgf", "joseki.dot", "report/index.html"):
        assert published[name] == kept[name]
    assert (tmp_path / "data" / "published").is_dir()  # the local copy, and its work folder

    again = CliRunner().invoke(
        app, ["mine", str(demo_games), "--out", url, "--jobs", "1", "--set", "prune.min_count=12"]
    )
    assert again.exit_code == 0, again.output
    line = next(s for s in again.output.splitlines() if s.startswith("published to"))
    sent, files = (int(x) for x in line.split(": ")[1].split(" files")[0].split(" of "))
    assert 0 < sent < files


def test_an_output_url_that_takes_no_files_fails_the_run_in_one_line(demo_games, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from pipeline.cli import app

    pytest.importorskip("aiohttp", reason="fsspec's http needs aiohttp (make setup installs it)")
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(
        app, ["mine", str(demo_games), "--out", "http://127.0.0.1:9/joseki", "--quiet", "--jobs", "1"]
    )
    assert done.exit_code == 1
    assert done.output.strip().splitlines() == [done.output.strip().splitlines()[-1]]
    assert done.output.startswith("joseki: could not publish")
    bad = CliRunner().invoke(app, ["mine", str(demo_games), "--out", "nosuchprotocol://x/y", "--quiet"])
    assert (
        bad.exit_code == 2
        and bad.output.startswith("joseki: --out nosuchprotocol://x/y")
        and "Traceback" not in bad.output
    )
