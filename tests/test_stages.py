"""The stages declared once (joseki_miner.runs.stages): the catalog's
outputs, the cache keys, the CLI's commands and the docs' table of stages
read the declarations; every stage reads only what a stage before it
writes; a parameter in a stage's key changes its key and those of the
stages after it, not those before."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.config import load
from joseki_miner.runs.keys import stage_keys
from joseki_miner.runs.stages import BY_NAME, NAMES, PUBLISHED, STAGES, WORK_STAGES, Stage
from toy_stage import ToySettings

ROOT = Path(__file__).resolve().parents[1]


def test_every_stage_reads_what_a_stage_before_it_writes():
    written: set[str] = set()
    for stage in STAGES:
        assert set(stage.reads) <= written, stage.name
        assert stage.after is None or NAMES.index(stage.after) < NAMES.index(stage.name)
        written |= set(stage.writes)
    assert NAMES == WORK_STAGES + PUBLISHED  # the work folder's stages first, each committed as it ends


def test_the_run_loop_and_the_engines_name_no_stage():
    """pipeline/run.py and the engines (runs/engine.py, runners/, cluster/)
    hold no stage's name as a literal: they take it from runs/stages.py, so
    a stage renamed or added there is what they run."""
    src = ROOT / "src" / "joseki_miner"
    modules = [ROOT / "pipeline" / "run.py", src / "runs" / "engine.py", *(src / "runners").glob("*.py")]
    for path in [*modules, *(src / "cluster").glob("*.py")]:
        named = [
            node.lineno
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and node.value in NAMES
        ]
        assert not named, f"{path.relative_to(ROOT)}: a stage named on lines {named}"


def test_the_catalog_and_the_cli_read_the_declarations(tmp_path):
    from typer.main import get_command

    from pipeline.cli import app

    catalog = Catalog(work=tmp_path / "work", out=tmp_path / "out")
    for stage in STAGES:
        folder = catalog.out if stage.published else catalog.work
        assert [p.parent for p in catalog.outputs(stage.name)] == [folder] * len(stage.writes), stage.name
        assert [getattr(catalog, name) for name in stage.writes] == catalog.outputs(stage.name)
    commands = get_command(app).commands
    for n, stage in enumerate(STAGES, start=1):
        help = " ".join(commands[stage.name].help.split())
        assert help.startswith(f"Stage {n}: {stage.does}"), help
        # what runs with it (a published stage) or what publishes it (a work stage)
        assert ("run after it" in help or stage.name == "report") if stage.published else "publish" in help, help


def test_the_docs_table_of_stages_names_every_stage_and_what_it_writes():
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    table = design[design.index("## Stages") : design.index("### Trusted after any stop")]
    catalog = Catalog(work=Path("w"), out=Path("o"))
    for stage in STAGES:
        line = next(chunk for chunk in table.split("\n") if chunk.startswith(stage.name + " "))
        block = table[table.index(line) :].split("\n")
        text = " ".join([block[0]] + [b for b in block[1:3] if b.startswith(" ")])
        for path in catalog.outputs(stage.name):
            if path.suffix != ".svg":
                assert path.stem in text or path.name in text, (stage.name, path.name)


@pytest.mark.parametrize(
    "setting, first",
    [
        ("limits.field_kb=512", "ingest"),
        ("distance.maybe=6", "extract"),
        ("influence.neutral=4", "build"),
        ("examples=3", "prune"),
        ("emit.counters=true", "emit"),
        ("report.changed=false", "report"),
    ],
)
def test_a_parameter_changes_its_stages_key_and_those_after_not_those_before(setting, first):
    before, after = stage_keys(load(None, []), "inputs"), stage_keys(load(None, [setting]), "inputs")
    changed = {name for name in NAMES if before[name] != after[name]}
    later = {s.name for s in STAGES if s.name == first or _after(s.name, first)}
    assert changed == later, setting
    assert first in BY_NAME


def _after(name: str, first: str) -> bool:
    """Whether ``name``'s key extends ``first``'s, directly or not."""
    stage = BY_NAME[name]
    while stage.after is not None:
        if stage.after == first:
            return True
        stage = BY_NAME[stage.after]
    return False


# the toy stage's line (its work: tests/toy_stage.py); a stage of the package's own is this line in runs/stages.STAGES
TOY = Stage("toy", "the tree's first moves and their games -> toy.parquet", ("joseki",), ("toy",), work="toy_stage", after="prune", settings=ToySettings, published=True)  # fmt: skip


@pytest.mark.parametrize("engine", ["fast", "reference", "dask"])
def test_a_stage_declared_in_one_line_runs_under_every_runner(tmp_path, demo_games, engine):
    """tests/toy_stage.py and the line above are a new stage: the run keys
    it, runs it after the stages it reads, commits it with the published
    ones, keeps it when nothing changed and runs it again when its
    parameter does; the same file on every runner."""
    from joseki_miner.cluster.client import Options
    from pipeline.run import Request, run_stages

    catalog = Catalog(work=tmp_path / "work", out=tmp_path / "out", stages=STAGES + (TOY,))
    request = Request(progress=False, engine=engine, jobs=1, cluster=Options(workers=1))
    log: list[str] = []
    run_stages(catalog, load(None, []), catalog.names, [demo_games], request, log=log.append)
    assert [m.split(":")[0] for m in log if ": done" in m][-1] == "toy"
    toy = pq.read_table(catalog.out / "toy.parquet").to_pylist()
    assert toy and toy == sorted(toy, key=lambda r: (-r["games"], r["move"]))
    manifest = json.loads(catalog.manifest("toy").read_text())
    assert manifest["figures"] == {
        "first_moves": len(toy),
        "games_seen": json.loads(catalog.manifest("ingest").read_text())["figures"]["games_accepted"],
    }
    assert manifest["key"] == stage_keys(load(None, []), manifest_inputs(catalog), 2, catalog.stages)["toy"]
    assert not (catalog.out / "toy.parquet.tmp").exists()

    log.clear()
    run_stages(catalog, load(None, []), catalog.names, [demo_games], request, log=log.append)
    assert "toy: up to date, kept" in log
    log.clear()
    run_stages(catalog, load(None, ["influence.share=0.25"]), catalog.names, [demo_games], request, log=log.append)
    assert "prune: up to date, kept" in log and any(m.startswith("toy: done") for m in log)
    fast = tmp_path.parent / "toy-fast.parquet"
    if engine == "fast":
        fast.write_bytes((catalog.out / "toy.parquet").read_bytes())
    elif fast.exists():  # the other runners write the fast one's bytes
        assert (catalog.out / "toy.parquet").read_bytes() == fast.read_bytes()


def manifest_inputs(catalog: Catalog) -> str:
    return json.loads(catalog.manifest("ingest").read_text())["inputs"]


def test_a_work_stage_declared_in_one_line_keys_with_the_trees_floor(tmp_path, demo_games):
    """The toy stage in the work folder, on a tree pruned at a threshold of
    1 (the build keeps every node: a floor of 1): its files and manifest in
    the work folder, its key checked as it was recorded (the same floor),
    so the next run keeps it."""
    from dataclasses import replace

    from pipeline.run import Request, run_stages

    toy = replace(TOY, published=False)
    catalog = Catalog(work=tmp_path / "work", out=tmp_path / "out", stages=STAGES + (toy,))
    config = load(None, ["prune.min_count=1", "prune.min_fraction=0", "prune.min_games=1"])
    log: list[str] = []
    run_stages(catalog, config, catalog.names, [demo_games], Request(progress=False), log=log.append)
    assert json.loads(catalog.manifest("build").read_text())["figures"]["floor"] == 1
    assert catalog.outputs("toy") == [catalog.work / "toy.parquet"] and catalog.manifest("toy").parent == catalog.work
    assert (
        pq.read_table(catalog.work / "toy.parquet").num_rows
        == json.loads(catalog.manifest("toy").read_text())["figures"]["first_moves"]
    )
    log.clear()
    run_stages(catalog, config, catalog.names, [demo_games], Request(progress=False), log=log.append)
    assert "toy: up to date, kept" in log, log
