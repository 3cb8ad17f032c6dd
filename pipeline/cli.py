"""The joseki command: 'joseki mine GAMES' runs every stage, 'joseki
ingest|extract|build|prune|emit|report' runs one; 'joseki lookup|games|trend|
compare|repertoire|position' answer from a mined tree; 'joseki demo' writes the
built-in demo collection."""

from __future__ import annotations

import errno
import os
import signal
import sys
from pathlib import Path
from typing import List, Optional

import typer

from joseki_miner.runs import remote
from joseki_miner.runs import stop
from joseki_miner.engines.cluster import PARTITION_MB, Options
from joseki_miner.runs.config import SORT_MEMORY_MB, TABLE_MEMORY_MB, load
from joseki_miner.runs.errors import JosekiError, UsageError

from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.stages import NAMES as STAGES, STAGES as DECLARED

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)


def _plain(text: str) -> str:
    """Help text shown as written: its brackets (B[pd], [ai]) are no markup."""
    return text.replace("[", "\\[")

OUT = typer.Option("data/processed", "--out", help="folder for the joseki tree files, or an fsspec URL (s3://, gs://, "
                   "...: written to data/published/<URL> and published when the run ends)")
PUBLISHED_COPIES = Path("data/published")  # the local copies of output folders at URLs
WORK = typer.Option(None, "--work", help="folder for stage outputs (default: OUT/interim)")
CONFIG = typer.Option(None, "--config", help="YAML parameters (default: configs/default.yaml's: the thesis' with "
                      "the kinds and start region of its future work; configs/thesis.yaml: the thesis exactly)")
SET = typer.Option(None, "--set", help="override one parameter: KEY=VALUE (repeatable)")
QUIET = typer.Option(False, "--quiet", help="no progress bars and no lines of progress (errors still)")
JOBS = typer.Option(None, "--jobs", help="threads for the compiled kernel (default, or 0: every core)")
WAIT = typer.Option(False, "--wait", help="when another run is using the folders, wait for it instead of stopping")
ENGINE = typer.Option("fast", "--engine", help="fast (compiled), reference (plain Python) or dask (partitions on a "
                      "dask cluster); same outputs")
SCHEDULER = typer.Option(None, "--scheduler", metavar="ADDRESS",
                         help="--engine dask: a dask scheduler (tcp://host:8786); default: a local cluster")
WORKERS = typer.Option(0, "--workers", help="--engine dask: worker processes of the local cluster (0: one a core)")
PARTITION = typer.Option(PARTITION_MB, "--partition-mb", metavar="MB",
                         help="--engine dask: MB of input a partition gathers (a larger archive is cut in parts of "
                              "its members)")
SORT_MEMORY = typer.Option(SORT_MEMORY_MB, "--sort-memory", metavar="MB",
                           help="sequences held for the trie before sorted runs are spilled to WORK/runs; same outputs")
TABLE_MEMORY = typer.Option(TABLE_MEMORY_MB, "--table-memory", metavar="MB",
                            help="duplicate fingerprints and kifu index lines held in memory; past it they are "
                                 "mapped from files in WORK, about MB of them resident; same outputs")


def _execute(stages, paths, out, work, config, sets, quiet, strict=False, force=False, engine="fast", jobs=None,
             sort_memory=SORT_MEMORY_MB, table_memory=TABLE_MEMORY_MB, wait=False, cluster=None, add=False) -> None:
    """Run the stages; every way a run can end becomes one line and an exit
    code: 2 an unusable invocation, 1 a failed run (--strict, a full disk),
    130 (143) a run stopped by Ctrl-C (SIGTERM).  None but 0 changes the
    output folder (of an output URL: 1 for a failed publication, whose
    local copy is whole and which the next run sends again)."""
    from .run import run_stages  # the stages and their compiled code load only for a run

    try:
        cfg = load(config, sets or [])
        catalog = _catalog(out, work)
        log = (lambda s: None) if quiet else (lambda s: typer.echo(s, err=True))
        summary = run_stages(
            catalog, cfg, stages, paths or [], progress=not quiet, strict=strict, force=force,
            engine=engine, jobs=jobs, sort_memory=sort_memory, table_memory=table_memory, log=log, wait=wait,
            command=" ".join(["joseki", *map(_shown, sys.argv[1:])]), cluster=cluster or Options(), add=add,
        )
    except JosekiError as exc:  # an unusable invocation (2), --strict's first bad record, a failed publication (1)
        _fail(exc.line(), exc.exit_code)
    except (stop.Stopped, KeyboardInterrupt) as exc:
        why = exc.signal if isinstance(exc, stop.Stopped) else "SIGINT"
        _fail("interrupted; outputs left as they were", 128 + signal.Signals.__members__.get(why, signal.SIGINT).value)
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT) and "No space left" not in str(exc):
            raise
        where = f" writing {_shown(exc.filename)}" if exc.filename else ""
        _fail(f"no space left on the device{where}; outputs left as they were", 1)
    _print_summary(summary, catalog)


