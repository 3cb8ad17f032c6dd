"""The dask engine's cluster: a scheduler given by its address, or a
LocalCluster of worker processes on this machine, and the run's tasks on it.

Only this module imports dask; the other engines never load it."""

from __future__ import annotations

import itertools
import logging
import os
import signal
import threading
import time
import uuid
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any
from contextlib import contextmanager
from dataclasses import dataclass

from joseki_miner.cluster import trace
from joseki_miner.cluster.options import PARTITION_MB, Options  # noqa: F401 - the options, where the client is
from joseki_miner.runs import stop, threads
from joseki_miner.runs.stop import check as check_stop

from joseki_miner.runs.errors import UsageError

POLL = 0.2  # seconds between the driver's looks for a stop (Ctrl-C) while tasks run
STOP_WAIT = 60.0  # seconds a failed or stopped run waits, at most, for its tasks still running on a cluster


def warm(freeze: bool = False) -> None:
    """Load the stages and their compiled code in a worker, by mining one
    game: a worker's first partition then costs what the others cost (the
    driver meanwhile hashes and plans the inputs, where there are games to
    mine).  With ``freeze`` (a worker of the run's own cluster, which ends
    with it), the objects it then holds for good (modules, dask's own:
    about 150,000) are left out of the cyclic garbage collector's full
    passes (``gc.freeze``): each pass walked them all, about 0.1 s,
    stalling whatever task set it off.  A worker of a cluster of one's own
    outlives the run: what it holds is not the run's to freeze."""
    import gc
    import tempfile
    from pathlib import Path

    from joseki_miner.stages import extract, ingest
    from joseki_miner.method.sequences import Phase1Params

    params = Phase1Params()
    with tempfile.TemporaryDirectory(prefix="joseki-warm-") as folder:
        game = Path(folder) / "game.sgf"
        game.write_text("(;GM[1]FF[4]SZ[19];B[pd];W[dp];B[pq];W[dd];B[fc];W[cf])")
        stream = extract.Phase1Stream(Path(folder) / "sequences.parquet", params)
        ingest.read(
            [game],
            Path(folder) / "games.parquet",
            Path(folder) / "rejects.parquet",
            partition=ingest.InPartition(trace=ingest.Trace()),
            hooks=ingest.Hooks(on_games=stream.add, phase1=params),
        )
        stream.close()
    if freeze:
        gc.collect()
        gc.freeze()


def _compiled() -> bool:
    """In a worker: whether numba's cache holds the compiled kernels
    (``kernel.compiled``; the driver never loads them)."""
    from joseki_miner.fast import kernel

    return kernel.compiled()


def dask_setup(worker) -> None:
    """Run by each worker of the run's own local cluster as it starts (dask's
    preload of this module): a Ctrl-C in the terminal reaches every process
    of its group, and the run stops its workers itself (it ends the cluster
    and says so in one line), so a worker ignores it rather than print a
    traceback of its own."""
    import signal

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


