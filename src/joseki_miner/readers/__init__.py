"""Readers: game collections on disk -> ``GameRecord`` or ``Reject``.

Every game a reader meets comes out as exactly one of the two, so a run can
always say games read = games accepted + games rejected.  Readers know file
formats and nothing of the method.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..records import GameRecord, Reject
from .sgf import read_sgf_bytes

SGF_SUFFIXES = {".sgf", ".mgt"}


def iter_files(paths: Iterable[str | os.PathLike]) -> Iterator[Path]:
    """Every file under the given paths, folders walked recursively in a
    fixed (sorted) order so runs are deterministic."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    yield Path(root) / name
        else:
            yield path


def read_paths(paths: Iterable[str | os.PathLike]) -> Iterator[GameRecord | Reject]:
    """Every game found under ``paths``, in a deterministic order."""
    for path in iter_files(paths):
        if path.suffix.lower() in SGF_SUFFIXES:
            yield from read_sgf_bytes(path.read_bytes(), str(path))
