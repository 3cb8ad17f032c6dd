"""Game collections at fsspec URLs (``http(s)://``, ``s3://`` with s3fs,
``gs://`` with gcsfs, ``file://``): fetched into a mirror in the work
folder, which the run then reads like any folder.  A file is fetched again
only when what the server says of it (size, ETag, modification time)
changes, so a later run (``--add``) fetches only what is new; files gone
from the server go from the mirror.

An output folder at a URL (``publish``): the run writes a local copy as it
writes any output folder, and publishes it when it ends; only the files
that changed are sent, and ``.published.json``, sent last, names every
file of the publication with its SHA-256."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

STATE = ".fetched.json"
PUBLISHED = ".published.json"  # at an output URL: the files of the last whole publication, with their SHA-256
VOLATILE = ("name", "url", "type", "mimetype")  # what ``info`` says that is not the file's identity


def is_url(path: str | os.PathLike) -> bool:
    return re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", str(path)) is not None


def mirror_of(url: str, folder: Path) -> Path:
    """Where ``url`` is mirrored: ``folder``/protocol/host/path, each part
    kept readable (the collections are named after it)."""
    parts = urlsplit(url)
    name = [
        re.sub(r"[^\w.@:+-]", "_", p)
        for p in [parts.scheme, parts.netloc, *parts.path.split("/")]
        if p not in ("", ".", "..")
    ]  # never above ``folder``
    if parts.query:
        name[-1] += "_" + hashlib.sha256(parts.query.encode()).hexdigest()[:8]
    return folder.joinpath(*name)


def _identity(info: dict) -> str:
    return json.dumps({k: v for k, v in sorted(info.items()) if k not in VOLATILE}, sort_keys=True, default=str)


def fetch(url: str, folder: Path, on_fetched=lambda fetched, files: None) -> Path:
    """The local path to read for ``url``: a ``file://`` URL's own path, or
    the mirror of a remote file or folder, brought up to date
    (``on_fetched`` hears how many files were fetched, of how many)."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(url)
    protocols = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
    if "file" in protocols:
        return Path(root)
    local = mirror_of(url, folder)
    if fs.isdir(root):
        base = root.rstrip("/") + "/"
        listing = fs.find(base, detail=True)
        files = {
            name[len(base) :] if name.startswith(base) else name.rsplit("/", 1)[-1]: info
            for name, info in listing.items()
        }
    else:
        files = {"": fs.info(root)}
    state_path = local.parent / (local.name + STATE)
    try:
        known = json.loads(state_path.read_text())
    except (OSError, ValueError):
        known = {}
    state, todo = {}, []
    for rel, info in sorted(files.items()):
        path = local / rel if rel else local
        state[rel] = _identity(info)
        if known.get(rel) != state[rel] or not path.is_file():
            todo.append(rel)
    if todo:  # at once: an async file system (http) fetches them side by side
        tmps = [(local / rel if rel else local) for rel in todo]
        for path in tmps:
            path.parent.mkdir(parents=True, exist_ok=True)
        fs.get(
            [f"{root.rstrip('/')}/{rel}" if rel else root for rel in todo],
            [str(p.with_name(p.name + ".tmp")) for p in tmps],
        )
        for path in tmps:
            os.replace(path.with_name(path.name + ".tmp"), path)
    on_fetched(len(todo), len(files))
    if local.is_dir():
        wanted = {local / rel for rel in files}
        for path in sorted(local.rglob("*"), reverse=True):
            if path.is_file() and path not in wanted:
                path.unlink()
    state_path.parent.mkdir(parents=True, exist_ok=True)
    state_path.write_text(json.dumps(state, sort_keys=True))
    return local


def local_root(url: str) -> Path | None:
    """The local folder of a ``file://`` URL (None for any other URL)."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(url)
    protocols = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
    return Path(root) if "file" in protocols else None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def publish(folder: Path, url: str, skip: tuple[str, ...] = (), leave_out: Path | None = None) -> tuple[int, int]:
    """Make ``url`` hold the files of ``folder`` (names in ``skip``, the
    folder ``leave_out`` and temporary files left out): the files whose content the last publication
    did not hold are sent (the stages' files before their manifests and
    summary.json), the files it held and this one does not are removed, and
    ``.published.json`` is written last.  A publication stopped half way
    leaves the last whole one's ``.published.json``: a reader that checks
    the digests sees which files are not yet those it names, and the next
    publication sends them again.  Returns (files sent, files published)."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(url)
    root = root.rstrip("/")
    away = os.path.realpath(leave_out) if leave_out is not None else None
    here = os.path.realpath(folder)
    if away is not None and (away == here or here.startswith(away + os.sep)):
        away = None  # the folder itself lies in the one to leave out: leave out nothing of it
    files = {
        path.relative_to(folder).as_posix(): _sha256(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        and path.name not in skip
        and not path.name.endswith(".tmp")
        and not (away and os.path.realpath(path).startswith(away + os.sep))
    }
    if not files:
        raise OSError(f"{folder} holds no files to publish")  # never an empty publication: it would remove all
    try:
        last = json.loads(fs.cat_file(f"{root}/{PUBLISHED}"))
    except (FileNotFoundError, ValueError):
        last = {}
    last = last.get("files", {}) if isinstance(last, dict) else {}
    todo = sorted(
        (rel for rel, digest in files.items() if last.get(rel) != digest),
        key=lambda rel: (rel.endswith(".manifest.json") or rel == "summary.json", rel),
    )
    for rel in todo:
        parent = f"{root}/{rel}".rsplit("/", 1)[0]
        try:  # what has folders needs them; an object store has none, and may refuse to make a bucket
            fs.makedirs(parent, exist_ok=True)
        except Exception:  # noqa: BLE001 - the put that follows says what is wrong, if anything is
            pass
        fs.put_file(str(folder / rel), f"{root}/{rel}")
    for rel in sorted(set(last) - set(files)):
        try:
            fs.rm_file(f"{root}/{rel}")
        except FileNotFoundError:
            pass
    fs.pipe_file(f"{root}/{PUBLISHED}", (json.dumps({"files": files}, indent=1, sort_keys=True) + "\n").encode())
    return len(todo), len(files)
