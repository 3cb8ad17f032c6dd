"""Stage 5, emit: joseki.parquet -> joseki.sgf, joseki.dot, influence.dot
(and their SVG renderings when Graphviz's ``dot`` is installed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq

from joseki_miner import emit as method


def render_svg(dot_path: Path) -> Path | None:
    """Render a DOT file to SVG beside it; None when ``dot`` is missing."""
    if shutil.which("dot") is None:
        return None
    import graphviz  # imported here: only needed when rendering

    svg = dot_path.with_suffix(".svg")
    graphviz.Source(dot_path.read_text(encoding="utf-8")).render(outfile=str(svg), format="svg", cleanup=True)
    return svg


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def run(joseki_path: Path, sgf_path: Path, dot_path: Path, influence_path: Path, *, share: float, title: str) -> dict:
    table = pq.ParquetFile(joseki_path).read()  # an Arrow table: no pandas to import
    _write(sgf_path, method.to_sgf(table, share=share, title=title))
    _write(dot_path, method.to_dot(table, title="joseki"))
    _write(influence_path, method.influence_dot(table, share=share, title="influence"))
    rendered = [str(p) for p in (render_svg(dot_path), render_svg(influence_path)) if p]
    return {"svg": rendered}
