"""Stage 5, emit: joseki.parquet (with node_years, node_sources and
node_examples.parquet) -> joseki.sgf, joseki.dot, influence.dot (and their SVG
renderings when Graphviz's ``dot`` is installed)."""

from __future__ import annotations

from pathlib import Path

from joseki_miner.book import emit as method
from joseki_miner.book.files import BookFiles, load_book, render_svg


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def run(files: BookFiles, sgf_path: Path, dot_path: Path, influence_path: Path, *, share: float, min_length: int,
        counters: bool = False, svg_paths: tuple[Path, Path] | None = None) -> dict:
    """Write the tree's SGF and DOT files, and their SVG renderings at
    ``svg_paths`` (default: beside the DOT files) where Graphviz is."""
    book = load_book(files, share=share, min_length=min_length)
    svg_paths = svg_paths or (dot_path.with_suffix(".svg"), influence_path.with_suffix(".svg"))
    dots = (method.to_dot(book, title="joseki"), method.influence_dot(book, share=share, title="influence"))
    _write(sgf_path, method.to_sgf(book, counters=counters))
    _write(dot_path, dots[0])
    _write(influence_path, dots[1])
    rendered = [render_svg(text, svg) for text, svg in zip(dots, svg_paths)]
    return {"svg_rendered": sum(rendered)}
