"""What the joseki command's modules share: the app, the options they
take, the folders of a run or a query (``catalog_of``), and one-line
failures (``fail``)."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from joseki_miner.cluster.options import PARTITION_MB
from joseki_miner.runs import remote
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.config import SORT_MEMORY_MB, TABLE_MEMORY_MB
from joseki_miner.runs.errors import UsageError

HELP = """The joseki command: 'joseki mine GAMES' runs every stage, 'joseki
ingest|extract|build|prune|emit|report' runs one; 'joseki lookup|games|trend|
compare|repertoire|position' answer from a mined tree; 'joseki explore' serves it
on a page; 'joseki practice' drills it (its schedule, Anki decks); 'joseki demo'
writes the built-in demo collection."""

app = typer.Typer(add_completion=False, no_args_is_help=True, help=HELP)


def plain(text: str) -> str:
    """Help text shown as written: its brackets (B[pd], [ai]) are no markup."""
    return text.replace("[", "\\[")


OUT = typer.Option(
    "data/processed",
    "--out",
    help="folder for the joseki tree files, or an fsspec URL (s3://, gs://, "
    "...: written to data/published/<URL> and published when the run ends)",
)
PUBLISHED_COPIES = Path("data/published")  # the local copies of output folders at URLs
WORK = typer.Option(None, "--work", help="folder for stage outputs (default: OUT/interim)")
CONFIG = typer.Option(
    None,
    "--config",
    help="YAML parameters (default: configs/default.yaml's: the thesis' with "
    "the kinds and start region of its future work; configs/thesis.yaml: the thesis exactly)",
)
SET = typer.Option(None, "--set", help="override one parameter: KEY=VALUE (repeatable)")
QUIET = typer.Option(False, "--quiet", help="no progress bars and no lines of progress (errors still)")
JOBS = typer.Option(None, "--jobs", help="threads for the compiled kernel (default, or 0: every core)")
WAIT = typer.Option(False, "--wait", help="when another run is using the folders, wait for it instead of stopping")
ENGINE = typer.Option(
    "fast",
    "--engine",
    help="fast (compiled), reference (plain Python) or dask (partitions on a dask cluster); same outputs",
)
SCHEDULER = typer.Option(
    None,
    "--scheduler",
    metavar="ADDRESS",
    help="--engine dask: a dask scheduler (tcp://host:8786); default: a local cluster",
)
WORKERS = typer.Option(0, "--workers", help="--engine dask: worker processes of the local cluster (0: one a core)")
PARTITION = typer.Option(
    PARTITION_MB,
    "--partition-mb",
    metavar="MB",
    help="--engine dask: MB of input a partition gathers (a larger archive is cut in parts of its members)",
)
TRACE = typer.Option(
    None,
    "--trace",
    metavar="FILE",
    help="--engine dask: write each task's start, stop, worker and what it waited for to FILE (JSON, for make scale)",
)
SORT_MEMORY = typer.Option(
    SORT_MEMORY_MB,
    "--sort-memory",
    metavar="MB",
    help="sequences held for the trie before sorted runs are spilled to WORK/runs; same outputs",
)
TABLE_MEMORY = typer.Option(
    TABLE_MEMORY_MB,
    "--table-memory",
    metavar="MB",
    help="duplicate fingerprints and kifu index lines held in memory; past it they are "
    "mapped from files in WORK, about MB of them resident; same outputs",
)


def catalog_of(out: str, work: Path | None) -> Catalog:
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


def printable(text) -> str:
    """A path or argument as text that prints (bytes that are not UTF-8 escaped)."""
    return os.fsencode(str(text)).decode("utf-8", "backslashreplace")


def fail(message: str, code: int):
    typer.echo(f"joseki: {message}", err=True)
    raise typer.Exit(code)