class _ReportedByTheDriver(logging.Filter):
    """A task's error goes back to the driver, which reports it (in one line
    where it is the user's: --strict, a full disk); the worker's own log of
    it would print the task's traceback beside that line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Compute Failed")


def _quiet_errors() -> None:
    """Install the filter above in this worker process (once)."""
    log = logging.getLogger("distributed.worker")
    if not any(isinstance(f, _ReportedByTheDriver) for f in log.filters):
        log.addFilter(_ReportedByTheDriver())


_FOLDER = threading.Condition()
_LEASE: dict = {"folder": None, "users": 0, "home": None}


@contextmanager
def in_folder(folder: str):
    """Relative paths resolved against ``folder`` (the driver's) while the
    block runs: a worker started elsewhere reads and writes the files the
    driver means (and the games' sources keep the names they were given).
    The working folder is the process's: the tasks that want the same one
    share it, a task that wants another waits until they are done."""
    with _FOLDER:
        while _LEASE["users"] and _LEASE["folder"] != folder:
            _FOLDER.wait()
        if not _LEASE["users"]:
            try:
                home = os.getcwd()
            except OSError:  # the worker's own folder is gone
                home = None
            if home is None or os.path.realpath(home) != os.path.realpath(folder):
                try:
                    os.chdir(folder)
                except OSError as exc:
                    raise UsageError(
                        f"a dask worker cannot enter {folder}, the folder `joseki` runs in, which "
                        f"relative paths name ({exc.strerror}): run it from storage every worker sees, "
                        "or give absolute paths there"
                    ) from None
            _LEASE.update(folder=folder, home=home)
        _LEASE["users"] += 1
    try:
        yield
    finally:
        with _FOLDER:
            _LEASE["users"] -= 1
            if not _LEASE["users"]:
                if _LEASE["home"] is not None:
                    try:
                        os.chdir(_LEASE["home"])
                    except OSError:
                        pass
                _LEASE.update(folder=None, home=None)
                _FOLDER.notify_all()


_RUNNING: Counter[str] = Counter()  # in a worker: the tasks of each run running now
_RUNNING_LOCK = threading.Lock()


def _alone(folder: str, run: str, function: Callable, *args):
    """``function(*args)`` in the worker's one thread (a worker is a core,
    and the cluster's other cores are other workers': ``threads``), in the
    driver's ``folder``, as a task of ``run`` (it stops at its next check
    once that run has ended: ``_end``)."""
    _quiet_errors()
    with _RUNNING_LOCK:
        _RUNNING[run] += 1
    try:
        with in_folder(folder), threads.one_thread(), stop.task_of(run):
            check_stop()  # a task that starts once its run has ended writes nothing
            return function(*args)
    finally:
        with _RUNNING_LOCK:
            _RUNNING[run] -= 1
            if not _RUNNING[run]:
                del _RUNNING[run]


def _end(run: str) -> int:
    """In a worker: ``run`` has ended; the tasks of it still running here."""
    stop.end(run)
    return _running(run)


def _running(run: str) -> int:
    with _RUNNING_LOCK:
        return _RUNNING[run]


def _some_done(pending: set) -> tuple[set, set]:
    """The futures of ``pending`` done within ``POLL`` seconds (none, or
    the first to end, and any with it), and those still pending; a stop
    (Ctrl-C) asked for is raised first."""
    from distributed import wait

    check_stop()
    try:
        return wait(pending, timeout=POLL, return_when="FIRST_COMPLETED")
    except TimeoutError:
        return set(), pending


def _taken(i: int, takes: Sequence[int], waits: list[set[int]], results: dict[int, object]) -> tuple:
    """What item ``i`` of a map is given of the items it waited for: their
    results in order, where it ``takes`` them; nothing otherwise."""
    return ([results[j] for j in sorted(waits[i])],) if i in takes else ()


@dataclass(frozen=True)
class More:
    """An item a map takes on as it runs (given back by its ``on_done``), with its
    task's name, its size and the items it waits for (by index, among
    those the map has already)."""

    item: object
    name: str
    size: int = 0
    after: tuple[int, ...] = ()


class _Items:
    """A map's items, names, sizes and waits, and the order they start in
    (the largest first): those it was given and those it takes on."""

    def __init__(self, items: Sequence, names: Sequence[str], sizes, after) -> None:
        self.items, self.names = list(items), list(names)
        self.sizes = list(sizes) if sizes else [0] * len(self.items)
        self.waits = [set(a) for a in after] if after is not None else [set() for _ in self.items]
        _check_waits(self.waits)
        self.order = (
            sorted(range(len(self.items)), key=lambda i: -self.sizes[i]) if sizes else list(range(len(self.items)))
        )

    def take(self, more: Sequence[More]) -> None:
        """``more`` items, each after items the map has (so never a cycle)."""
        if not more:  # as most tasks end: the order stands
            return
        for m in more:
            if not all(0 <= a < len(self.items) for a in m.after):
                raise ValueError(f"item {m.name} waits for items the map does not have: {m.after}")
            self.items.append(m.item)
            self.names.append(m.name)
            self.sizes.append(m.size)
            self.waits.append(set(m.after))
            self.order.append(len(self.items) - 1)
        self.order.sort(key=lambda i: -self.sizes[i])  # stable: an equal size keeps its place


def _check_waits(waits: list[set[int]]) -> None:
    """Every item waited for is an item, and every item can start once
    those before it have ended (no item waits, through others, for itself)."""
    started: set[int] = set()
    while len(started) < len(waits):
        ready = {i for i, w in enumerate(waits) if i not in started and w <= started}
        if not ready:
            left = sorted(set(range(len(waits))) - started)
            raise ValueError(f"items {left} wait for items that never end")
        started |= ready


def _threads_cpu() -> dict[str, float]:
    """CPU seconds of this process's live threads, by name (Linux; none
    elsewhere)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    tick, out = os.sysconf("SC_CLK_TCK"), {}
    if not os.path.isdir("/proc/self/task"):
        return out
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/self/task/{tid}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        name = names.get(int(tid), comm)
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


