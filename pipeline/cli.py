"""The ``joseki`` command: ``joseki mine`` runs every stage; ``joseki
ingest|extract|build|prune|emit`` run one; ``joseki demo`` writes the
built-in demo collection."""

from __future__ import annotations

import errno
import os
import signal
import sys
from pathlib import Path
from typing import List, Optional

import typer

from joseki_miner import stop
from joseki_miner.config import ConfigError, load

from .build import SORT_MEMORY as SORT_MEMORY_MB
from .catalog import Catalog
from .ingest import StrictError
from .run import STAGES, TABLE_MEMORY as TABLE_MEMORY_MB, UsageError, run_stages

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)

OUT = typer.Option(Path("data/processed"), "--out", help="folder for the joseki tree files")
WORK = typer.Option(None, "--work", help="folder for stage outputs (default: OUT/interim)")
CONFIG = typer.Option(None, "--config", help="YAML parameters (default: the thesis defaults)")
SET = typer.Option(None, "--set", help="override one parameter: KEY=VALUE (repeatable)")
QUIET = typer.Option(False, "--quiet", help="no progress bars")
JOBS = typer.Option(None, "--jobs", help="threads for the compiled kernel (default, or 0: every core)")
WAIT = typer.Option(False, "--wait", help="when another run is using the folders, wait for it instead of stopping")
ENGINE = typer.Option("fast", "--engine", help="fast (compiled) or reference (plain Python); same outputs")
SORT_MEMORY = typer.Option(SORT_MEMORY_MB, "--sort-memory", metavar="MB",
                           help="sequences held for the trie before sorted runs are spilled to WORK/runs; same outputs")
TABLE_MEMORY = typer.Option(TABLE_MEMORY_MB, "--table-memory", metavar="MB",
                            help="duplicate fingerprints and kifu index lines held in memory; past it they are "
                                 "mapped from files in WORK, about MB of them resident; same outputs")


def _execute(stages, paths, out, work, config, sets, quiet, strict=False, force=False, engine="fast", jobs=None,
             sort_memory=SORT_MEMORY_MB, table_memory=TABLE_MEMORY_MB, wait=False) -> None:
    """Run the stages; every way a run can end becomes one line and an exit
    code: 2 an unusable invocation, 1 a failed run (--strict, a full disk),
    130 (143) a run stopped by Ctrl-C (SIGTERM).  None but 0 changes the
    output folder."""
    try:
        cfg = load(config, sets or [])
        catalog = Catalog(work=work or out / "interim", out=out)
        log = (lambda s: None) if quiet else (lambda s: typer.echo(s, err=True))
        summary = run_stages(
            catalog, cfg, stages, paths or [], progress=not quiet, strict=strict, force=force,
            engine=engine, jobs=jobs, sort_memory=sort_memory, table_memory=table_memory, log=log, wait=wait,
            command=" ".join(["joseki", *map(_shown, sys.argv[1:])]),
        )
    except (ConfigError, UsageError) as exc:
        _fail(str(exc), 2)
    except StrictError as exc:
        _fail(f"--strict: {exc}", 1)
    except (stop.Stopped, KeyboardInterrupt) as exc:
        why = exc.signal if isinstance(exc, stop.Stopped) else "SIGINT"
        _fail("interrupted; outputs left as they were", 128 + signal.Signals[why].value)
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT) and "No space left" not in str(exc):
            raise
        where = f" writing {_shown(exc.filename)}" if exc.filename else ""
        _fail(f"no space left on the device{where}; outputs left as they were", 1)
    _print_summary(summary, catalog)


def _shown(text) -> str:
    """A path or argument as text that prints (bytes that are not UTF-8 escaped)."""
    return os.fsencode(str(text)).decode("utf-8", "backslashreplace")


def _fail(message: str, code: int):
    typer.echo(f"joseki: {message}", err=True)
    raise typer.Exit(code)


