"""``--scheduler ADDRESS``: a run's tasks on a Dask cluster (``distributed`` from PyPI, an optional dependency).

The client (this process) submits one Dask task per task of the plan. On a
worker, the task starts a fresh ``python -m loopsmith`` process exactly as a
local ``--jobs`` worker is started (:class:`.workers.Worker`: the worker's
own Python, the job in a file, entries back through a file), so bpy is
never imported in a Dask worker or forked from one, and the outputs are
written by the same code as in a local run (temporary names, moved into
place: a task re-run after a lost worker just writes them again). Each entry
gets ``"worker"``: the address of the Dask worker that ran it.

Stopping: the client sets a :class:`distributed.Event` and cancels the
futures; each running task polls the event, stops its process (SIGTERM,
which removes its temporary files) and the client waits until no task
process is left on any worker.

The graph's distance blocks are numpy only: :func:`block_map` runs them in
the cluster's worker threads, the features sent to each worker once.
"""

import collections
import contextlib
import logging
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
import uuid

from ..core.errors import LoopsmithError
from ..files import interrupts
from ..files.progress import Progress
from .entries import run_failure_entry
from . import workers
from .options import UsageError

DISTRIBUTED = "distributed==2026.8.0"  # the pin tools/venv.sh installs (cluster_requirements)
CONNECT_SECONDS = 5  # a scheduler that does not answer within this is reported as unreachable
POLL_SECONDS = 0.5  # how often a running task asks the scheduler whether the run was stopped
STOP_SECONDS = workers.GRACE + 5  # how long the client waits, once stopped, for the tasks' processes to end
BLOCKS_IN_FLIGHT = 32  # graph blocks submitted ahead of the one being merged (memory: a few MB each while they run)

_running = set()  # on a worker: the task processes alive now (see running_tasks)


class ClusterError(LoopsmithError):
    """The cluster could not run a part of the work (its workers died, the scheduler went away)."""


def _distributed():
    """Dask's ``distributed``, its log silenced here: this side says what went wrong in one line, and Dask's reconnect attempts and
    tracebacks would bury it. UsageError saying how to install it when it is missing."""
    try:
        import distributed
    except ImportError:
        raise UsageError(f"--scheduler needs Dask's 'distributed' package in this Python: {sys.executable} -m pip install '{DISTRIBUTED}'") from None
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if name.split(".")[0] == "distributed" and isinstance(logger, logging.Logger):
            for handler in logger.handlers:
                handler.setLevel(logging.CRITICAL + 1)
    return distributed


def connect(address):
    """A Dask client connected to the scheduler at ``address``; UsageError (one line) when it cannot be."""
    if __name__.split(".")[0] != "loopsmith":
        # Tasks reach the workers as references to this module, which they import as the package 'loopsmith'.
        raise UsageError(f"--scheduler runs from Python with the bpy module (python -m loopsmith), not from inside Blender, whose "
                         f"extension package ({__name__.rsplit('.', 2)[0]}) Dask's workers cannot import")
    distributed = _distributed()
    made = {}

    def make():
        try:
            made["client"] = distributed.Client(address, timeout=CONNECT_SECONDS)
        except Exception as error:  # reported below, in this process's one line
            made["error"] = error

    # In a thread of its own: something that takes the connection but never speaks Dask (a web server) would hold the
    # handshake for ever, and a signal must still stop the run meanwhile.
    attempt = threading.Thread(target=make, daemon=True)
    attempt.start()
    attempt.join(CONNECT_SECONDS + 1)
    error = made.get("error")
    if attempt.is_alive() or isinstance(error, OSError):  # silent, refused, unknown host, timed out
        raise UsageError(f"--scheduler {address}: no Dask scheduler answered there within {CONNECT_SECONDS} s")
    if isinstance(error, (ValueError, TypeError)):
        raise UsageError(f"--scheduler {address}: not a scheduler address ({_first_line(error)})")
    if error is not None:
        raise UsageError(f"--scheduler {address}: what answered there is not a Dask scheduler ({type(error).__name__})")
    return made["client"]


def _first_line(error):
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def disconnect(client):
    with contextlib.suppress(Exception):
        client.close(timeout=CONNECT_SECONDS)


