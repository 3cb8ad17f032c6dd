"""What is checked before a run touches anything: its inputs, options and
folders.  Each failure is a ``UsageError``: one line and exit code 2."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from joseki_miner.runs import remote, store
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.errors import UsageError

ENGINES = ("fast", "reference", "dask")
MAX_JOBS = 1024


def check_options(engine: str, jobs: int | None, sort_memory: float, table_memory: float) -> int:
    """The engine known and the numbers in range; the number of jobs (0 or
    None: every core)."""
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")
    if jobs is not None and not 0 <= jobs <= MAX_JOBS:
        raise UsageError(f"--jobs must be between 1 and {MAX_JOBS} (0: every core)")
    if not sort_memory > 0:
        raise UsageError("--sort-memory must be a positive number of MB")
    if not table_memory >= 0:
        raise UsageError("--table-memory must be a number of MB, 0 or more")
    return jobs or os.cpu_count() or 1


def check_cwd() -> None:
    try:
        os.getcwd()
    except OSError:
        raise UsageError("the current folder no longer exists: change to one that does") from None


def check_paths(paths: Sequence[str | Path], own: Sequence[Path]) -> None:
    """Every input exists and none lies inside the run's own folders."""
    if not paths:
        raise UsageError("no game collection given")
    folders = [os.path.realpath(f) for f in own]
    for p in paths:
        if remote.is_url(p):
            continue
        if not os.path.lexists(p):
            raise UsageError(f"no such path: {p}")
        real = os.path.realpath(p)
        for folder in folders:
            if real == folder or real.startswith(folder + os.sep):
                raise UsageError(f"{p} is inside this run's own work or output folder: give the games, not the outputs")


def check_writable(*folders: Path) -> None:
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"output folder not writable: {folder} ({exc.strerror})") from exc
        if not os.access(folder, os.W_OK):
            raise UsageError(f"output folder not writable: {folder}")


def check_outputs(catalog: Catalog) -> None:
    """No output of the run's is in the way as something else: a folder
    where a file goes, a file where the report's folder goes (a dataset
    may be either)."""
    paths = [p for stage in catalog.names for p in catalog.outputs(stage)]
    paths += [catalog.manifest(stage) for stage in catalog.names] + [catalog.summary, catalog.digests]
    for path in paths:
        folder = path in catalog.folders()
        either = path in catalog.datasets()
        for candidate in (path, store.staged(path)):
            if candidate.exists() and ((candidate.is_dir() != folder and not either) or candidate.is_symlink()):
                what = "not a folder" if folder else "not a file (a folder?)"
                raise UsageError(f"cannot write {candidate}: something that is {what} is in the way")