def _catalog(out: str, work: Path | None) -> Catalog:
    """The run's folders.  An output folder at a URL (s3://, gs://, ...) is
    written to a local copy, data/published/<the URL> (its work folder in
    it), and published as the run ends; a file:// URL is a local folder."""
    if remote.is_url(out):
        try:
            local = remote.local_root(out)
        except (ImportError, ValueError) as exc:  # an unknown protocol, or its package is not installed
            raise UsageError(f"--out {out}: {exc}") from None
        if local is None:
            copy = remote.mirror_of(out, PUBLISHED_COPIES)
            return Catalog(work=work or copy / "interim", out=copy, publish=out)
        out = local
    return Catalog(work=work or Path(out) / "interim", out=Path(out))


def _shown(text) -> str:
    """A path or argument as text that prints (bytes that are not UTF-8 escaped)."""
    return os.fsencode(str(text)).decode("utf-8", "backslashreplace")


def _fail(message: str, code: int):
    typer.echo(f"joseki: {message}", err=True)
    raise typer.Exit(code)


def _print_summary(s: dict, catalog: Catalog) -> None:
    """A few lines: the games, then what the stages that have run found."""
    rejected = ", ".join(f"{k}: {v:,}" for k, v in s["games_rejected"].items()) or "none"
    filtered = ", ".join(f"{k}: {v:,}" for k, v in s.get("games_filtered", {}).items())
    skipped = sum(s.get("files_skipped", {}).values())
    lines = [
        f"games read {s['games_read']:,}: accepted {s['games_accepted']:,}, "
        f"rejected {s['games_rejected_total']:,} ({rejected})"
        + (f", filtered {s['games_filtered_total']:,} ({filtered})" if filtered else "")
        + (f"; files without games skipped: {skipped:,} (see summary.json)" if skipped else "")
    ]
    if s.get("nodes_before_prune"):
        tree = f"sequences {s['sequences']:,}; trie {s['nodes_before_prune']:,} nodes"
        if s.get("threshold"):
            later = s.get("follow_ups")
            found = (f"{s['joseki']:,} joseki, "
                     + (f"{later:,} follow-up{'s' if later != 1 else ''}, " if later is not None else "")
                     + f"{s['fuseki_shapes']:,} fuseki shape{'s' if s['fuseki_shapes'] != 1 else ''}"
                     if "joseki" in s else f"{s['leaves']:,} joseki")
            tree += (f"; pruned at {s.get('threshold_on', 'count')} >= {s['threshold']:,}: "
                     f"{s['nodes_after_prune']:,} nodes, {found}, deepest {s['deepest']} moves")
        lines.append(tree)
    elif s.get("sequences"):
        lines.append(f"sequences {s['sequences']:,}")
    if s.get("svg_skipped"):
        lines.append(f"no SVG drawn: {s['svg_skipped']}")
    lines.append(f"outputs in {catalog.publish or catalog.out} ({s['seconds']:.1f} s)")
    typer.echo("\n".join(lines))