class Cluster:
    """A dask client, and the LocalCluster it started (if it did)."""

    def __init__(self, options: Options, log: Callable[[str], None] = lambda line: None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover - a dependency of the package
            raise UsageError("the dask engine needs dask's distributed: pip install 'dask[distributed]'") from None
        self.local = None
        self.folder = os.getcwd()  # where the tasks' relative paths lead, on every worker
        self.run = uuid.uuid4().hex  # names this run's tasks on the workers, to stop them (``stop_tasks``)
        self.log = log
        if options.scheduler:
            try:
                self.client = Client(options.scheduler, timeout="20s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise UsageError(f"cannot reach the dask scheduler at {options.scheduler}: {exc}") from None
        else:
            workers = options.workers or os.cpu_count() or 1
            import dask

            # dask's workers give freed memory back to the system at once
            # (glibc's trim threshold at 64 KiB): this run's workers live for
            # the run, and its arrays, freed and taken again, then cost page
            # faults: the build's counts took a fifth to a half longer
            #
            # Its log is quiet but for what stops a process: a task's error comes back here and is reported in
            # one line (or its traceback, for a bug), and a worker killed by a stop of the run (SIGKILL: the
            # worker exits as soon as it notices) would otherwise log its broken connections on the terminal.
            # The scheduler's HTTP server takes another port when 8787 is taken (say, by another run): no warning.
            # The semaphores of its processes, left when a stop of the run ends it before they close, are
            # cleaned up by multiprocessing's resource tracker, which warns that it did: the run has said how it
            # ended, in one line.
            os.environ["PYTHONWARNINGS"] = ",".join(
                filter(None, [os.environ.get("PYTHONWARNINGS"), "ignore:resource_tracker:UserWarning"])
            )
            with (
                dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}),
                warnings.catch_warnings(),
            ):
                warnings.filterwarnings("ignore", message="Port .* is already in use")
                # a worker spawned before its preload ignores SIGINT would print a traceback of a Ctrl-C: its
                # process is spawned with SIGINT blocked (a thread's mask is its children's); the driver gets it
                # once the cluster is up (pending till then, never lost)
                masked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                try:
                    self.local = LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        silence_logs=logging.CRITICAL,
                        preload=[__name__],
                    )  # dask_setup
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, masked)
            self.client = Client(self.local)
        if not all(self.client.run(_compiled).values()):
            log(
                "compiling the fast engine's kernels on the workers (once a machine, about half a minute; later "
                "runs load them)"
            )
        # every worker that joins later warms at its first task
        self.client.run(warm, freeze=self.local is not None)
        self.recorder: trace.Recorder | None = None
        self._stream = None
        if options.trace:
            from distributed import get_task_stream

            self.recorder = trace.Recorder()
            self._stream = get_task_stream(client=self.client)
            self._stream.__enter__()

    def map(
        self,
        function: Callable,
        items: Sequence,
        *args,
        names: Sequence[str],
        sizes: Sequence[int] | None = None,
        after: Sequence[Sequence[int]] | None = None,
        on_done: Callable[[int, object], Sequence[More] | None] = lambda i, result: None,
        takes: Sequence[int] = (),
    ) -> list:
        """``function(item, *args)`` for every item, on the workers, the
        largest (``sizes``) first, and no more at once than the workers
        run: each next one goes to the first worker free (dask would send
        them all at once, by where their arguments are, and a worker could
        stand idle while another has several to do); an item starts once
        the items ``after[i]`` (their indices) have ended, and an item of
        ``takes`` is given their results too (``function(item, *args,
        results)``: small ones, through the driver); ``on_done(i,
        result)`` as each ends: the items it gives back (``More``), if
        any, the map takes on (their results follow the others').  Checks for a stop
        while it waits; a task's error is raised here (a task whose worker
        died is retried by dask)."""
        them = _Items(items, names, sizes, after)
        order, waits = them.order, them.waits
        barrier = self.recorder.barrier() if self.recorder is not None else ()
        futures: dict[int, object] = {}
        results: dict[int, object] = {}
        where: dict[str, int] = {}
        pending: set = set()
        try:
            while order or pending:
                free = self.workers() - len(pending) if order else 0  # workers that join later take tasks too
                ready = list(itertools.islice((i for i in order if waits[i] <= results.keys()), max(0, free)))
                for i in ready:  # the first that can start, no more than the workers free
                    order.remove(i)
                    futures[i] = self.client.submit(
                        _alone,
                        self.folder,
                        self.run,
                        function,
                        them.items[i],
                        *args,
                        *_taken(i, takes, waits, results),
                        key=them.names[i],
                        priority=them.sizes[i],
                        pure=False,
                    )
                    where[futures[i].key] = i
                    pending.add(futures[i])
                    if self.recorder is not None:
                        data = [str(a.key) for a in args if hasattr(a, "key") and hasattr(a, "result")]
                        waited = (*(them.names[j] for j in sorted(waits[i])), *data)
                        self.recorder.submitted(them.names[i], barrier, waited)
                done, pending = _some_done(pending)
                for f in done:
                    i = where[f.key]
                    results[i] = f.result()  # raises the task's error (or its cancellation)
                    them.take(on_done(i, results[i]) or ())
                    # its result taken, dask may forget it: a worker lost later is not asked to compute it
                    # again (a count rewritten while the shards read it)
                    del futures[i]
                    if self.recorder is not None:
                        self.recorder.ended(str(f.key))
            return [results[i] for i in range(len(them.items))]
        except BaseException:
            for f in futures.values():
                f.cancel()
            self.stop_tasks()
            raise

    def workers(self) -> int:
        """The workers' threads: the tasks the cluster runs at once (at least 1)."""
        return max(1, sum(self.client.nthreads().values()))

    def later(self, function: Callable, *args, name: str):
        """``function(*args)`` started on a worker: its future, to give to
        ``map`` among the arguments (dask hands its result from worker to
        worker)."""
        if self.recorder is not None:
            self.recorder.submitted(name, self.recorder.barrier())
        return self.client.submit(_alone, self.folder, self.run, function, *args, key=name, pure=False)

    def stop_tasks(self) -> None:
        """The run failed or was stopped: its tasks still running stop at
        their next check.  A cancelled future's task runs on to its end on
        its worker: on a cluster of one's own it would write into the
        folders the run is about to clean, or the next run's, so the run
        waits (at most ``STOP_WAIT``) until none runs.  A local cluster's
        workers end with the run."""
        deadline = time.monotonic() + STOP_WAIT
        running = self._on_workers(_end, deadline)
        if self.local is not None or not running:
            return
        self.log(
            f"dask: waiting for this run's {running} task{'s' * (running != 1)} still running on the cluster "
            f"to stop (at most {STOP_WAIT:.0f} s)"
        )
        while running and time.monotonic() < deadline:
            time.sleep(0.05)
            running = self._on_workers(_running, deadline)
        if running:
            self.log(f"dask: {running} task{'s' * (running != 1)} of this run still running on the cluster")

    def _on_workers(self, function: Callable[[str], int], deadline: float) -> int:
        """The sum of ``function(run)`` on every worker that answers before
        ``deadline`` (a worker that cannot be reached runs nothing of ours
        that could be stopped)."""
        answer: dict = {}

        def ask() -> None:
            try:
                answer.update(self.client.run(function, self.run, on_error="ignore"))
            except Exception:  # noqa: BLE001 - a cluster gone runs nothing; the run's own error is the one to report
                pass

        asking = threading.Thread(target=ask, name="stop-tasks", daemon=True)
        asking.start()
        asking.join(max(0.0, deadline - time.monotonic()))
        return sum(v for v in dict(answer).values() if isinstance(v, int)) if not asking.is_alive() else 0

    def everywhere(self, future) -> None:
        """Wait for ``future`` (checking for a stop) and copy its result to
        every worker: the tasks that need it then go to whichever worker is
        free, not all to the one that made it."""
        pending = {future}
        while pending:
            _, pending = _some_done(pending)
        if future.status == "error":
            future.result()
        if self.recorder is not None:
            self.recorder.ended(str(future.key))
        self.client.replicate([future])

    def call(self, function: Callable, *args, name: str) -> Any:
        """``function(*args)`` on a worker."""
        return self.map(lambda _, *a: function(*a), [None], *args, names=[name])[0]

    def cpu_line(self) -> str:
        """How the CPU time was shared: this process (the driver; of it, the
        thread of dask's event loop: the client's messages and a
        LocalCluster's scheduler, which a cluster runs elsewhere) and the
        workers (of a LocalCluster: their whole lives, start-up included)."""
        import resource

        def used() -> float:
            r = resource.getrusage(resource.RUSAGE_SELF)
            return r.ru_utime + r.ru_stime

        loop = _threads_cpu().get("IO loop")
        driver = f"dask: driver CPU {used():.2f} s" + (f" (dask's event loop {loop:.2f} s)" if loop else "")
        try:
            workers = sum(self.client.run(used).values())
        except Exception:  # noqa: BLE001 - a figure for the log only
            return driver
        return f"{driver}, workers CPU {workers:.2f} s"

    def traced(self) -> list[dict]:
        """The task stream recorded since the cluster started (with
        ``trace``), ended here."""
        if self._stream is None:
            return []
        stream, self._stream = self._stream, None
        try:
            stream.__exit__(None, None, None)
        except Exception as exc:  # noqa: BLE001 - a scheduler gone takes the trace with it, not the run
            self.log(f"dask: the task stream could not be read: {exc}")
            return []
        return list(stream.data)

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self.local is not None:
                self.local.close()