def _print_summary(s: dict, catalog: Catalog) -> None:
    """A few lines: the games, then what the stages that have run found."""
    rejected = ", ".join(f"{k} {v}" for k, v in s["games_rejected"].items()) or "none"
    skipped = sum(s.get("files_skipped", {}).values())
    lines = [
        f"games read {s['games_read']:,}: accepted {s['games_accepted']:,}, rejected {s['games_rejected_total']:,} ({rejected})"
        + (f"; files without games skipped: {skipped:,} (see summary.json)" if skipped else "")
    ]
    if s.get("nodes_before_prune"):
        tree = f"sequences {s['sequences']:,}; trie {s['nodes_before_prune']:,} nodes"
        if s.get("threshold"):
            tree += (f"; pruned at count >= {s['threshold']:,}: {s['nodes_after_prune']:,} nodes, "
                     f"{s['leaves']:,} joseki, deepest {s['deepest']} moves")
        lines.append(tree)
    elif s.get("sequences"):
        lines.append(f"sequences {s['sequences']:,}")
    lines.append(f"outputs in {catalog.out} ({s['seconds']:.1f} s)")
    typer.echo("\n".join(lines))


@app.command()
def mine(
    paths: List[Path] = typer.Argument(..., help="game files, folders or archives"),
    out: Path = OUT, work: Optional[Path] = WORK, config: Optional[Path] = CONFIG,
    set_: Optional[List[str]] = SET,
    strict: bool = typer.Option(False, "--strict", help="stop at the first bad record"),
    force: bool = typer.Option(False, "--force", help="re-run every stage even if up to date"),
    quiet: bool = QUIET, jobs: Optional[int] = JOBS, engine: str = ENGINE, sort_memory: float = SORT_MEMORY,
    table_memory: float = TABLE_MEMORY, wait: bool = WAIT,
) -> None:
    """Mine joseki from game collections: every stage, skipping up-to-date ones."""
    _execute(STAGES, paths, out, work, config, set_, quiet, strict, force, engine, jobs, sort_memory, table_memory,
             wait)


@app.command()
def ingest(
    paths: List[Path] = typer.Argument(..., help="game files, folders or archives"),
    out: Path = OUT, work: Optional[Path] = WORK, config: Optional[Path] = CONFIG,
    set_: Optional[List[str]] = SET,
    strict: bool = typer.Option(False, "--strict", help="stop at the first bad record"),
    quiet: bool = QUIET, jobs: Optional[int] = JOBS, engine: str = ENGINE, table_memory: float = TABLE_MEMORY,
    wait: bool = WAIT,
) -> None:
    """Stage 1: read and validate games into games.parquet and rejects.parquet."""
    _execute(["ingest"], paths, out, work, config, set_, quiet, strict, True, engine, jobs,
             table_memory=table_memory, wait=wait)


def _single(stage: str, doc: str):
    def command(
        out: Path = OUT, work: Optional[Path] = WORK, config: Optional[Path] = CONFIG,
        set_: Optional[List[str]] = SET, quiet: bool = QUIET, jobs: Optional[int] = JOBS, engine: str = ENGINE,
        sort_memory: float = SORT_MEMORY, wait: bool = WAIT,
    ) -> None:
        _execute([stage], [], out, work, config, set_, quiet, False, True, engine, jobs, sort_memory, wait=wait)

    command.__doc__ = doc
    app.command(name=stage)(command)


_single("extract", "Stage 2: phase 1, corner sequences in normal form -> sequences.parquet.")
_single("build", "Stage 3: count sequences in the trie with influence -> trie.parquet.")
_single("prune", "Stage 4: phase 2, prune by threshold and length -> joseki.parquet.")
_single("emit", "Stage 5: write joseki.sgf, joseki.dot, influence.dot (and SVG).")


@app.command()
def demo(
    out: Path = typer.Option(Path("data/raw/demo"), "--out", help="folder to write the demo games to"),
    games: int = typer.Option(400, "--games", help="number of games"),
    seed: int = typer.Option(2007, "--seed", help="random seed"),
) -> None:
    """Write the built-in demo collection: planted joseki plus noise."""
    from joseki_miner import demo as demo_method

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
