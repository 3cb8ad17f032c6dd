"""A run's folders: locked while it runs, cleaned of what a stopped run
left, fetched from and published to URLs."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from joseki_miner.runs import remote, store
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.errors import PublishError, UsageError


def locks(catalog: Catalog, wait: bool, log: Callable[[str], None], command: str) -> list[store.FolderLock]:
    """The locks of the run's folders, taken in a fixed order (no two runs
    can each wait for the other)."""
    holder = store.holder_text(command)
    folders = sorted({os.path.realpath(catalog.work), os.path.realpath(catalog.out)})
    taken: list[store.FolderLock] = []
    try:
        for folder in folders:
            lock = store.FolderLock(Path(folder), holder)
            lock.acquire(wait=wait, on_wait=log)
            taken.append(lock)
    except BaseException:  # another run's lock (``store.Busy``: exit 2), a stop while waiting
        for lock in taken:
            lock.release()
        raise
    return taken


def clean(catalog: Catalog) -> None:
    """Remove what a stopped or failed run left: staged files, spilled runs,
    the where-log, unlinked-at-birth table files caught before unlinking,
    half-written partitions (a stopped run's, a killed worker's)."""
    store.remove_staged(
        [p for stage in catalog.names for p in catalog.outputs(stage)]
        + [catalog.manifest(stage) for stage in catalog.names]
        + [catalog.summary, catalog.digests]
    )
    for path in catalog.scratch():
        store.remove(path)
    for path in catalog.work.glob("table-*.mapped"):
        path.unlink(missing_ok=True)
    store.remove_unfinished(catalog.partitions)


def fetched(url: str, catalog: Catalog, log: Callable[[str], None]) -> Path:
    """The mirror of a collection at an fsspec URL, brought up to date."""
    try:
        return remote.fetch(
            str(url),
            catalog.work / "fetched",
            on_fetched=lambda n, files: log(f"{url}: {n:,} of its {files:,} files fetched"),
        )
    except ImportError as exc:
        raise UsageError(f"cannot read {url}: {exc} (install the fsspec package for its protocol)") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot fetch {url}: {exc}") from None


def publish(catalog: Catalog, log: Callable[[str], None]) -> None:
    """The output folder's local copy sent to its URL (``remote.publish``),
    the work folder and the lock left out; PublishError if it cannot be."""
    try:
        sent, files = remote.publish(catalog.out, catalog.publish, skip=(store.LOCK_NAME,), leave_out=catalog.work)
    except Exception as exc:  # noqa: BLE001 - fsspec's file systems raise their own kinds
        why = " ".join(str(exc).split()) or type(exc).__name__
        raise PublishError(f"could not publish {catalog.out} to {catalog.publish}: {why}") from None
    log(f"published to {catalog.publish}: {sent} of {files} files sent")