class InProcess:
    """The dask engine's tasks run in this process, one at a time, in the
    order ``Cluster.map`` would give them to one worker: how ``--add``
    mines with the fast and reference engines.  The partitions are those
    of the dask engine, kept in the work folder, so a later ``--add`` reads
    only the new games; the files are the same bytes."""

    local = None
    recorder = None  # traces nothing: its tasks are no dask tasks

    def __init__(self, options: Options, log: Callable[[str], None] = lambda line: None) -> None:
        self.log = log

    def map(
        self,
        function: Callable,
        items: Sequence,
        *args,
        names: Sequence[str],
        sizes: Sequence[int] | None = None,
        after: Sequence[Sequence[int]] | None = None,
        on_done: Callable[[int, object], Sequence[More] | None] = lambda i, result: None,
        takes: Sequence[int] = (),
    ) -> list:
        them = _Items(items, names, sizes, after)
        order, waits = them.order, them.waits
        results: dict[int, object] = {}
        while order:
            i = next(i for i in order if waits[i] <= results.keys())
            order.remove(i)
            check_stop()
            with threads.one_thread():
                results[i] = function(them.items[i], *args, *_taken(i, takes, waits, results))
            them.take(on_done(i, results[i]) or ())
        return [results[i] for i in range(len(them.items))]

    def workers(self) -> int:
        return 1

    def later(self, function: Callable, *args, name: str):
        """``function(*args)`` now: its result is what the tasks after it take."""
        check_stop()
        with threads.one_thread():
            return function(*args)

    def everywhere(self, future) -> None:
        pass

    def call(self, function: Callable, *args, name: str) -> Any:
        return self.map(lambda _, *a: function(*a), [None], *args, names=[name])[0]

    def stop_tasks(self) -> None:
        pass

    def traced(self) -> list[dict]:
        return []

    def cpu_line(self) -> str:
        return ""

    def close(self) -> None:
        pass
