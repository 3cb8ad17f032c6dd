"""Stage 5, emit: joseki.parquet (with node_years, node_sources and
node_examples.parquet) -> joseki.sgf, joseki.dot, influence.dot (and their SVG
renderings when Graphviz's ``dot`` is installed)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from joseki_miner.book.emit import influence_dot, to_dot, to_sgf
from joseki_miner.book.files import BookFiles, load_book, of_run, render_svg, svg_skipped
from joseki_miner.runs.context import Context
from joseki_miner.runs.progress import bar
from joseki_miner.runs.store import staged


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def run(context: Context) -> dict:
    """The emit stage: the pruned tree as SGF and DOT (and SVG)."""
    c, config = context.catalog, context.config
    return write(of_run(context), staged(c.sgf), staged(c.dot), staged(c.influence_dot), share=config.influence_share,
                 min_length=config.min_length, counters=config.emit_counters,
                 svg_paths=(staged(c.svg), staged(c.influence_svg)), progress=context.options.progress)


def write(files: BookFiles, sgf_path: Path, dot_path: Path, influence_path: Path, *, share: float, min_length: int,
          counters: bool = False, svg_paths: tuple[Path, Path] | None = None, progress: bool = False) -> dict:
    """Write the tree's SGF and DOT files, and their SVG renderings at
    ``svg_paths`` (default: beside the DOT files) where Graphviz is and
    the tree is small enough to draw in seconds (``svg_skipped``)."""
    book = load_book(files, share=share, min_length=min_length)
    svg_paths = svg_paths or (dot_path.with_suffix(".svg"), influence_path.with_suffix(".svg"))
    skipped = svg_skipped(len(book.cols["node"]))
    with bar(progress, total=3 if skipped else 5, desc="emit", unit=" files", leave=False) as shown:
        _write(sgf_path, to_sgf(book, counters=counters))
        shown.update(1)
        dots = (to_dot(book, title="joseki"), influence_dot(book, share=share, title="influence"))
        for text, path in zip(dots, (dot_path, influence_path)):
            _write(path, text)
            shown.update(1)
        rendered = []
        if not skipped:  # the two drawings at once: Graphviz runs in processes of its own
            with ThreadPoolExecutor(max_workers=2, thread_name_prefix="dot") as pool:
                for done in pool.map(render_svg, dots, svg_paths):
                    rendered.append(done)
                    shown.update(1)
    return {"svg_rendered": sum(rendered), **({"svg_skipped": skipped} if skipped else {})}
