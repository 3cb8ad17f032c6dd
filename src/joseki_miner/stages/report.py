"""Stage 6, report: the pruned tree and its statistics -> OUT/report/, a
joseki book in HTML (open report/index.html in a browser)."""

from __future__ import annotations

from pathlib import Path

from joseki_miner.book.files import BookFiles, figures, of_run, start, write
from joseki_miner.runs.context import Context
from joseki_miner.runs.store import staged


def run(context: Context) -> dict:
    """The report stage: every page of the joseki book."""
    return pages(
        of_run(context),
        staged(context.catalog.report),
        share=context.settings.influence_share,
        min_length=context.settings.min_length,
        progress=context.options.progress,
    )


def pages(files: BookFiles, folder: Path, *, share: float, min_length: int, progress: bool = False) -> dict:
    """Write every page of the report into ``folder`` (made anew)."""
    start(folder)
    return figures([write(files, folder, share=share, min_length=min_length, progress=progress)])
