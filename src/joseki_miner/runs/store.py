"""The folders a run writes, kept trustworthy whatever stops the run.

Every file (or folder) a stage writes goes first to a temporary name beside
it (``staged``: NAME.tmp) and replaces the old one only once the stage has
finished (``commit``).  A stage's manifest is its commit record.  A commit

1. syncs the staged files to disk;
2. removes the manifests of the stages it commits, and syncs that;
3. renames the staged files into place (and removes files the stage no
   longer writes), and syncs the folders;
4. writes each new manifest (to a temporary name, synced, renamed, synced),
   naming every file of its stage with its size and modification time.

So whatever stops a run (an error, a signal, a kill, a power cut between two
renames), every stage is left either as it was, with its old manifest, or as
the run made it, with its new one, or without a manifest: the next run then
runs it again.  A manifest is trusted only while the files it names are those
it was written with (``intact``): a file deleted or edited by hand also makes
its stage run again.  Temporary names left by a killed run are removed by the
next one (``remove_staged``), under the lock.

``FolderLock`` keeps two runs out of the same folder; the lock file also
marks the folder as one of joseki-miner's, so it is never read as input.

``failpoint`` lets the crash tests kill the process at each step of a commit
(environment variable ``JOSEKI_FAILPOINT``); it does nothing otherwise.

Knows files and folders; nothing of Go or of the stages.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import shutil
import signal
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from joseki_miner.runs import stop
from joseki_miner.runs.errors import UsageError

TMP = ".tmp"
OLD = ".old"  # a folder output moved aside while its new version is renamed in
LOCK_NAME = ".joseki.lock"


def staged(path: Path) -> Path:
    """Where ``path`` is written before its stage commits."""
    return path.with_name(path.name + TMP)


def sync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_folder(folder: Path) -> None:
    """Make the folder's entries (renames, removals) durable."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:  # some file systems cannot sync a folder: nothing more to do there
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _sync_tree(path: Path) -> None:
    """Make a file, or a folder's files and entries, durable; a folder's
    files (the report's pages) synced by a few threads at once."""
    if not path.is_dir():
        sync_file(path)
        return
    files, folders = [], []
    for root, _, names in os.walk(path):
        files += [os.path.join(root, name) for name in names]
        folders.append(root)
    if len(files) > 8:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=4, thread_name_prefix="sync") as pool:
            list(pool.map(sync_file, files))
    else:
        for name in files:
            sync_file(name)
    for root in folders:
        sync_folder(Path(root))


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data``: either the old file or the whole new one
    is there after any stop."""
    tmp = staged(path)
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    sync_folder(path.parent)


def remove(path: Path) -> None:
    """Remove a file or a folder, if there."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def remove_unfinished(folder: Path, keep: set[str] | None = None) -> None:
    """Remove what ``folder`` holds half-written (``*.tmp``: a stopped
    run's, a killed worker's) and, given ``keep``, every entry not in it."""
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        if path.name.endswith(".tmp") or (keep is not None and path.name not in keep):
            remove(path)


def remove_staged(paths: Iterable[Path]) -> None:
    """Remove what a stopped run left under the temporary names of ``paths``."""
    for path in paths:
        remove(staged(path))
        remove(path.with_name(path.name + OLD))


# -- manifests -------------------------------------------------------------------


