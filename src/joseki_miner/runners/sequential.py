"""The one-by-one runner: a stage as one call of its work in this
process, timed; emit beside the report (neither reads the other's files:
emit's drawings run in Graphviz's processes while the pages are made)."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from joseki_miner.runs.context import Context, Done, do_work
from joseki_miner.runs.stages import Stage


def run(stage: Stage, context: Context) -> Done:
    """Do ``stage``'s work; what it found and how long it took."""
    t0 = time.perf_counter()
    figures = do_work(stage, context)
    return Done(stage.name, figures, time.perf_counter() - t0)


def beside(first: Stage, second: Stage, context: Context) -> list[Done]:
    """Two stages at once, ``first`` in a thread of its own without its
    bar; each timed from the start to its own end."""

    def timed(work: Callable[[], dict]) -> tuple[dict, float]:
        return work(), time.perf_counter()

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix=first.name) as side:
        started = side.submit(timed, lambda: do_work(first, context.quiet()))
        second_figures, second_end = timed(lambda: do_work(second, context))
        first_figures, first_end = started.result()
    return [Done(first.name, first_figures, first_end - t0), Done(second.name, second_figures, second_end - t0)]
