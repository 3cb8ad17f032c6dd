"""The dask engine's graph of tasks: their priority by phase and size (the
scheduler's order, which sets the run's memory and timing), their waits by
name, and what the map is given."""

from __future__ import annotations

import pytest

from joseki_miner.cluster.client import InProcess, Options
from joseki_miner.cluster.graph import Graph, Names, Phase, Task, context_tasks, priority


def test_the_phases_priorities_are_the_schedulers_order():
    assert [priority(p) for p in Phase] == [0, 2**39, 2**40, 2**40, 2**41, 2**42, 2**42, 2**42, 2**43, 2**43]
    assert priority(Phase.SHARD, 7) == 7 and priority(Phase.JOIN, 3) == 2**39 + 3
    assert priority(Phase.COUNT, 5) == priority(Phase.CANDIDATES, 5) == 2**40 + 5


def test_a_task_needs_only_named_tasks_before_it():
    def noop(resolution, *taken):
        return None

    with pytest.raises(ValueError, match="needs tasks before it"):
        Graph([Task("b", noop, ("a",), Phase.JOIN), Task("a", noop, (), Phase.JOIN)])
    with pytest.raises(ValueError, match="two tasks"):
        Graph([Task("a", noop, (), Phase.JOIN), Task("a", noop, (), Phase.COUNT)])


def test_a_graph_runs_by_priority_gives_the_results_it_takes_and_takes_on_more():
    ran: list[str] = []

    def record(name):
        def run(resolution, *taken):
            ran.append(name)
            return (name, resolution, *taken)

        return run

    planned = Graph(
        [
            Task("join", record("join"), (), Phase.JOIN, 1),
            Task("count", record("count"), (), Phase.COUNT, 2),
            Task("plan", record("plan"), ("count", "join"), Phase.PLAN, takes=True),
            Task("shard", record("shard"), ("plan",), Phase.SHARD, 9),
        ]
    )
    book = Task("book", record("book"), ("plan",), Phase.BOOK)
    results = planned.map(InProcess(Options()), "r", lambda task, result: [book] if task.name == "plan" else [])
    assert ran == ["count", "join", "plan", "book", "shard"]
    assert results["plan"] == ("plan", "r", [("join", "r"), ("count", "r")])  # in the graph's order
    assert list(results) == ["join", "count", "plan", "shard", "book"]


def test_the_context_stage_walks_each_piece_apart_and_writes_their_sum():
    """A task a piece of sequences.parquet, the largest first, and the
    writer last, given every walk in the pieces' order."""
    from joseki_miner.method.context import Tree
    from joseki_miner.stages.context import Piece

    walk = Tree.of([0, 0], [-1, 60])
    pieces = [Piece("part-0.parquet", (0,), 5), Piece("part-0.parquet", (1,), 9), Piece("part-1.parquet", (0,), 2)]
    planned = context_tasks(walk, pieces, lambda resolution, walks: walks, Names("k", "t"))
    assert [t.name for t in planned] == [
        "context-walk-0-k-t", "context-walk-1-k-t", "context-walk-2-k-t", "context-written-k-t"
    ]  # fmt: skip
    assert [t.size for t in planned[:3]] == [5, 9, 2] and planned[-1].takes
    assert planned[-1].needs == tuple(t.name for t in planned[:3])
    assert {t.phase for t in planned} == {Phase.CONTEXT}
