"""The joseki command: 'joseki mine GAMES' runs every stage, 'joseki
ingest|extract|build|prune|emit|report' runs one; 'joseki lookup|games|trend|
compare|repertoire|position' answer from a mined tree; 'joseki explore' serves it
on a page; 'joseki practice' drills it (its schedule, Anki decks); 'joseki demo'
writes the built-in demo collection."""

from __future__ import annotations

import errno
import os
import signal
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import List, Optional

import typer

from joseki_miner.runs import stop
from joseki_miner.cluster.options import PARTITION_MB, Options
from joseki_miner.runs.config import load
from joseki_miner.runs.errors import JosekiError
from pipeline.request import Request

from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.stages import NAMES as STAGES, STAGES as DECLARED, alone, publishes_next
from pipeline.options import (
    CONFIG,
    ENGINE,
    JOBS,
    OUT,
    PARTITION,
    QUIET,
    SCHEDULER,
    SET,
    SORT_MEMORY,
    TABLE_MEMORY,
    TRACE,
    WAIT,
    WORK,
    WORKERS,
    app,
    catalog_of,
    fail,
    printable,
)


@dataclass(frozen=True)
class Given:
    """Where a run writes and what it is told: the output and work
    folders, the config file and its --set overrides."""

    out: str
    work: Optional[Path] = None
    config: Optional[Path] = None
    sets: Optional[List[str]] = None


def _execute(stages: List[str], paths: List[str], given: Given, request: Request) -> None:
    """Run the stages; every way a run can end becomes one line and an exit
    code: 2 an unusable invocation, 1 a failed run (--strict, a full disk),
    130 (143) a run stopped by Ctrl-C (SIGTERM).  None but 0 changes the
    output folder (of an output URL: 1 for a failed publication, whose
    local copy is whole and which the next run sends again).  Without
    progress (--quiet), no lines of progress either."""
    from .run import run_stages  # the stages and their compiled code load only for a run

    try:
        cfg = load(given.config, given.sets or [])
        catalog = catalog_of(given.out, given.work)
        log = (lambda s: typer.echo(s, err=True)) if request.progress else (lambda s: None)
        command = " ".join(["joseki", *map(printable, sys.argv[1:])])
        summary = run_stages(catalog, cfg, stages, paths or [], replace(request, command=command), log=log)
    except JosekiError as exc:  # an unusable invocation (2), --strict's first bad record, a failed publication (1)
        fail(exc.line(), exc.exit_code)
    except (stop.Stopped, KeyboardInterrupt) as exc:
        why = exc.signal if isinstance(exc, stop.Stopped) else "SIGINT"
        fail("interrupted; outputs left as they were", 128 + signal.Signals.__members__.get(why, signal.SIGINT).value)
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT) and "No space left" not in str(exc):
            raise
        where = f" writing {printable(exc.filename)}" if exc.filename else ""
        fail(f"no space left on the device{where}; outputs left as they were", 1)
    _print_summary(summary, catalog)


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
            found = (
                f"{s['joseki']:,} joseki, "
                + (f"{later:,} follow-up{'s' if later != 1 else ''}, " if later is not None else "")
                + f"{s['fuseki_shapes']:,} fuseki shape{'s' if s['fuseki_shapes'] != 1 else ''}"
                if "joseki" in s
                else f"{s['leaves']:,} joseki"
            )
            tree += (
                f"; pruned at {s.get('threshold_on', 'count')} >= {s['threshold']:,}: "
                f"{s['nodes_after_prune']:,} nodes, {found}, deepest {s['deepest']} moves"
            )
        lines.append(tree)
    elif s.get("sequences"):
        lines.append(f"sequences {s['sequences']:,}")
    if s.get("svg_skipped"):
        lines.append(f"no SVG drawn: {s['svg_skipped']}")
    unpublished = s.get("unpublished")
    if "rerun_seconds" in s:  # every stage up to date
        lines.append(f"outputs in {catalog.publish or catalog.out}, up to date ({s['rerun_seconds']:.1f} s)")
    elif unpublished is None:
        lines.append(f"outputs in {catalog.publish or catalog.out} ({s['seconds']:.1f} s)")
    else:  # a work stage alone: what publishes it
        commands = ", then ".join(f"`joseki {name}`" for name in unpublished["next"])
        book = (
            f"the book in {catalog.out} is still that of the stages before"
            if unpublished["book"]
            else f"nothing is published in {catalog.out} yet"
        )
        lines.append(
            f"staged in {catalog.work} ({s['seconds']:.1f} s); {book}: {commands} "
            f"(with the same --work and --out) publish{'es' if len(unpublished['next']) == 1 else ''} these stages"
        )
    typer.echo("\n".join(lines))