def identity(path: Path) -> list:
    """What a manifest records of a file: its size and modification time;
    of a folder, its files' names, sizes and times in one digest."""
    if path.is_dir():
        h = hashlib.sha256()
        files = 0
        top = str(path)
        cut = len(top) + 1
        for root, dirs, names in os.walk(top):
            dirs.sort()
            inside = root[cut:] + "/" if len(root) > len(top) else ""  # the path below ``path``, joined by hand
            for name in sorted(names):
                st = os.stat(root + "/" + name)
                h.update(f"{inside}{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
                files += 1
        return ["folder", files, h.hexdigest()[:16]]
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def read_manifest(path: Path) -> dict | None:
    """The manifest at ``path``, or None when there is none (or it cannot be read)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def intact(manifest: dict, folder: Path) -> bool:
    """Are the files the manifest names (relative to ``folder``) those it
    was written with?"""
    outputs = manifest.get("outputs")
    if not isinstance(outputs, dict):
        return False
    for name, recorded in outputs.items():
        path = folder / name
        try:
            if identity(path) != recorded:
                return False
        except OSError:
            return False
    return True


@dataclass
class StageRecord:
    """One stage to commit: its manifest (path and content), the files it
    wrote (each staged), and files of its earlier runs it no longer writes."""

    manifest: Path
    record: dict
    outputs: list[Path]
    gone: list[Path] = field(default_factory=list)


def commit(stages: list[StageRecord]) -> None:
    """Put the staged files of ``stages`` in place and write their manifests
    (module docstring: the order that survives any stop)."""
    folders = {s.manifest.parent for s in stages} | {p.parent for s in stages for p in s.outputs + s.gone}
    for s in stages:
        for path in s.outputs:
            _sync_tree(staged(path))
    failpoint("commit-synced")
    for s in stages:
        s.manifest.unlink(missing_ok=True)
    for folder in folders:
        sync_folder(folder)
    failpoint("commit-unrecorded")
    for s in stages:
        for path in s.outputs:
            new = staged(path)
            if path.exists() and (new.is_dir() or path.is_dir()):  # a folder replaced, or replacing a file
                aside = path.with_name(path.name + OLD)
                remove(aside)
                os.replace(path, aside)
                os.replace(new, path)
                remove(aside)
            else:
                os.replace(new, path)
            failpoint("commit-renamed")
        for path in s.gone:
            remove(path)
    for folder in folders:
        sync_folder(folder)
    for s in stages:
        outputs = {os.path.relpath(p, s.manifest.parent): identity(p) for p in s.outputs}
        text = json.dumps({**s.record, "outputs": outputs}, indent=2, sort_keys=True) + "\n"
        write_atomically(s.manifest, text.encode("utf-8"))
        failpoint("commit-recorded")


# -- the lock ---------------------------------------------------------------------


class Busy(UsageError):
    """Another run holds a folder's lock: the invocation cannot run now
    (exit 2; ``--wait`` waits instead)."""


class FolderLock:
    """An exclusive lock on a folder (``flock`` on its ``.joseki.lock``): the
    system releases it when the process ends, however it ends, so a killed
    run never leaves a folder locked.  The file names the holder."""

    def __init__(self, folder: Path, holder: str) -> None:
        self.folder, self.holder = folder, holder
        self.path = folder / LOCK_NAME
        self.fd: int | None = None

    def acquire(self, wait: bool = False, on_wait: Callable[[str], None] | None = None) -> None:
        """Take the lock; when another run holds it, raise ``Busy`` naming
        it, or with ``wait``, wait (a requested stop still ends the wait)."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                other = _holder(fd)
                if not wait:
                    os.close(fd)
                    raise Busy(
                        f"{self.folder} is in use by another run ({other}); wait for it to end, or pass --wait"
                    ) from None
                if not told and on_wait is not None:
                    on_wait(f"waiting for the run using {self.folder} ({other})")
                    told = True
                try:
                    stop.check()
                except stop.Stopped:
                    os.close(fd)
                    raise
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, (self.holder + "\n").encode("utf-8", "backslashreplace"), 0)
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            finally:
                os.close(self.fd)
                self.fd = None


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 1024, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return text or "holder unknown"


def holder_text(command: str) -> str:
    """How a lock names its holder: the process, its command and start."""
    return f"pid {os.getpid()}, {command}, since {time.strftime('%Y-%m-%d %H:%M:%S')}"


def is_marked(folder: str | os.PathLike) -> bool:
    """Is ``folder`` a work or output folder of joseki-miner?"""
    return os.path.isfile(os.path.join(folder, LOCK_NAME))


# -- crash tests ----------------------------------------------------------------------

_hits: dict[str, int] = {}


def failpoint(name: str) -> None:
    """Where ``JOSEKI_FAILPOINT`` is ``NAME@N``, the N-th time the run passes
    the point ``name``, kill the process (SIGKILL: as a power cut would stop
    it), or with ``NAME@N=enospc`` fail as a full disk would."""
    wanted = os.environ.get("JOSEKI_FAILPOINT")
    if not wanted:
        return
    spec, _, action = wanted.partition("=")
    point, _, nth = spec.partition("@")
    if point != name:
        return
    _hits[name] = _hits.get(name, 0) + 1
    if _hits[name] != int(nth or 1):
        return
    if action == "enospc":
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), name)
    os.kill(os.getpid(), signal.SIGKILL)