def execute(client, command, options, plan):
    """Run the plan's tasks on the cluster; (entries in plan order, whether the run was interrupted). A bar step per finished task."""
    distributed = _distributed()
    run_id = uuid.uuid4().hex[:12]
    stop = distributed.Event(f"loopsmith-stop-{run_id}", client=client)
    progress = Progress(len(plan.tasks), options.quiet)
    fans_out = command.fans_out
    entries, futures, stopped = [], {}, False
    try:
        # Largest first, as the local runner balances: the cluster takes them in the order given.
        for index in sorted(range(len(plan.tasks)), key=lambda i: workers.size(plan.tasks[i]), reverse=True):
            document = workers.job_document(command, options, plan, [index])
            future = client.submit(run_task, document, stop.name, os.getcwd(), fans_out, key=f"loopsmith-{command.name}-{run_id}-{index}")
            futures[future] = index
        for future in distributed.as_completed(list(futures)):
            task = plan.tasks[futures[future]]
            found = _entries(future, task, command)
            entries.extend(found)
            progress.step(found, task[0].name)
    except interrupts.Interrupted:
        stopped = True
        stop.set()
        client.cancel(list(futures), force=True)
        _wait_until_stopped(client)
    progress.close()
    return workers.in_plan_order(entries, plan), stopped


def _entries(future, task, command):
    """A finished future's entries, or an error entry naming the file when the cluster could not run its task."""
    try:
        return future.result()
    except Exception as error:  # the workers that ran it all died, the scheduler went away: that task fails, not the whole run
        interrupts.check()
        reason = f"the cluster could not run it ({type(error).__name__}: {_first_line(error)})"
        return [run_failure_entry(str(task[0]), reason, command.name)]


def _wait_until_stopped(client):
    """After a stop: until no worker has a task process left (or :data:`STOP_SECONDS`), so none outlives the run."""
    deadline = time.monotonic() + STOP_SECONDS
    while time.monotonic() < deadline:
        try:
            if not sum(client.run(running_tasks, wait=True).values()):
                return
        except Exception:  # a worker that went away has no process left either
            return
        time.sleep(0.2)


def running_tasks():
    """On a worker: how many task processes are alive (the client asks after a stop)."""
    return sum(process.process.poll() is None for process in list(_running))


def run_task(document, stop_name, cwd, fans_out):
    """On a Dask worker: a :func:`.workers.job_document`'s task in a fresh Loopsmith process; its entries, each naming this worker.

    cwd: the client's folder, where relative paths of the run are found
    (when the worker has it: on shared storage). fans_out: the task submits
    its own tasks to the cluster (the graph's blocks), so it gives up this
    worker's thread while it waits, and a one-thread cluster cannot lock up.
    """
    import distributed

    worker = distributed.get_worker()
    stop = distributed.Event(stop_name)
    if stop.is_set():  # the run was stopped before this task started
        return []
    if fans_out:
        distributed.secede()
    with tempfile.TemporaryDirectory(prefix="loopsmith-task-") as folder:
        process = workers.Worker(document, pathlib.Path(folder), 0, cwd=cwd if os.path.isdir(cwd) else None)
        _running.add(process)
        try:
            _wait(process.process, stop)
        finally:  # stopped, or the scheduler went away: SIGTERM (it removes its temporary files), SIGKILL after the grace time
            process.stop()
            process.kill()
            _running.discard(process)
        found = process.entries(stopped=stop.is_set())
    for entry in found:
        entry["worker"] = worker.address
    return found


def _wait(process, stop):
    """Until ``process`` ends (returns as soon as it does) or the run is stopped (asked every :data:`POLL_SECONDS`)."""
    while process.poll() is None and not stop.is_set():
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(POLL_SECONDS)


def _blocks(client, function, shared, pairs):
    """``function(shared, pair)`` for each pair on the cluster, yielded in the pairs' order, a bounded number in flight."""
    [operands] = client.scatter([shared], hash=False, broadcast=True)  # the features go to each worker once, not with every block
    pending = collections.deque()
    try:
        for pair in pairs:
            pending.append(client.submit(function, operands, pair, pure=False))
            if len(pending) >= BLOCKS_IN_FLIGHT:
                yield _block(pending.popleft())
        while pending:
            yield _block(pending.popleft())
    finally:
        client.cancel(list(pending) + [operands])


def _block(future):
    try:
        return future.result()
    except Exception as error:
        interrupts.check()
        raise ClusterError(f"the cluster could not scan a block of the distance map ({type(error).__name__}: {_first_line(error)})") from None


@contextlib.contextmanager
def block_map(address):
    """A ``map_blocks`` for :func:`..core.graph.build.build_graph` that runs the blocks on the cluster at ``address``.

    ClusterError when the scheduler cannot be reached from here.
    """
    try:
        client = connect(address)
    except UsageError as error:
        raise ClusterError(str(error)) from None
    try:
        yield lambda function, shared, pairs: _blocks(client, function, shared, pairs)
    finally:
        disconnect(client)
