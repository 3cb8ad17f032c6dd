"""Stage 6, report: the pruned tree and its statistics -> OUT/report/, a
joseki book in HTML (open report/index.html in a browser).

The pages can be written in parts (``write``'s ``part``), each by a task of
its own (the dask engine): a part loads the book and writes every k-th
node's page; the pages are the same bytes whoever writes them."""

from __future__ import annotations

import shutil
from pathlib import Path

from joseki_miner import plots
from joseki_miner import report as method

from .emit import BookFiles, load_book


def run(files: BookFiles, folder: Path, *, share: float, min_length: int) -> dict:
    """Write every page of the report into ``folder`` (made anew)."""
    start(folder)
    return figures([write(files, folder, share=share, min_length=min_length)])


def start(folder: Path) -> None:
    """``folder`` made anew, empty."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)


def write(files: BookFiles, folder: Path, *, share: float, min_length: int, part: tuple[int, int] = (0, 1)) -> list[int]:
    """Write part ``part`` = (i, k) of the report's pages into ``folder``
    (``report.pages``); the sizes of the files written."""
    book = load_book(files, share=share, min_length=min_length)
    sizes = []
    for name, text in method.pages(book, plots.year_shares, part).items():
        data = text.encode("utf-8")
        (folder / name).write_bytes(data)
        sizes.append(len(data))
    return sizes


def figures(parts: list[list[int]]) -> dict:
    """The stage's figures from the sizes of the files of every part."""
    sizes = [size for part in parts for size in part]
    return {"report_pages": len(sizes) - 1, "report_bytes": sum(sizes), "report_largest_page_bytes": max(sizes)}
