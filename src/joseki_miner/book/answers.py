"""The query commands' answers as a player reads them: lookup, games,
trend, compare and repertoire in lines of text, every move a board point
(Q16, tenuki) and every date in ISO's form.  Lines in the tree's form (the
corner upper left, its first player Black) say so; a lookup, games and
trend answer in the orientation the player asked in.

Knows the answers' dicts and tables; nothing of files."""

from __future__ import annotations

from joseki_miner.book.words import counted, percent, start_text, year_span
from joseki_miner.method.gameinfo import date_text, wilson

TREE_FORM = "the tree's form: the corner upper left, its first player Black"


def rate(black: int, white: int) -> str:
    """The first player's win rate of the games with a winner, with its 95% interval."""
    decided = black + white
    if not decided:
        return "no game with a winner"
    low, high = wilson(black, decided)
    return f"{100 * black / decided:.1f}% ({100 * low:.1f}-{100 * high:.1f}%) of {decided:,}"


def short(name: str) -> str:
    """A collection as a player names it: the last part of its path."""
    return name.rstrip("/").rsplit("/", 1)[-1]


def lookup_text(found: dict) -> str:
    first = "White" if found["first_player"] == "white" else "Black"
    span = f", {year_span(found['first_year'], found['last_year'])}" if found["first_year"] else ""
    kind = f"; {found['kind']}" if "kind" in found else ""
    lines = [
        f"{found['board']}  (in {TREE_FORM}: {found['normal_board']}{kind})",
        f"{counted(found['count'], 'sequence')} in {counted(found['games'], 'game')}{span}"
        + (f", most popular in {found['most_popular']}" if found.get("most_popular") else "")
        + (
            ", within collections" if found.get("most_popular") and found.get("most_popular_within_collections") else ""
        ),
        f"the first to play here ({first} in this sequence) wins {rate(found['black_wins'], found['white_wins'])}"
        + {0: "", 1: " game with a winner"}.get(found["black_wins"] + found["white_wins"], " games with a winner"),
    ]
    if found["sources"]:
        lines.append("collections: " + " · ".join(f"{short(name)} {n:,}" for name, n in found["sources"].items()))
    conts = found["continuations"]
    lines.append(
        f"continuations ({len(conts)} stored; {found['ended_or_rarer']:,} sequences end here or go on "
        "in lines played once; share: of the sequences here):"
    )
    kinds = any("kind" in c for c in conts)
    if conts:
        lines.append(
            f"  {'move':<8} {'count':>8} {'share':>7} {'games':>8}   {'first player wins':<28} last year"
            + ("  kind" if kinds else "")
        )
    for c in conts:
        line = (
            f"  {c['board']:<8} {c['count']:>8,} {100 * c['share']:>6.1f}% {c['games']:>8,}   "
            f"{rate(c['black_wins'], c['white_wins']):<28} "
        )
        lines.append(
            line + (f"{str(c['last_year'] or ''):<9}  {c.get('kind', '')}" if kinds else f"{c['last_year'] or ''}")
        )
    return "\n".join(lines)


def person(row: dict, colour: str) -> str:
    """A game's player: "Lee Sedol 9p", "?" where the record names nobody."""
    name, rank = (row.get(f"P{colour}") or "").strip(), (row.get(f"{colour}R") or "").strip()
    return f"{name or '?'} {rank}".strip()


def game_line(row: dict) -> str:
    """One game of ``joseki games``: its date, Black and White, result,
    where the sequence starts, and where the game was read."""
    where = f"{row['source']}:{row['location']}" if row["location"] else row["source"]
    date = date_text(row["DT"] or "") or "no date"
    return (
        f"  {date:<10}  Black {person(row, 'B')}, White {person(row, 'W')}, {row['RE'] or 'no result'}; "
        f"{start_text(row['move'])}, {row['corner']}  ({where})"
    )


def games_text(sequence: str, rows: list[dict], total: int) -> str:
    head = f"{counted(total, 'game')} start{'s' if total == 1 else ''} {sequence} in a corner" + (
        f"; the {len(rows):,} most recent:" if len(rows) < total else ":" if total else "."
    )
    return "\n".join([head, *map(game_line, rows)])


HELD_NOTE = (
    "* a year whose games are {:.0%} or more one collection's: its share is that collection's more than the "
    "year's; 'within' holds the collections apart (each collection's share that year, weighed by its share "
    "of all the games)"
)


def _held(r: dict) -> str:
    return f"* {short(r['held_by'])} {100 * r['held_share']:.0f}%" if r.get("held_by") else ""


def _percent(x: float | None, digits: int = 2) -> str:
    return f"{100 * x:.{digits}f}%" if x is not None else ""


def trend_text(sequence: str, rows: list[dict], by_collection: bool, peak: int | None = None) -> str:
    """``joseki trend``: a line a year (a cell a collection, with
    ``by_collection``), the years mostly one collection's marked, and the
    year most popular within collections (``peak``)."""
    from joseki_miner.book.strata import HELD

    lines = [f"{sequence}: its share of each year's games"]
    if not by_collection:
        lines.append(f"  {'year':<6} {'games':>8} {'mined':>9} {'share':>8} {'within':>8}")
        for r in rows:
            lines.append(
                f"  {r['year']:<6} {r['games']:>8,} {r['mined']:>9,} {_percent(r['share']):>8} "
                f"{_percent(r['within']):>8}  {_held(r)}".rstrip()
            )
    else:
        names = list(dict.fromkeys(r["collection"] for r in rows))
        by = {(r["collection"], r["year"]): r for r in rows}
        lines.append("  year  " + "".join(f"{short(name)[-16:]:>18}" for name in names))
        for year in sorted({r["year"] for r in rows}):
            cells = []
            for name in names:
                r = by[(name, year)]
                cells.append(f"{100 * r['share']:.1f}% of {r['mined']:,}" if r["share"] is not None else "")
            lines.append(
                (f"  {year:<5} " + "".join(f"{c:>18}" for c in cells) + f"  {_held(by[(names[0], year)])}").rstrip()
            )
    if any(r.get("held_by") for r in rows):
        lines.append(HELD_NOTE.format(HELD))
    if peak is not None:
        lines.append(f"most popular in {peak}, within collections")
    return "\n".join(lines)


