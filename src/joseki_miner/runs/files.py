"""The files of a run's inputs: one walk of the paths given, kept for
every pass over them (the input digests, the index pre-pass, the readers).

Knows folders, links and file stats; nothing of games.  Light on purpose:
a run whose stages are all up to date walks its inputs and imports little
else.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from joseki_miner.runs.store import is_marked

SkipHook = Callable[[str, str, str], None]  # (source, location, why): a file or member that holds no game
NOT_REGULAR = "not a regular file (a FIFO, socket or device: never opened)"
OWN_FOLDER = "output folder of joseki-miner (never read as games)"
BATCH = 4096  # files a list of ``walk_batches``


class Found(NamedTuple):
    """A file of the inputs as the walk met it: its path (as given, or
    under a folder given), its stat identity (``identity``, following
    links; None where it could not be looked at) and its path with every
    link resolved."""

    path: str
    identity: tuple[int, int, int, int, int] | None
    real: str


def identity(st: os.stat_result) -> tuple[int, int, int, int, int]:
    """What tells a file's content changed, as git's index keeps it:
    device, inode, size, modification and change times (ns)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def walk(
    paths: Iterable[str | os.PathLike], on_skip: SkipHook | None = None, exclude: Iterable[str | os.PathLike] = ()
) -> Iterator[Found]:
    """Every regular file under the given paths, folders walked recursively
    in a fixed (sorted) order so runs are deterministic (a folder's files,
    then its folders); a file met twice is given once.  Anything else met
    (a FIFO, a socket, a device) is never opened (a FIFO would block the run
    forever): ``on_skip`` hears of it as "not a regular file".  Folders in
    ``exclude`` and joseki-miner's own work and output folders (marked by
    their lock file) are not entered: ``on_skip`` hears of each as "output
    folder of joseki-miner", so a run never reads its own outputs as games.
    A link to a folder inside a folder given is not followed.  A path that
    cannot be looked at is given as it is (reading it then says why)."""
    for batch in walk_batches(paths, on_skip, exclude):
        yield from batch