@app.command()
def mine(
    paths: List[str] = typer.Argument(..., help="game files, folders or archives; or fsspec URLs (http(s)://, "
                                                "s3://, gs://)"),
    out: str = OUT, work: Optional[Path] = WORK, config: Optional[Path] = CONFIG,
    set_: Optional[List[str]] = SET,
    strict: bool = typer.Option(False, "--strict", help="stop at the first bad record"),
    force: bool = typer.Option(False, "--force", help="re-run every stage even if up to date"),
    quiet: bool = QUIET, jobs: Optional[int] = JOBS, engine: str = ENGINE, sort_memory: float = SORT_MEMORY,
    table_memory: float = TABLE_MEMORY, wait: bool = WAIT, scheduler: Optional[str] = SCHEDULER,
    workers: int = WORKERS, partition_mb: float = PARTITION,
    add: bool = typer.Option(False, "--add", help="add these games to those mined in WORK: the games are kept in "
                                                  "partitions, and only the new ones are read (by the compiled "
                                                  "engine, one task at a time, where --engine is not dask)"),
) -> None:
    """Mine joseki from game collections: every stage, skipping up-to-date ones."""
    _execute(STAGES, paths, out, work, config, set_, quiet, strict, force, engine, jobs, sort_memory, table_memory,
             wait, _cluster(engine, scheduler, workers, partition_mb, jobs), add)


def _cluster(engine: str, scheduler: Optional[str], workers: int, partition_mb: float, jobs: Optional[int]):
    """The dask options, checked: only with --engine dask, and each with
    what it can mean there."""
    if engine != "dask" and (scheduler or workers or partition_mb != PARTITION_MB):
        _fail("--scheduler, --workers and --partition-mb go with --engine dask", 2)
    if engine == "dask" and jobs is not None:
        _fail("--jobs sets the threads of the fast engine; the dask engine's are its workers (--workers)", 2)
    if scheduler and workers:
        _fail("--workers starts a local cluster of that many workers; a cluster at --scheduler has its own", 2)
    if workers < 0:
        _fail("--workers must be 0 (one a core) or more", 2)
    if not partition_mb > 0:
        _fail("--partition-mb must be a positive number", 2)
    return Options(scheduler, workers, partition_mb)


@app.command()
def ingest(
    paths: List[str] = typer.Argument(..., help="game files, folders or archives; or fsspec URLs (http(s)://, "
                                                "s3://, gs://)"),
    out: str = OUT, work: Optional[Path] = WORK, config: Optional[Path] = CONFIG,
    set_: Optional[List[str]] = SET,
    strict: bool = typer.Option(False, "--strict", help="stop at the first bad record"),
    quiet: bool = QUIET, jobs: Optional[int] = JOBS, engine: str = ENGINE, table_memory: float = TABLE_MEMORY,
    wait: bool = WAIT,
) -> None:
    _execute(["ingest"], paths, out, work, config, set_, quiet, strict, True, engine, jobs,
             table_memory=table_memory, wait=wait)


def _single(stage: str, doc: str):
    def command(
        out: str = OUT, work: Optional[Path] = WORK, config: Optional[Path] = CONFIG,
        set_: Optional[List[str]] = SET, quiet: bool = QUIET, jobs: Optional[int] = JOBS, engine: str = ENGINE,
        sort_memory: float = SORT_MEMORY, wait: bool = WAIT,
    ) -> None:
        _execute([stage], [], out, work, config, set_, quiet, False, True, engine, jobs, sort_memory, wait=wait)

    command.__doc__ = doc
    app.command(name=stage)(command)


ingest.__doc__ = f"Stage 1: {DECLARED[0].does}."
for _n, _stage in enumerate(DECLARED[1:], start=2):  # every other stage, as declared (runs.stages)
    _single(_stage.name, f"Stage {_n}: {_stage.does}.")


SEQUENCE = typer.Argument(..., help=_plain("moves as board points (Q16 R17; 'W Q16 ...' when White starts) or "
                                           "SGF (B[pd];W[qc]), any orientation; 'tenuki' for a move elsewhere"))


def _query(out: str, work: Optional[Path]):
    """The catalog of the mined outputs a query reads (of an output URL:
    its local copy; without --work, the work folder the tree records), and
    the check that no run changes them while they are read (``lineage``):
    refused, with exit 2, where the work folder holds another run's stages."""
    from joseki_miner.runs import lineage

    try:
        catalog = _catalog(out, work)
        if work is None:
            catalog = Catalog(work=lineage.work_for(catalog.out, catalog.work), out=catalog.out,
                              publish=catalog.publish)
        return catalog, lineage.Steady(catalog)
    except UsageError as exc:
        _fail(str(exc), 2)


