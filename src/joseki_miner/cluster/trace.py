"""What a dask run did, task by task (``joseki mine --trace FILE``), and
what that says of how far it can scale.

A trace is a JSON object: ``wall`` (the run's seconds) and ``tasks``, each
with its ``key``, ``start`` and ``stop`` (seconds from the run's start, of
its computation on the worker), ``worker`` and ``after``: the keys it
waited for, its data (a future among its arguments, an earlier item of its
map) and the phase barrier (the last tasks whose results the driver had
when it submitted it).

From a trace: the work T1 (every task's seconds), the critical path T_inf
(the longest chain of tasks through ``after``), the serial time S (when no
task runs: imports, the cluster's start and close, the driver between
phases) and Brent's bound on the wall time with P workers,
max(T1 / P, T_inf) + S.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from joseki_miner.runs.store import write_atomically


@dataclass(frozen=True)
class Task:
    """One task of a traced run."""

    key: str
    start: float
    stop: float
    worker: str
    after: tuple[str, ...] = ()

    @property
    def seconds(self) -> float:
        return self.stop - self.start


@dataclass
class Recorder:
    """What the driver knows of a run's tasks as it submits them: each
    task's ``after``, and the frontier of the tasks whose results it has:
    the barrier of a phase it starts (a map's tasks share the barrier of
    the map's start; one waiting for a worker to be free waits for no task)."""

    after: dict[str, tuple[str, ...]] = field(default_factory=dict)
    frontier: dict[str, None] = field(default_factory=dict)  # ordered, so a run's trace reads the same each time

    def barrier(self) -> tuple[str, ...]:
        """The tasks whose results the driver has and has not yet passed on."""
        return tuple(self.frontier)

    def submitted(self, key: str, barrier: tuple[str, ...], waits: tuple[str, ...] = ()) -> None:
        """A task submitted after ``barrier``, waiting for ``waits`` too."""
        self.after[key] = tuple(dict.fromkeys([*barrier, *waits]))

    def ended(self, key: str) -> None:
        """The driver has the result of ``key``: what it waited for is behind it."""
        for before in self.after.get(key, ()):
            self.frontier.pop(before, None)
        self.frontier[key] = None


def record(stream: list[dict], recorder: Recorder, began: float) -> list[Task]:
    """The tasks of a dask task stream (``distributed.get_task_stream``'s
    data; times from ``began``, the run's start in seconds of the epoch)
    that this run's driver submitted, with what it recorded of them, in
    order of start."""
    tasks = []
    for entry in stream:
        computed = [s for s in entry.get("startstops", ()) if s.get("action") == "compute"]
        if not computed:
            continue
        key = str(entry["key"])
        if key not in recorder.after:  # another client's, on a scheduler shared
            continue
        tasks.append(
            Task(
                key,
                round(min(s["start"] for s in computed) - began, 6),
                round(max(s["stop"] for s in computed) - began, 6),
                str(entry.get("worker", "")),
                recorder.after.get(key, ()),
            )
        )
    return sorted(tasks, key=lambda t: (t.start, t.key))


def write(path: str | Path, wall: float, tasks: list[Task]) -> None:
    """The trace as JSON at ``path``."""
    body = {
        "wall": round(wall, 6),
        "tasks": [
            {"key": t.key, "start": t.start, "stop": t.stop, "worker": t.worker, "after": list(t.after)} for t in tasks
        ],
    }
    write_atomically(Path(path), (json.dumps(body, indent=1) + "\n").encode())


def load(path: str | Path) -> tuple[float, list[Task]]:
    """A trace's wall time and tasks."""
    body = json.loads(Path(path).read_text())
    tasks = [Task(t["key"], t["start"], t["stop"], t["worker"], tuple(t["after"])) for t in body["tasks"]]
    return body["wall"], tasks


def work(tasks: list[Task]) -> float:
    """T1: the seconds of every task, summed."""
    return sum(t.seconds for t in tasks)


def serial(tasks: list[Task], wall: float) -> float:
    """S: the seconds of the run in which no task runs."""
    busy, reach = 0.0, 0.0
    for t in sorted(tasks, key=lambda t: t.start):
        start, stop = max(t.start, reach), max(t.stop, reach)
        busy += stop - start
        reach = stop
    return max(0.0, wall - busy)


def critical_path(tasks: list[Task]) -> list[Task]:
    """The longest chain of tasks, each after the one before it (T_inf:
    its seconds summed); a key ``after`` names that the trace lacks (a task
    that never computed) is passed by."""
    by_key = {t.key: t for t in tasks}
    longest: dict[str, tuple[float, str | None]] = {}
    for t in sorted(tasks, key=lambda t: (t.stop, t.key)):  # what a task waited for ended before it
        best = max(
            ((longest[a][0], a) for a in t.after if a in longest), default=(0.0, None), key=lambda x: (x[0], x[1] or "")
        )
        longest[t.key] = (best[0] + t.seconds, best[1])
    if not longest:
        return []
    key: str | None = max(longest, key=lambda k: (longest[k][0], k))
    path = []
    while key is not None:
        path.append(by_key[key])
        key = longest[key][1]
    return path[::-1]


@dataclass(frozen=True)
class Scale:
    """A trace's figures: T1, T_inf, S, and the critical path."""

    wall: float
    t1: float
    t_inf: float
    s: float
    path: tuple[Task, ...]

    def bound(self, p: int) -> float:
        """Brent's wall time with ``p`` workers: max(T1 / P, T_inf) + S."""
        return max(self.t1 / p, self.t_inf) + self.s

    def speedup(self, p: int) -> float:
        """The bound's speed-up at ``p`` workers over one."""
        return self.bound(1) / self.bound(p)


def scale(wall: float, tasks: list[Task]) -> Scale:
    path = critical_path(tasks)
    return Scale(wall, work(tasks), sum(t.seconds for t in path), serial(tasks, wall), tuple(path))


def kind(key: str) -> str:
    """A task's kind: its key without the run's token and its numbers."""
    parts = [p for p in key.split("-") if not any(c.isdigit() for c in p) or p.isalpha()]
    return "-".join(parts[:3]) or key


@dataclass(frozen=True)
class Growth:
    """How a kind of task grows with the games, fitted on two traces of
    the data once and ``times`` over: its seconds in all (the work) and
    its largest task's (the longest it makes a chain), each as a power of
    the games between 0 and 1, the largest's no faster than the work's.
    Above 1 would be a task whose work grows faster than what it reads:
    in traces of copies of the same games that is the trie, whose every
    node is stored once each is counted more than once (the floor), not
    what new games do; below 0 is noise."""

    tasks: int  # in the trace of the data once
    seconds: float  # all its tasks', in that trace
    largest: float  # its largest task's, in that trace
    work: float  # the exponent of its seconds in all
    longest: float  # the exponent of its largest task's

    def at(self, factor: float) -> tuple[float, float]:
        """Its seconds in all and its largest task's at ``factor`` times the games."""
        return self.seconds * factor**self.work, self.largest * factor**self.longest


def _exponent(one: float, more: float, times: float) -> float:
    if one <= 0 or more <= 0:
        return 0.0
    return min(1.0, max(0.0, math.log(more / one) / math.log(times)))


def seconds_by_kind(tasks: list[Task]) -> dict[str, list[float]]:
    """Each kind's tasks' seconds."""
    kinds: dict[str, list[float]] = {}
    for t in tasks:
        kinds.setdefault(kind(t.key), []).append(t.seconds)
    return kinds


def growth(one: list[Task], more: list[Task], times: float) -> dict[str, Growth]:
    """Each kind's ``Growth`` from the tasks of a run on the games once
    (``one``) and ``times`` over (``more``)."""

    a, b = seconds_by_kind(one), seconds_by_kind(more)
    out = {}
    for k, seconds in a.items():
        other = b.get(k, seconds)
        out[k] = Growth(
            len(seconds),
            sum(seconds),
            max(seconds),
            work := _exponent(sum(seconds), sum(other), times),
            min(work, _exponent(max(seconds), max(other), times)),
        )
    return out


def model(one: tuple[float, list[Task]], more: tuple[float, list[Task]], times: float, factor: float) -> Scale:
    """The figures of a run on ``factor`` times the games, from traces of
    the games once and ``times`` over: T1 each kind's work grown
    (``growth``), T_inf the critical path of the run once with each task
    grown as its kind's largest, S grown as the two traces' S grew."""
    kinds = growth(one[1], more[1], times)
    grown = []
    for t in sorted(one[1], key=lambda t: (t.stop, t.key)):  # each after what it waited for
        seconds = t.seconds * factor ** kinds[kind(t.key)].longest
        grown.append(Task(t.key, t.start, t.start + seconds, t.worker, t.after))
    t1 = sum(g.at(factor)[0] for g in kinds.values())
    s1, s3 = serial(one[1], one[0]), serial(more[1], more[0])
    s = s1 * factor ** _exponent(s1, s3, times)
    path = critical_path(_reordered(grown))
    return Scale(s + t1, t1, sum(t.seconds for t in path), s, tuple(path))


def _reordered(tasks: list[Task]) -> list[Task]:
    """Tasks whose seconds changed (each given after the tasks it waits
    for), each started when the last of those stops: ``critical_path``
    reads them in order of their stops."""
    stop: dict[str, float] = {}
    out = []
    for t in tasks:
        start = max((stop[a] for a in t.after if a in stop), default=0.0)
        stop[t.key] = start + t.seconds
        out.append(Task(t.key, start, stop[t.key], t.worker, t.after))
    return out
