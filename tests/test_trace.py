"""A dask run's trace (``--trace``) and what it says of scaling: T1, T_inf, S, Brent's bound."""

from __future__ import annotations

import json

import pytest

from helpers import joseki_cli
from joseki_miner.cluster.trace import Recorder, Task, critical_path, load, record, scale, serial, work, write


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
    (prune,) = [t for t in tasks if t["key"].startswith("prune-")]
    assert any(a.startswith("build-join-trie") for a in prune["after"])
    s = scale(*load(tmp_path / "trace.json"))
    assert s.path[0].key.startswith("mine-") and 0 < s.t_inf <= s.t1 and 0 < s.s < wall
    assert joseki_cli("mine", demo_games, "--out", tmp_path / "x", "--trace", tmp_path / "t").returncode == 2
