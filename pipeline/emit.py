"""Stage 5, emit: joseki.parquet -> joseki.sgf, joseki.dot, influence.dot
(and their SVG renderings when Graphviz's ``dot`` is installed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq

from joseki_miner import emit as method


def render_svg(dot_text: str, svg_path: Path) -> bool:
    """Render DOT text to ``svg_path``; False when ``dot`` is missing.
    Rendered through a pipe: no file but the one given is written."""
    if shutil.which("dot") is None:
        return False
    import graphviz  # imported here: only needed when rendering

    svg_path.write_bytes(graphviz.Source(dot_text).pipe(format="svg"))
    return True


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def run(joseki_path: Path, sgf_path: Path, dot_path: Path, influence_path: Path, *, share: float, title: str,
        svg_paths: tuple[Path, Path] | None = None) -> dict:
    """Write the tree's SGF and DOT files, and their SVG renderings at
    ``svg_paths`` (default: beside the DOT files) where Graphviz is."""
    table = pq.ParquetFile(joseki_path).read()  # an Arrow table: no pandas to import
    svg_paths = svg_paths or (dot_path.with_suffix(".svg"), influence_path.with_suffix(".svg"))
    dots = (method.to_dot(table, title="joseki"), method.influence_dot(table, share=share, title="influence"))
    _write(sgf_path, method.to_sgf(table, share=share, title=title))
    _write(dot_path, dots[0])
    _write(influence_path, dots[1])
    rendered = [render_svg(text, svg) for text, svg in zip(dots, svg_paths)]
    return {"svg_rendered": sum(rendered)}
