"""The reference and fast engines: every stage in this process, a stage
a step (``runners.sequential``), two beside each other where neither reads
the other's files, and on the fast engine ingest, extract and build in
one pass (``runners.stream``) whose counted trie goes to prune in memory."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from joseki_miner.runners import sequential
from joseki_miner.runs.context import CountedTrie, Done
from joseki_miner.runs.engine import Run, Step, one_by_one
from joseki_miner.runs.stages import ONE_PASS, Stage

ONE_PASS_STEP = "one pass"


class Local:
    """The engine of one process (module docstring); ``streams``: the fast
    engine's one pass, where a run holds its stages."""

    here = True

    def __init__(self, streams: bool) -> None:
        self.streams = streams
        self.trie: CountedTrie | None = None  # the one pass's, until the stage that reads it has run
        self.building: Callable[[], Done] | None = None  # the one pass's build, committed once trie.parquet is whole
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="write")

    def prepare(self, mining: bool) -> None:
        pass

    def plan(self, todo: Sequence[Stage], run: Run) -> list[Step]:
        if self.streams and tuple(s.name for s in todo[: len(ONE_PASS)]) == ONE_PASS:
            return [Step(tuple(todo[: len(ONE_PASS)]), ONE_PASS_STEP), *one_by_one(todo[len(ONE_PASS) :])]
        return one_by_one(todo)

    def execute(self, step: Step, run: Run) -> None:
        if step.how == ONE_PASS_STEP:
            self.one_pass(step, run)
            return
        context = run.context(step.stages[0].name)
        if self.trie is not None:
            context = replace(context, trie=self.trie)
        if step.how == "beside":
            first, second = step.stages
            dones = sequential.beside(first, second, context)
        else:
            dones = [sequential.run(step.stages[0], context)]
        for done in dones:
            run.commit(done)
        if any("trie" in stage.reads for stage in step.stages):
            self.trie = None  # read: freed

    def one_pass(self, step: Step, run: Run) -> None:
        """Ingest, extract and build in one pass: the first two committed
        now, the build once trie.parquet is written (``finish``)."""
        from joseki_miner.runners import stream

        ingest, extract, build = step.names
        one_pass = stream.ingest_to_build(run.context(ingest), self.pool)
        self.trie, self.building = one_pass.trie, one_pass.built
        run.commit(one_pass.ingest)
        run.commit(one_pass.extract, say=False)
        run.log(f"{extract}: done alongside {ingest}, {one_pass.extract.seconds:.1f} s after it")
        after = " and ".join(later for later in run.asked[run.asked.index(build) + 1 :][:2])
        run.log(f"{build}: done in {one_pass.counted_seconds:.1f} s (trie.parquet is written alongside {after})")

    def finish(self, run: Run) -> None:
        if self.building is not None:
            waiting, self.building = self.building, None
            run.commit(waiting(), say=False)

    def release(self) -> None:
        self.trie = None
        if self.building is not None:  # failed: wait for the thread still writing, commit nothing more
            try:
                self.building()
            except BaseException:  # noqa: BLE001 - the run's own error is the one to report
                pass
            self.building = None
        self.pool.shutdown(wait=True)

    def close(self) -> None:
        pass
