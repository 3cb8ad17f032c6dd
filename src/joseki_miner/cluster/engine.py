"""The dask engine (``cluster.runner``) as the run sees an engine
(``runs.engine``): ingest and extract by partitions, a task each on the
workers, with the build and prune beside their joins where the run holds
them; every other stage as the runner makes it, emit beside the report."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from joseki_miner.cluster.client import Options
from joseki_miner.cluster.runner import Book, DaskRunner
from joseki_miner.runs.engine import Run, Step, one_by_one
from joseki_miner.runs.stages import BESIDE, ONE_PASS, PARTITIONED, TREE, Stage

PARTITIONED_STEP = "partitioned"


class Dask:
    """The engine of a dask cluster (module docstring).  ``in_process``:
    the partitions' run in this process (``--add`` on the other engines)."""

    def __init__(self, options: Options, log, started: float, in_process: bool) -> None:
        self.runner = DaskRunner(options, log, started, in_process=in_process)
        self.here = in_process

    def prepare(self, mining: bool) -> None:
        """Where there are games to mine, the cluster starts (and warms)
        while the inputs are hashed; otherwise once a stage needs it
        (every stage may be up to date: no cluster at all)."""
        if mining:
            self.runner.start_soon()

    def plan(self, todo: Sequence[Stage], run: Run) -> list[Step]:
        # extract alone (new distances) too: its partitions, mined on every worker, replace those of the old
        # parameters, as they would in a clean run
        names = tuple(s.name for s in todo)
        first, then = PARTITIONED
        if names[:1] == (first,) or (names[:1] == (then,) and first in run.asked):
            parts = len(PARTITIONED) if names[0] == first else 1
            return [Step(tuple(todo[:parts]), PARTITIONED_STEP), *one_by_one(todo[parts:])]
        return one_by_one(todo)

    def execute(self, step: Step, run: Run) -> None:
        if step.how == PARTITIONED_STEP:
            self.partitioned(step, run)
            return
        stage = step.stages[0]
        self.runner.cluster()  # started (where no stage needed it before) ahead of this stage's clock
        beside = step.stages[1] if step.how == "beside" else None
        for done in self.runner.stage(stage, run.context(stage.name), run.key(stage.name), beside):
            run.commit(done)

    def partitioned(self, step: Step, run: Run) -> None:
        """The partitions mined and phase 1 run on the workers, the build
        (and prune) beside their joins where the run holds them; each stage
        committed as it is done.  The cluster starts while they are planned
        (its wait is in the stage's time, as on a first run)."""
        first, then = PARTITIONED
        build = ONE_PASS[-1]
        self.runner.start_soon()
        self.runner.partitioned(
            run.context(step.names[0]),
            run.digests(),
            run.key(then),
            partial(run.commit, say=False),
            ingest=step.names[0] == first,
            build=build in run.asked,
            prune={build, TREE} <= set(run.asked),
            book=self.book(run),
        )

    def book(self, run: Run) -> Book | None:
        """Emit (with the report beside it) or the report alone, where the
        run asks for them after prune: the runner makes them as soon as
        prune's files are written."""
        asked = run.asked
        after = asked[asked.index(TREE) + 1 :] if TREE in asked else ()
        if not after or after[0] not in BESIDE:
            return None
        catalog = run.catalog
        beside = catalog.stage(BESIDE[1]) if after[:2] == BESIDE else None
        return Book(catalog.stage(after[0]), beside, partial(run.pruned_context, after[0]))

    def finish(self, run: Run) -> None:
        """Ingest up to date but extract not run: the partitions of these
        inputs kept for the next run."""
        first, then = PARTITIONED
        if {first, then} <= set(run.asked) and then not in run.done and any(run.catalog.partitions.glob("*")):
            self.runner.keep_partitions(run.context(first), run.digests())

    def release(self) -> None:
        pass

    def close(self) -> None:
        self.runner.close()
