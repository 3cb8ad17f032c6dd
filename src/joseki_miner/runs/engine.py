"""What an engine is to the run: it plans the stages to run into steps
(one stage, stages beside each other, the fast engine's one pass, the dask
engine's partitions) and executes a step, handing each stage it has done
to the run, which keys and commits it (pipeline/run.py).  The reference
and fast engines (``runners.local``) and the dask engine
(``cluster.engine``) each implement it; what one stage hands the next in
memory (the counted trie) stays inside the engine that made it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from joseki_miner.runs.stages import BESIDE, Stage

if TYPE_CHECKING:
    from joseki_miner.runs.catalog import Catalog
    from joseki_miner.runs.context import Context, Done


@dataclass(frozen=True)
class Step:
    """Stages an engine runs as one: ``how`` names the way ("alone",
    "beside", or the engine's own: "one pass", "partitioned")."""

    stages: tuple[Stage, ...]
    how: str = "alone"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.stages)


class Run(Protocol):
    """What an engine asks of the run it executes steps for."""

    catalog: Catalog
    asked: tuple[str, ...]  # the stages the run was asked for, in order
    done: set[str]  # the stages this run has committed (or staged to publish)

    def context(self, stage: str) -> Context: ...
    def pruned_context(self, stage: str, built: dict, pruned: dict) -> Context: ...
    def commit(self, done: Done, say: bool = True) -> None: ...
    def key(self, stage: str) -> str: ...
    def digests(self) -> dict: ...
    def log(self, line: str) -> None: ...


class Engine(Protocol):
    """The engines' one interface (module docstring)."""

    here: bool  # the stages' work runs in this process (its kernels compile here)

    def prepare(self, mining: bool) -> None:
        """Before the inputs are walked; ``mining``: the run may read games
        (new inputs, or --force): what the engine needs may start now."""

    def plan(self, todo: Sequence[Stage], run: Run) -> list[Step]:
        """The steps that run ``todo`` (the stages from the first not up to date)."""
        ...

    def execute(self, step: Step, run: Run) -> None:
        """Run ``step``, committing each stage done through ``run``."""

    def finish(self, run: Run) -> None:
        """After the last step: what an engine commits once the others are done."""

    def release(self) -> None:
        """Whether the run finished or failed: wait for the engine's threads, commit nothing more."""

    def close(self) -> None:
        """The run is over: stop what the engine started."""


def one_by_one(todo: Sequence[Stage]) -> list[Step]:
    """``todo`` a stage a step, but for two stages run beside each other
    (``runs.stages.BESIDE``: neither reads the other's files)."""
    steps, i = [], 0
    while i < len(todo):
        pair = tuple(todo[i : i + 2])
        if tuple(s.name for s in pair) == BESIDE:
            steps.append(Step(pair, "beside"))
        else:
            steps.append(Step(pair[:1]))
        i += len(steps[-1].stages)
    return steps