def walk_batches(
    paths: Iterable[str | os.PathLike], on_skip: SkipHook | None = None, exclude: Iterable[str | os.PathLike] = ()
) -> Iterator[list[Found]]:
    """``walk``'s files a list at a time (up to ``BATCH``, never across
    folders): one ``scandir`` a folder and one ``stat`` a file, and a
    folder's links resolved once for all its files, so a folder of a million
    small games is walked at the speed of the file system, not of Python's
    path objects and generators."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = list(paths)
    # one folder given: no file can be met twice (links to folders are not followed)
    walking = _Walk(on_skip, {os.path.realpath(e) for e in exclude}, overlap=len(paths) > 1)
    for raw in paths:
        yield from walking.given(str(Path(raw)))  # as the readers name sources: "./games/" is "games"


class _Walk:
    """One walk of the inputs: the folders it must not enter (``excluded``,
    by real path), the files it met where one could be met twice (when
    several paths are given: ``overlap``), and who hears of what it skips."""

    __slots__ = ("on_skip", "excluded", "overlap", "seen")

    def __init__(self, on_skip: SkipHook | None, excluded: set[str], overlap: bool) -> None:
        self.on_skip = on_skip
        self.excluded = excluded
        self.overlap = overlap
        self.seen: set[str] = set()

    def own(self, folder: str, real: str) -> bool:
        """Is ``folder`` one not to enter (excluded, or joseki-miner's own)?
        ``on_skip`` hears of it."""
        if real in self.excluded or is_marked(folder):
            if self.on_skip is not None:
                self.on_skip(folder, "", OWN_FOLDER)
            return True
        return False

    def kept(self, path: str, st: os.stat_result | None) -> bool:
        """Is ``path`` given on (a regular file, or one that cannot be looked
        at)?  ``on_skip`` hears of a FIFO, socket or device."""
        if st is None or stat.S_ISREG(st.st_mode):
            return True
        if self.on_skip is not None:
            self.on_skip(path, "", NOT_REGULAR)
        return False

    def given(self, path: str) -> Iterator[list[Found]]:
        """A path given: a folder walked, a file given once, as it is."""
        if os.path.isdir(path):
            real = os.path.realpath(path)
            if not self.own(path, real):
                yield from self.folder(path, real)
            return
        key = os.path.abspath(path)
        if key in self.seen:
            return
        self.seen.add(key)
        try:
            st = os.stat(path)
        except OSError:
            st = None
        if self.kept(path, st):
            yield [Found(path, None if st is None else identity(st), os.path.realpath(path))]

    def folder(self, top: str, real: str) -> Iterator[list[Found]]:
        """A folder's files, then its folders' (not links to them), each in
        order of name; ``real``: its path with every link resolved."""
        try:
            with os.scandir(top) as listed:
                named = {entry.name: entry for entry in listed}
        except OSError:
            return
        real_in = real.rstrip("/") + "/"
        below = yield from self._files(top, real_in, named)
        for entry in below:
            inner = real_in + entry.name
            if not self.own(entry.path, inner):
                yield from self.folder(entry.path, inner)

    def _files(self, top: str, real_in: str, named: dict[str, os.DirEntry]) -> Generator[list[Found], None, list]:
        """The files of a folder listed (``named``), a batch at a time;
        returns its folders to walk.  The loop of a walk over many files:
        one ``stat`` a file and paths joined by hand (``os.path.join`` is
        a third of the walk)."""
        seen = self.seen if self.overlap else None
        absolute = os.path.abspath(top).rstrip("/") + "/"
        below = []
        batch: list[Found] = []
        for name in sorted(named):
            entry = named[name]
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if not entry.is_symlink():
                    below.append(entry)
                else:  # never entered; said where it is the run's own
                    self.own(entry.path, os.path.realpath(entry.path))
                continue
            if seen is not None:
                key = absolute + name
                if key in seen:
                    continue
                seen.add(key)
            try:
                st = entry.stat()
            except OSError:
                st = None
            if st is None:
                batch.append(Found(entry.path, None, real_in + name))
            elif stat.S_ISREG(st.st_mode) or self.kept(entry.path, st):
                batch.append(
                    Found(
                        entry.path,
                        (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns),
                        os.path.realpath(entry.path) if entry.is_symlink() else real_in + name,
                    )
                )
                if len(batch) >= BATCH:
                    yield batch
                    batch = []
        if batch:
            yield batch
        return below


class FilePath(str):
    """A file's path as text that answers ``.name`` as a ``Path`` does:
    what the readers ask of the files walked.  Making a ``Path`` of each
    cost 8 us a file here, a tenth of reading a folder of small games."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self[self.rfind("/") + 1 :]


class Walked(NamedTuple):
    """A walk of the inputs done once, for every pass over them: the files
    met, and what was skipped, as ``on_skip`` heard it (source, why)."""

    files: list[Found]
    skipped: list[tuple[str, str]]

    def replay(self, on_skip: SkipHook | None) -> list[FilePath]:
        """The files' paths, telling ``on_skip`` what the walk skipped."""
        if on_skip is not None:
            for source, why in self.skipped:
                on_skip(source, "", why)
        return [FilePath(f.path) for f in self.files]


def walked(paths: Iterable[str | os.PathLike], exclude: Iterable[str | os.PathLike] = ()) -> Walked:
    """``walk`` done once and kept (``existing_files`` checks the paths)."""
    skipped: list[tuple[str, str]] = []
    files = list(walk(paths, lambda source, location, why: skipped.append((source, why)), exclude))
    return Walked(files, skipped)


__all__ = [
    "Found",
    "identity",
    "FilePath",
    "Walked",
    "walk",
    "walk_batches",
    "walked",
    "SkipHook",
    "NOT_REGULAR",
    "OWN_FOLDER",
]