def _answered(steady, call):
    """Run a query; its errors as one line: 2 for text that is no sequence,
    outputs that are missing or of another run, a name or limit that
    cannot be; 1 for a sequence the tree does not hold (each error's
    ``exit_code``)."""
    try:
        found = call()
        steady.confirm()
        return found
    except JosekiError as exc:
        _fail(exc.line(), exc.exit_code)
    except FileNotFoundError as exc:
        _fail(f"nothing mined in {steady.catalog.out}: run `joseki mine` first ({exc.filename or exc})", 2)
    except (stop.Stopped, KeyboardInterrupt):
        _fail("interrupted", 130)


def _limit(value: Optional[int], default: Optional[int] = None) -> Optional[int]:
    from joseki_miner.runs import asked

    try:
        return asked.limit(value, default)
    except UsageError as exc:
        _fail(str(exc), 2)


def _json(data) -> None:
    import json

    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


LIMIT = "at most this many {} (0: all)"


@app.command()
def lookup(
    sequence: str = SEQUENCE, out: str = OUT, work: Optional[Path] = WORK,
    json_: bool = typer.Option(False, "--json", help="one JSON object instead of text"),
) -> None:
    """A sequence's count, games, win rate, years and collections, and its
    continuations, from the mined outputs in OUT."""
    from joseki_miner.book import answers, explore

    catalog, steady = _query(out, work)
    found = _answered(steady, lambda: explore.lookup(catalog, sequence))
    if json_:
        keep = ("count", "games", "black_wins", "white_wins", "first_year", "last_year", "most_popular", "years",
                "sources", "sequence", "board", "normal", "normal_board", "first_player", "kind")
        data = {k: found[k] for k in keep if k in found}
        data["continuations"] = [{k: c[k] for k in ("move", "board", "normal", "count", "share", "games", "black_wins",
                                                     "white_wins", "last_year", "kind") if k in c}
                                 for c in found["continuations"]]
        _json(data)
        return
    typer.echo(answers.lookup_text(found))


@app.command()
def games(
    sequence: str = SEQUENCE, out: str = OUT, work: Optional[Path] = WORK,
    sgf: Optional[Path] = typer.Option(None, "--sgf", help="write the games as one SGF collection to this file"),
    limit: Optional[int] = typer.Option(None, "--limit", help=LIMIT.format("games, the most recent")
                                        + "; default: 20 listed, all written with --sgf"),
) -> None:
    """Every game whose corner sequence starts with SEQUENCE (in any
    orientation), the most recent first."""
    from joseki_miner.book import answers, explore

    catalog, steady = _query(out, work)
    most = _limit(limit, None if sgf is not None else 20)
    q, rows, total = _answered(steady, lambda: explore.games_of(catalog, sequence, most, records=sgf is not None))
    if sgf is not None:
        try:
            sgf.write_text(explore.sgf_collection(rows), encoding="utf-8")
        except OSError as exc:
            _fail(f"cannot write {sgf}: {exc.strerror}", 2)
        typer.echo(f"{rows.num_rows:,} of {total:,} games starting {q.board_text()} written to {sgf}")
        return
    typer.echo(answers.games_text(q.board_text(), rows.to_pylist(), total))


@app.command()
def trend(
    sequence: str = SEQUENCE, out: str = OUT, work: Optional[Path] = WORK,
    by_collection: bool = typer.Option(False, "--by-collection", help="a table a collection"),
) -> None:
    """A sequence's share of each year's games (its games in a year over the
    games mined that year)."""
    from joseki_miner.book import answers, explore

    catalog, steady = _query(out, work)
    q, rows = _answered(steady, lambda: explore.trend(catalog, sequence, by_collection))
    typer.echo(answers.trend_text(q.board_text(), rows, by_collection))


SIDE = _plain("one filter.* key of a side, as --set takes it: \"filter.sources=[ai]\", "
              "\"filter.years=[2000,2015]\", \"filter.players=[Lee Sedol]\" (the prefix may be left out); "
              "repeat for another key")


