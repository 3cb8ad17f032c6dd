"""Stage 5, emit: joseki.parquet (with node_years, node_sources and
node_examples.parquet; sorted_sequences and games.parquet for each node's
games by year and collection) -> joseki.sgf, joseki.dot, influence.dot (and
their SVG renderings when Graphviz's ``dot`` is installed)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from joseki_miner.book.emit import influence_dot, to_dot, to_sgf
from joseki_miner.book.files import load_book, of_run, render_svg, svg_skipped
from joseki_miner.runs.context import Context
from joseki_miner.runs.progress import bar
from joseki_miner.runs.store import staged


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def run(context: Context) -> dict:
    """The emit stage: the pruned tree's SGF and DOT files, and their SVG
    renderings where Graphviz is and the tree is small enough to draw in
    seconds (``svg_skipped``)."""
    c, settings = context.catalog, context.settings
    share, counters = settings.influence_share, settings.emit_counters
    sgf_path, dot_path, influence_path = staged(c.sgf), staged(c.dot), staged(c.influence_dot)
    svg_paths = staged(c.svg), staged(c.influence_svg)
    book = load_book(of_run(context), share=share, min_length=settings.min_length)
    skipped = svg_skipped(len(book.cols["node"]))
    with bar(context.options.progress, total=3 if skipped else 5, desc="emit", unit=" files", leave=False) as shown:
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
