"""Stage 6, report: the pruned tree and its statistics -> OUT/report/, a
joseki book in HTML (open report/index.html in a browser)."""

from __future__ import annotations

import shutil
from pathlib import Path

from joseki_miner import plots
from joseki_miner import report as method

from .emit import BookFiles, load_book


def run(files: BookFiles, folder: Path, *, share: float, min_length: int) -> dict:
    """Write every page of the report into ``folder`` (made anew)."""
    book = load_book(files, share=share, min_length=min_length)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    sizes = []
    for name, text in method.pages(book, plots.year_shares).items():
        data = text.encode("utf-8")
        (folder / name).write_bytes(data)
        sizes.append(len(data))
    return {"report_pages": len(sizes) - 1, "report_bytes": sum(sizes), "report_largest_page_bytes": max(sizes)}