@app.command()
def compare(
    a: List[str] = typer.Option([], "--a", help=SIDE), b: List[str] = typer.Option([], "--b", help=SIDE),
    out: str = OUT, work: Optional[Path] = WORK,
    limit: Optional[int] = typer.Option(None, "--limit", help=LIMIT.format("risers and as many fallers")
                                        + "; default: 10"),
    json_: bool = typer.Option(False, "--json", help="one JSON object instead of text"),
) -> None:
    """What changed from side A to side B: the moves of the tree whose share
    of the sequences at their position rose or fell, the largest real
    changes first."""
    from joseki_miner.book import answers
    from joseki_miner.book.compare import compare as compare_sides
    from joseki_miner.runs import asked

    catalog, steady = _query(out, work)
    most = _limit(limit, 10)

    def answer():
        (side_a, text_a), (side_b, text_b) = asked.side(a, "a"), asked.side(b, "b")
        if side_a.active or side_b.active:
            known = asked.Known.of_games(catalog.games)
            known.check(side_a, "--a")
            known.check(side_b, "--b")
        found = compare_sides(catalog, side_a, side_b)
        for name, side in (("--a", found["a"]), ("--b", found["b"])):
            if not side["games"]:
                raise UsageError(f"{name} selects no game of the {steady.catalog.games.name} mined: "
                                 "widen it (filter.years, filter.min_rank ...)")
        return found, text_a, text_b

    found, text_a, text_b = _answered(steady, answer)
    found = {**found, "risers": found["risers"][:most], "fallers": found["fallers"][:most]}
    if json_:
        found["a"]["filters"], found["b"]["filters"] = text_a, text_b
        _json(found)
        return
    typer.echo(answers.compare_text(found, text_a, text_b))


@app.command()
def repertoire(
    player: str = typer.Argument(..., help="a player's name as the games write it (either colour; case aside)"),
    games: Optional[List[Path]] = typer.Argument(None, help="the player's own games (files, folders, archives); "
                                                            "default: the games mined, by the player's name"),
    out: str = OUT, work: Optional[Path] = WORK, config: Optional[Path] = CONFIG, set_: Optional[List[str]] = SET,
    limit: Optional[int] = typer.Option(None, "--limit", help=LIMIT.format("lines, the most played first")
                                        + "; default: 20"),
    json_: bool = typer.Option(False, "--json", help="one JSON object instead of text"),
) -> None:
    """A player's corner sequences against the tree: where each leaves it,
    the move played there, the player's own results, and what the tree's
    games played there.  Their own GAMES are read as the tree's games were
    (its phase 1 parameters; --config and --set may only repeat them)."""
    from joseki_miner.book import answers
    from joseki_miner.book.repertoire import repertoire as repertoire_of
    from joseki_miner.runs import asked

    catalog, steady = _query(out, work)
    most = _limit(limit, 20)

    def answer():
        if not games:
            asked.Known.of_games(catalog.games).player(player, str(catalog.games))
            return repertoire_of(catalog.joseki, catalog.sequences, catalog.games, player)
        import tempfile

        from .run import run_stages

        with tempfile.TemporaryDirectory(prefix="joseki-repertoire-") as folder:
            own = Catalog(work=Path(folder) / "interim", out=Path(folder))
            run_stages(own, _as_the_tree_read(catalog, config, set_), ["ingest", "extract"], games, progress=False)
            asked.Known.of_games(own.games).player(player, "the games given")
            return repertoire_of(catalog.joseki, own.sequences, own.games, player)

    found = _answered(steady, answer)
    if not found["games"]:  # every game of the name was against themself
        _fail(f"no game of {player!r} against another player"
              + (f" ({found['self_play']:,} against themself left out)" if found.get("self_play") else ""), 1)
    found = {**found, "lines": found["lines"][:most]}
    if json_:
        _json(found)
        return
    typer.echo(answers.repertoire_text(player, found))


@app.command()
def position(
    black: str = typer.Option("", "--black", help="Black's stones in the corner, as board points: Q16,R17"),
    white: str = typer.Option("", "--white", help="White's stones, as board points"),
    to_play: Optional[str] = typer.Option(None, "--to-play", help="B or W (default: either)"),
    sgf: Optional[str] = typer.Option(None, "--sgf",
                                      help="a game (or a diagram's AB/AW stones): its corner's position"),
    move: Optional[int] = typer.Option(None, "--move", help="with --sgf: after this many moves (default: all)"),
    corner: Optional[str] = typer.Option(None, "--corner", help="with --sgf: UL, UR, LL or LR (default: the last "
                                         "move's)"),
    out: str = OUT, work: Optional[Path] = WORK,
    limit: Optional[int] = typer.Option(None, "--limit", help=LIMIT.format("next moves") + "; default: 20"),
    json_: bool = typer.Option(False, "--json", help="one JSON object instead of text"),
) -> None:
    """A corner position, whatever order of moves reached it: its games,
    the orders that reach it, each next move and the most recent games; in
    any orientation, the colours as given or swapped.  Given by its stones,
    or as one corner of a game after some moves (--sgf)."""
    from joseki_miner.book import answers
    from joseki_miner.book.position import position as position_of

    catalog, steady = _query(out, work)
    most = _limit(limit, 20)

    def answer() -> dict:
        asked, where = _asked_position(catalog, black, white, to_play, sgf, move, corner)
        return {**position_of(catalog, asked), **where}

    found = _answered(steady, answer)
    found = {**found, "moves": found["moves"][:most] if most else found["moves"]}
    if json_:
        _json({**found, "recent": [{k: v for k, v in r.items() if k != "day"} for r in found["recent"]]})
        return
    typer.echo(answers.position_text(found))


