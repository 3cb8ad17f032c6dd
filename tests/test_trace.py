"""A dask run's trace (``--trace``) and what it says of scaling: T1, T_inf, S, Brent's bound."""

from __future__ import annotations

import json

import pytest

from helpers import joseki_cli
from joseki_miner.cluster.trace import (
    Recorder,
    Task,
    critical_path,
    growth,
    kind,
    load,
    model,
    record,
    scale,
    serial,
    work,
    write,
)


def _tasks() -> list[Task]:
    """Two mines, a join after both, a count after the join beside a second
    count, a prune after both counts: by hand."""
    return [
        Task("mine-a", 1.0, 4.0, "w1"),
        Task("mine-b", 1.0, 2.0, "w2"),
        Task("join", 4.5, 5.0, "w1", ("mine-a", "mine-b")),
        Task("count-1", 5.0, 7.0, "w1", ("join",)),
        Task("count-2", 5.0, 5.5, "w2", ("join",)),
        Task("prune", 8.0, 9.0, "w2", ("count-1", "count-2")),
    ]


def test_work_serial_time_and_critical_path_of_a_trace():
    tasks = _tasks()
    assert work(tasks) == pytest.approx(3 + 1 + 0.5 + 2 + 0.5 + 1)
    # no task runs in [0, 1), [4, 4.5), [7, 8) and [9, 10)
    assert serial(tasks, wall=10.0) == pytest.approx(1 + 0.5 + 1 + 1)
    assert [t.key for t in critical_path(tasks)] == ["mine-a", "join", "count-1", "prune"]
    s = scale(10.0, tasks)
    assert (s.t1, s.t_inf, s.s) == pytest.approx((8.0, 6.5, 3.5))
    assert s.bound(1) == pytest.approx(8.0 + 3.5) and s.bound(2) == pytest.approx(6.5 + 3.5)
    assert s.bound(256) == s.bound(2) and s.speedup(2) == pytest.approx(11.5 / 10.0)