def _side_share(side: dict) -> str:
    return f"{100 * side['share']:5.1f}% of {side['of']:,}" if side["share"] is not None else "-"


def compare_text(found: dict, a: str, b: str) -> str:
    lines = [
        f"A: {a} ({found['a']['games']:,} games); B: {b} ({found['b']['games']:,} games); "
        f"{found['moves']:,} moves of the tree compared, in {TREE_FORM}"
    ]
    within = found.get("within_collections")
    if within:
        lines.append(
            "the change is tested within collections (Cochran-Mantel-Haenszel; the Mantel-Haenszel difference "
            "and its 95% interval), the shares shown are raw"
            + (
                f"; {found['untested']:,} moves untested (no collection at their position on both sides)"
                if found.get("untested")
                else ""
            )
        )
    lines += [f"warning: {w}" for w in found.get("warnings", [])]
    for title, rows in (("risers", found["risers"]), ("fallers", found["fallers"])):
        lines.append(
            f"{title} (the move's share of the sequences at its position, A -> B; 95% interval of the change"
            + (" within collections):" if within else "):")
        )
        for r in rows:
            lines.append(
                f"  {r['board']:<34} {_side_share(r['a']):>20} -> {_side_share(r['b']):>20}  "
                f"{100 * r['difference']:+6.1f} ({100 * r['low']:+.1f} to {100 * r['high']:+.1f})"
                + (f"  {r['kind']}" if r["kind"] else "")
            )
        if not rows:
            lines.append("  none")
    return "\n".join(lines)


def repertoire_text(player: str, found: dict) -> str:
    selfplay = f"; {found['self_play']:,} against themself left out" if found["self_play"] else ""
    width = max([30, *(len(line["board"] or "") + 1 for line in found["lines"])])  # every line's column lines up
    lines = [
        f"{player}: {counted(found['games'], 'game')} ({found['wins']:,} won, {found['losses']:,} lost{selfplay}), "
        f"{counted(found['sequences'], 'corner sequence')}; where they leave the tree (in {TREE_FORM}):",
        f"  {'times':>5} {'won-lost':>9}  {'role':<6} {'line':<{width}} {'then':<22} the tree's moves there "
        "(share, wins of who plays it)",
    ]
    for line in found["lines"]:
        then = (
            "ends in the tree"
            if line["left_with"] is None
            else f"{line['left_board']} ({'player' if line['by'] == 'player' else 'opponent'})"
        )
        tree = ", ".join(
            f"{m['board']} {percent(m['share'])}" + (f" (wins {100 * m['wins']:.0f}%)" if m["wins"] is not None else "")
            for m in line["tree"][:3]
            if m["share"] is not None
        )
        lines.append(
            f"  {line['count']:>5} {line['wins']:>4}-{line['losses']:<4}  {line['role']:<6} "
            f"{line['board'] or '(empty corner)':<{width}} {then:<22} {tree}"
        )
    return "\n".join(lines)


def position_text(found: dict) -> str:
    """``joseki position``: the games that reach the position, the orders
    that reach it, each next move, and the most recent games."""
    stones = "; ".join(
        f"{name} {' '.join(found[key])}" for name, key in (("Black", "black"), ("White", "white")) if found[key]
    )
    to_play = {"B": ", Black to play", "W": ", White to play"}.get(found["to_play"] or "", "")
    orders = found["orders"]
    lines = (
        [
            f"{found['sgf']}, the {found['corner']} corner "
            + (f"after move {found['move']}" if found["move"] else "as set up")
            + ":"
        ]
        if "sgf" in found
        else []
    )
    lines.append(
        f"{stones}{to_play}: {counted(found['games'], 'game')} ({counted(found['sequences'], 'corner sequence')}), "
        f"reached by {len(orders)} order{'s' * (len(orders) != 1)} of moves"
    )
    if not orders:
        lines[-1] += " (no line played twice reaches it)"
        return "\n".join(lines)
    for o in orders:
        lines.append(f"  {counted(o['games'], 'game', 'games'):>15}  {o['board'] or '(empty corner)'}")
    lines.append("next moves (share: of the sequences here; wins: of who plays it):")
    lines.append(f"  {'move':<8} {'colour':<6} {'count':>8} {'share':>7} {'games':>8}  {'wins':<27} years")
    for m in found["moves"]:
        years = year_span(m["first_year"], m["last_year"])
        lines.append(
            f"  {m['move']:<8} {'Black' if m['colour'] == 'B' else 'White':<6} {m['count']:>8,} "
            f"{percent(m['share'] or 0):>7} {m['games']:>8,}  {rate(m['wins'], m['losses']):<27} {years}"
        )
    if found["recent"]:
        lines.append(f"the {len(found['recent'])} most recent games:" if len(found["recent"]) > 1 else "the game:")
        lines += [game_line(r) for r in found["recent"]]
    return "\n".join(lines)