def _asked_position(catalog: Catalog, black: str, white: str, to_play: Optional[str], sgf: Optional[str],
                    move: Optional[int], corner: Optional[str]):
    """The position asked for, and where it was taken from (--sgf): a game's
    corner is read with the tree's phase 1 (a handicap stone opens its
    corner where the tree's did)."""
    from joseki_miner.book.position import Position, from_game, read_game
    from joseki_miner.engines.params import phase1_params

    if sgf is None:
        if move is not None or corner is not None:
            raise UsageError("--move and --corner go with --sgf FILE")
        return Position.of(black, white, to_play), {}
    if black or white or to_play:
        raise UsageError("give the stones (--black, --white, --to-play) or --sgf FILE, not both")
    asked, where = from_game(read_game(sgf), phase1_params(_as_the_tree_read(catalog, None, [])), move, corner)
    return asked, {"sgf": sgf, **where}


def _as_the_tree_read(catalog: Catalog, config: Optional[Path], sets: Optional[List[str]]):
    """The config a player's own games are read with: phase 1 as the tree's
    games were read (a config that reads them otherwise is a UsageError);
    none of the filters of collections, eras or ranks mined."""
    import dataclasses

    from joseki_miner.runs import lineage

    given = load(config, sets or [])
    made = lineage.recorded(catalog.out) or {}
    tree = made.get("phase1") or {}
    named = set(tree) if config is not None else {s.split("=", 1)[0].strip() for s in sets or []}
    differ = {k: v for k, v in lineage.phase1(given).items() if k in named and k in tree and tree[k] != v}
    if differ:
        shown = ", ".join(f"{k}={tree[k]} (not {v})" for k, v in differ.items())
        raise UsageError(f"the tree was mined with {shown}: read the player's games as its games were, or mine "
                         "the tree again with these parameters")
    import json

    from joseki_miner.runs.config import KEYS

    same = load(config, [*(sets or []), *(f"{k}={json.dumps(v)}" for k, v in tree.items() if k in KEYS)])
    return dataclasses.replace(same, filter_years=None, filter_sources=None, filter_result_known=False,
                               filter_players=None, filter_min_rank=None, filter_events=None, filter_handicap=None)


@app.command()
def demo(
    out: Path = typer.Option(Path("data/raw/demo"), "--out", help="folder to write the demo games to"),
    games: int = typer.Option(400, "--games", help="number of games"),
    seed: int = typer.Option(2007, "--seed", help="random seed"),
) -> None:
    """Write the built-in demo collection: planted joseki plus noise."""
    from joseki_miner.readers import demo as demo_method

    written = demo_method.write_collection(out, games=games, seed=seed)
    typer.echo(f"wrote {written} demo games to {out}")


def _on_signal(signum, frame) -> None:
    """The first Ctrl-C (or SIGTERM) asks the run to stop at its next safe
    point (``stop``); a second one stops it at once."""
    if stop.requested():
        raise KeyboardInterrupt
    stop.request(signal.Signals(signum).name)


def main() -> None:
    """The console command.  Once the command has finished and its output is
    flushed, the process ends at once (``os._exit``): tearing down the
    interpreter's objects one by one would add a fifth of a second to
    every run and write nothing.  Embed ``app`` to keep the interpreter."""
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    try:
        app(prog_name="joseki")
        code = 0
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt:  # a second Ctrl-C outside a run's own handling
        print("joseki: interrupted; outputs left as they were", file=sys.stderr)
        code = 130
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


if __name__ == "__main__":
    sys.exit(main())
