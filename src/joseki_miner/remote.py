"""Game collections at fsspec URLs (``http(s)://``, ``s3://`` with s3fs,
``gs://`` with gcsfs, ``file://``): fetched into a mirror in the work
folder, which the run then reads like any folder.  A file is fetched again
only when what the server says of it (size, ETag, modification time)
changes, so a later run (``--add``) fetches only what is new; files gone
from the server go from the mirror."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

STATE = ".fetched.json"
VOLATILE = ("name", "url", "type", "mimetype")  # what ``info`` says that is not the file's identity


def is_url(path: str | os.PathLike) -> bool:
    return re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", str(path)) is not None


def mirror_of(url: str, folder: Path) -> Path:
    """Where ``url`` is mirrored: ``folder``/protocol/host/path, each part
    kept readable (the collections are named after it)."""
    parts = urlsplit(url)
    name = [re.sub(r"[^\w.@:+-]", "_", p) for p in [parts.scheme, parts.netloc, *parts.path.split("/")] if p]
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
        files = {name[len(base):] if name.startswith(base) else name.rsplit("/", 1)[-1]: info
                 for name, info in listing.items()}
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
        fs.get([f"{root.rstrip('/')}/{rel}" if rel else root for rel in todo],
               [str(p.with_name(p.name + ".tmp")) for p in tmps])
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
