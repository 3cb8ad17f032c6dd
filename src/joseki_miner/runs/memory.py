"""This process's memory, for the manifests: what a run holds when reading
ends, against its transient peaks."""

from __future__ import annotations

import os
import resource
from pathlib import Path


def peak_rss_mib() -> float:
    """This process's peak resident memory so far (MiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def rss_mib() -> float | None:
    """This process's resident memory now (MiB; Linux only)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
