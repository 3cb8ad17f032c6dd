"""The book's style sheet, ``style.css``, shared by every page: the
layout, the cards, the boards' SVG classes, and what a tree with kinds
adds (the fuseki section, each page's line saying what it is).  One file,
so that a page of any size carries no style of its own."""

from __future__ import annotations

from joseki_miner.book.words import Book


CSS = """\
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;margin:0 auto;
max-width:1100px;padding:0 16px 40px;background:#fafafa}
a{color:#1f5f8f;text-decoration:none}a:hover{text-decoration:underline}
h1{font-size:1.5em;margin:.6em 0 .2em}h2{font-size:1.15em;margin:1.4em 0 .4em}
.lead{color:#555;margin:.2em 0 1em}.crumbs{margin:.8em 0;font-size:.95em}
.headline{font-size:1.05em;font-weight:600;margin:.4em 0}
.layout{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}.side{flex:1;min-width:320px}
table{border-collapse:collapse;font-size:.92em;margin:.3em 0}
td,th{padding:3px 10px 3px 0;text-align:left;vertical-align:top;border-bottom:1px solid #e4e4e4}
td.n,th.n{text-align:right}
.cards{display:flex;flex-wrap:wrap;gap:14px}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px;width:190px;font-size:.85em}
.card .board{display:block;margin:0 auto 4px;max-width:100%;height:auto}
.notes{font-size:.85em;color:#444;margin:.2em 0}.record{font-size:.85em;color:#555;overflow-wrap:anywhere}
a.sgf{font-size:.8em;font-weight:600;border:1px solid #1f5f8f;border-radius:3px;padding:0 3px;margin-right:2px}
.band{display:inline-block;width:18px;height:6px;vertical-align:middle;border:1px solid #222;margin:0 2px}
.band.black{background:#1b1b1b}.band.white{background:#fff}.band.any{background:#999;border-color:#999}
svg.board .wood{fill:#e3b768}svg.board .grid{stroke:#5a4220;stroke-width:1;fill:none}
svg.board .edge{stroke:#3a2a10;stroke-width:2;fill:none}svg.board .hoshi{fill:#3a2a10}
svg.board .coord{font-size:11px;fill:#555;text-anchor:middle}
svg.board .stone.b circle{fill:#1b1b1b}svg.board .stone.w circle{fill:#fdfdfd;stroke:#222;stroke-width:1}
svg.board text{text-anchor:middle;font-family:system-ui,sans-serif}
svg.board .stone.b text{fill:#fff}svg.board .stone.w text{fill:#111}
svg.board .candidate circle{fill:#2f7d5b;fill-opacity:.85}svg.board .candidate text{fill:#fff;font-weight:600}
svg.board .played circle{stroke:#c0392b;stroke-width:2.5}svg.board .played.b circle{fill:#1b1b1b}
svg.board .played.w circle{fill:#fdfdfd}svg.board .played.b text{fill:#fff}svg.board .played.w text{fill:#111}
svg.board a:hover .candidate circle{fill:#c0392b}
svg.board .influence.black rect{fill:#1b1b1b}svg.board .influence.white rect{fill:#fff;stroke:#222}
svg.board .influence.any rect{fill:#999}
.plot svg{max-width:100%;height:auto}
.warning{background:#fff6e5;border:1px solid #e0b060;border-radius:6px;padding:4px 12px;margin:.6em 0}
footer{margin-top:3em;color:#777;font-size:.85em}
@media (max-width:640px){.layout{display:block}.side{min-width:0}svg.board{max-width:100%;height:auto}
.cards{gap:10px}.card{width:calc(50% - 23px)}
table.games,table.games tbody,table.games tr,table.games td{display:block}table.games tr:first-child{display:none}
table.games tr{border-bottom:1px solid #e4e4e4;padding:4px 0}table.games td{border:0;padding:1px 0}
table.games td::before{content:attr(data-label) ": ";color:#777}}
"""
# what a tree with kinds adds: the fuseki section's headings and cards, each page's line saying what it is
KIND_CSS = """\
h3{font-size:1.02em;margin:1.1em 0 .4em}.kind{margin:.2em 0;font-weight:600}
.kind.enclosure,.kind.extension,.kind.approach{color:#8a4b08}
.card.enclosure,.card.extension,.card.approach{background:#fbf6ee}.kind.follow-up{color:#4b5f8a}
.later{margin-top:4px;font-size:.95em}.later ul{margin:2px 0 0;padding-left:16px}.pager{margin:.6em 0}
"""


def style_sheet(book: Book) -> str:
    """``style.css`` for ``book``: the kinds' rules where the tree has kinds."""
    return CSS + (KIND_CSS if book.labelled else "")