@app.command()
def mine(
    paths: List[str] = typer.Argument(
        ..., help="game files, folders or archives; or fsspec URLs (http(s)://, s3://, gs://)"
    ),
    out: str = OUT,
    work: Optional[Path] = WORK,
    config: Optional[Path] = CONFIG,
    set_: Optional[List[str]] = SET,
    strict: bool = typer.Option(False, "--strict", help="stop at the first bad record"),
    force: bool = typer.Option(False, "--force", help="re-run every stage even if up to date"),
    quiet: bool = QUIET,
    jobs: Optional[int] = JOBS,
    engine: str = ENGINE,
    sort_memory: float = SORT_MEMORY,
    table_memory: float = TABLE_MEMORY,
    wait: bool = WAIT,
    scheduler: Optional[str] = SCHEDULER,
    workers: int = WORKERS,
    partition_mb: float = PARTITION,
    trace: Optional[Path] = TRACE,
    add: bool = typer.Option(
        False,
        "--add",
        help="add these games to those mined in WORK: the games are kept in "
        "partitions, and only the new ones are read (by the compiled "
        "engine, one task at a time, where --engine is not dask)",
    ),
) -> None:
    """Mine joseki from game collections: every stage, skipping up-to-date ones."""
    _execute(
        STAGES,
        paths,
        Given(out, work, config, set_),
        Request(
            progress=not quiet,
            strict=strict,
            force=force,
            engine=engine,
            jobs=jobs,
            sort_memory=sort_memory,
            table_memory=table_memory,
            wait=wait,
            cluster=_cluster(engine, scheduler, workers, partition_mb, jobs, trace),
            add=add,
        ),
    )


def _cluster(
    engine: str,
    scheduler: Optional[str],
    workers: int,
    partition_mb: float,
    jobs: Optional[int],
    trace: Optional[Path] = None,
):
    """The dask options, checked: only with --engine dask, and each with
    what it can mean there."""
    if engine != "dask" and (scheduler or workers or partition_mb != PARTITION_MB or trace):
        fail("--scheduler, --workers, --partition-mb and --trace go with --engine dask", 2)
    if engine == "dask" and jobs is not None:
        fail("--jobs sets the threads of the fast engine; the dask engine's are its workers (--workers)", 2)
    if scheduler and workers:
        fail("--workers starts a local cluster of that many workers; a cluster at --scheduler has its own", 2)
    if workers < 0:
        fail("--workers must be 0 (one a core) or more", 2)
    if not partition_mb > 0:
        fail("--partition-mb must be a positive number", 2)
    return Options(scheduler, workers, partition_mb, str(trace) if trace else None)


@app.command()
def ingest(
    paths: List[str] = typer.Argument(
        ..., help="game files, folders or archives; or fsspec URLs (http(s)://, s3://, gs://)"
    ),
    out: str = OUT,
    work: Optional[Path] = WORK,
    config: Optional[Path] = CONFIG,
    set_: Optional[List[str]] = SET,
    strict: bool = typer.Option(False, "--strict", help="stop at the first bad record"),
    quiet: bool = QUIET,
    jobs: Optional[int] = JOBS,
    engine: str = ENGINE,
    table_memory: float = TABLE_MEMORY,
    wait: bool = WAIT,
) -> None:
    _execute(
        ["ingest"],
        paths,
        Given(out, work, config, set_),
        Request(
            progress=not quiet,
            strict=strict,
            force=True,
            engine=engine,
            jobs=jobs,
            table_memory=table_memory,
            wait=wait,
        ),
    )


def _single(stage: str, doc: str):
    def command(
        out: str = OUT,
        work: Optional[Path] = WORK,
        config: Optional[Path] = CONFIG,
        set_: Optional[List[str]] = SET,
        quiet: bool = QUIET,
        jobs: Optional[int] = JOBS,
        engine: str = ENGINE,
        sort_memory: float = SORT_MEMORY,
        wait: bool = WAIT,
    ) -> None:
        _execute(
            list(alone(stage)),
            [],
            Given(out, work, config, set_),
            Request(progress=not quiet, force=True, engine=engine, jobs=jobs, sort_memory=sort_memory, wait=wait),
        )

    command.__doc__ = doc
    app.command(name=stage)(command)


def _help(n: int, name: str) -> str:
    """A stage command's help: what it does, and what runs with it (or
    what publishes it)."""
    stage = DECLARED[n - 1]
    later = alone(name)[1:]
    if later:
        return f"Stage {n}: {stage.does}; {' and '.join(later)} run after it, so the output folder holds one tree."
    if stage.published:
        return f"Stage {n}: {stage.does}."
    then = publishes_next(name)
    commands = ", then ".join(f"`joseki {s}`" for s in then)
    return f"Stage {n}: {stage.does}, in the work folder; {commands} publish{'es' if len(then) == 1 else ''} it."


ingest.__doc__ = _help(1, "ingest")
for _n, _stage in enumerate(DECLARED[1:], start=2):  # every other stage, as declared (runs.stages)
    _single(_stage.name, _help(_n, _stage.name))


from pipeline import queries  # noqa: E402,F401 - the query commands, after the stages' in the help
from pipeline import practice  # noqa: E402,F401 - practice: the schedule and Anki decks, after the queries


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