def test_the_model_grows_each_kind_of_task_as_two_traces_show_it():
    """Mines that grow in number (a task each as long), a join that grows
    in length (one task): at 9 times the games, mines of 18 s in all and
    a join of 9 s, so T1 28 s and T_inf 11 s (a mine, the join, emit); S
    as it grew; a kind faster in the larger trace (noise) does not shrink,
    and none grows past its share of the games."""
    once = [
        Task("mine-1-9f3e", 1, 2, "w1"),
        Task("mine-2-9f3e", 1, 2, "w2"),
        Task("join-games-9f3e", 2, 3, "w1", ("mine-1-9f3e", "mine-2-9f3e")),
        Task("emit-9f3e", 3, 4, "w1", ("join-games-9f3e",)),
    ]
    thrice = [Task(f"mine-{i}-9f3e", 1 + i // 2, 2 + i // 2, f"w{i % 2}") for i in range(6)]
    thrice += [
        Task("join-games-9f3e", 4, 7, "w1", ("mine-5-9f3e",)),
        Task("emit-9f3e", 7, 7.5, "w1", ("join-games-9f3e",)),
    ]
    thrice += [Task("prune-9f3e", 7.5, 7.6, "w1", ("emit-9f3e",))]  # in the larger trace only: not modelled
    assert kind("build-count-12-40-c80b-1f2e") == "build-count" and kind("mine-3bc3cd4e292b-e429832d") == "mine"
    kinds = growth(once, thrice, 3)
    assert kinds["mine"].work == pytest.approx(1) and kinds["mine"].longest == pytest.approx(0)
    assert kinds["join-games"].work == pytest.approx(1) and kinds["join-games"].longest == pytest.approx(1)
    assert kinds["emit"].work == 0 and kinds["emit"].longest == 0  # half as long: noise, not less work
    assert "prune" not in kinds
    m = model((5.0, once), (8.0, thrice), 3, 9)
    assert (m.t1, m.t_inf) == pytest.approx((2 * 9 + 9 + 1, 1 + 9 + 1))
    assert [t.key for t in m.path][1:] == ["join-games-9f3e", "emit-9f3e"] and m.path[0].key.startswith("mine")
    assert m.s == pytest.approx(2)  # 2 s with no task once, 1.5 s thrice: not shrunk
    assert m.bound(64) == pytest.approx(m.t_inf + m.s)


def test_a_task_waited_for_that_never_computed_is_passed_by():
    tasks = [Task("a", 0, 1, "w"), Task("b", 1, 3, "w", ("a", "lost"))]
    assert [t.key for t in critical_path(tasks)] == ["a", "b"]


def test_the_recorder_gives_a_maps_tasks_the_barrier_of_its_start():
    """The second task of a map waits for a free worker, not for the first
    task: both follow what the driver had when the map began."""
    r = Recorder()
    r.submitted("mine-1", r.barrier())
    r.ended("mine-1")
    barrier = r.barrier()
    r.submitted("count-1", barrier)
    r.submitted("count-2", barrier)
    r.ended("count-1")
    r.submitted("count-3", barrier, ("count-1",))  # an item of the map that waits for another
    r.ended("count-2")
    r.ended("count-3")
    assert r.after == {
        "mine-1": (),
        "count-1": ("mine-1",),
        "count-2": ("mine-1",),
        "count-3": ("mine-1", "count-1"),
    }
    assert r.barrier() == ("count-2", "count-3")


def test_a_trace_is_written_and_read_back(tmp_path):
    stream = [
        {"key": "mine-a", "worker": "tcp://w1", "startstops": [{"action": "compute", "start": 101.0, "stop": 104.0}]},
        {"key": "gone", "worker": "tcp://w2", "startstops": [{"action": "transfer", "start": 101.0, "stop": 102.0}]},
        {"key": "others", "worker": "tcp://w2", "startstops": [{"action": "compute", "start": 101.0, "stop": 102.0}]},
    ]
    r = Recorder()
    r.submitted("mine-a", ())
    tasks = record(stream, r, began=100.0)
    write(tmp_path / "t.json", 5.0, tasks)
    assert load(tmp_path / "t.json") == (5.0, [Task("mine-a", 1.0, 4.0, "tcp://w1", ())])


def test_a_dask_run_traces_every_task_and_its_outputs_are_those_of_a_run_without(demo_games, tmp_path):
    from crashtest import outputs

    common = ("mine", demo_games, "--engine", "dask", "--workers", "2", "--partition-mb", "0.05", "--quiet")
    traced = joseki_cli(*common, "--out", tmp_path / "traced", "--trace", tmp_path / "trace.json")
    assert traced.returncode == 0, traced.stderr
    plain = joseki_cli(*common, "--out", tmp_path / "plain")
    assert plain.returncode == 0, plain.stderr
    assert outputs(tmp_path / "traced") == outputs(tmp_path / "plain")
    body = json.loads((tmp_path / "trace.json").read_text())
    wall, tasks = body["wall"], body["tasks"]
    keys = {t["key"] for t in tasks}
    assert all(0 <= t["start"] <= t["stop"] <= wall and t["worker"].startswith("tcp://") for t in tasks)
    assert all(set(t["after"]) <= keys for t in tasks)  # every task waited for is in the trace
    mines = [t for t in tasks if t["key"].startswith("mine-")]
    assert len(mines) > 1 and all(t["after"] == [] for t in mines)

    # the trie planned once its counts are done, a shard a count after, and apart what phase 2 may keep of each;
    # pruned on those candidates once games.parquet is committed, not waiting for the shards' files; the shards
    # searched for the kept games and positions after
    def waits(task: dict) -> set[str]:  # the tasks it waited for, but resolve (every one after it takes its result)
        return {a for a in task["after"] if not a.startswith("resolve-")}

    (plan,) = [t for t in tasks if t["key"].startswith("build-plan-")]
    shards = [t for t in tasks if t["key"].startswith("build-shard-")]
    assert waits(plan) == {t["key"] for t in tasks if t["key"].startswith("build-count-")}
    candidates = [t for t in tasks if t["key"].startswith("build-candidates-")]
    assert len(shards) > 1 and all(waits(t) == {plan["key"]} for t in shards + candidates)
    assert len(candidates) == len(shards)
    (prune,) = [t for t in tasks if t["key"].startswith("prune-shards-")]
    assert {t["key"] for t in candidates} <= waits(prune) and not {t["key"] for t in shards} & waits(prune)
    assert any(a.startswith("join-games-") for a in waits(prune))
    assert not [t for t in tasks if t["key"].startswith("build-join")]  # no task joins the trie
    searched = [t for t in tasks if t["key"].startswith("prune-search-")]
    assert len(searched) == len(shards) and all(waits(t) == {prune["key"]} for t in searched)
    (written,) = [t for t in tasks if t["key"].startswith("prune-found-")]
    assert waits(written) == {t["key"] for t in searched}
    # the context stage once prune's files and the shards' are written, a piece of sequences.parquet a task and
    # node_context.parquet written from them all; then emit and the report's parts (they read node_context.parquet)
    walks = [t for t in tasks if t["key"].startswith("context-walk-")]
    (context,) = [t for t in tasks if t["key"].startswith("context-written-")]
    assert walks and min(t["start"] for t in walks) >= max(t["stop"] for t in [written, *shards])
    assert {t["key"] for t in walks} <= set(context["after"]) and context["start"] >= max(t["stop"] for t in walks)
    book = [t for t in tasks if t["key"].startswith("emit-")]
    assert len(book) > 1 and all(t["start"] >= context["stop"] for t in book)
    s = scale(*load(tmp_path / "trace.json"))
    assert s.path[0].key.startswith("mine-") and 0 < s.t_inf <= s.t1 and 0 < s.s < wall
    assert joseki_cli("mine", demo_games, "--out", tmp_path / "x", "--trace", tmp_path / "t").returncode == 2


def test_a_run_on_a_scheduler_and_two_workers_started_apart_gives_the_fast_engines_files(demo_games, tmp_path):
    """A real cluster's way in: ``dask scheduler`` and two ``dask worker``
    processes started as commands of their own (not a LocalCluster), the
    run given the scheduler's address; its trace names both workers."""
    import os
    import socket
    import subprocess
    import sys
    from pathlib import Path

    from distributed import Client
    from helpers import files_of

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    root = Path(__file__).resolve().parents[1]
    apart = {
        "env": {**os.environ, "PYTHONPATH": f"{root / 'src'}{os.pathsep}{root}"},
        "stdout": subprocess.DEVNULL,
        "stderr": subprocess.DEVNULL,
    }

    def dask(command: str, *args) -> subprocess.Popen:  # `dask scheduler`, `dask worker`
        return subprocess.Popen([sys.executable, "-m", f"distributed.cli.dask_{command}", *args], **apart)

    processes = [dask("scheduler", "--port", address.rsplit(":", 1)[1], "--no-dashboard")]
    try:
        for _ in range(2):
            processes.append(dask("worker", address, "--nthreads", "1", "--no-dashboard"))
        with Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=60)
        run = ("--engine", "dask", "--scheduler", address, "--partition-mb", "0.05", "--trace", tmp_path / "trace.json")
        done = joseki_cli("mine", demo_games, "--out", tmp_path / "apart", "--quiet", *run)
        assert done.returncode == 0, done.stderr
    finally:
        for p in processes[::-1]:
            p.terminate()
            p.wait(30)
    fast = joseki_cli("mine", demo_games, "--out", tmp_path / "fast", "--jobs", "1", "--quiet")
    assert fast.returncode == 0, fast.stderr
    assert files_of(tmp_path / "apart") == files_of(tmp_path / "fast")  # the partitions are the dask engine's alone
    _, tasks = load(tmp_path / "trace.json")
    assert len({t.worker for t in tasks}) == 2
