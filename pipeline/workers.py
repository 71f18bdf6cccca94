"""Worker processes and the plan they share: the job file a worker runs, how it runs it, and how its entries come back.

Plain Python; the command's job module is imported only where tasks run
(:func:`process_tasks`), and Blender only where a task needs a scene. A worker is a fresh ``python -m
loopsmith`` (or ``blender -b -c loopsmith``) process given a job file
through :data:`WORKER_JOB`: local ``--jobs`` workers (:mod:`.runner`) and
Dask tasks (:mod:`.cluster`) start it the same way.
"""

import argparse
import contextlib
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

from ..files import inputs as input_files, interrupts
from . import commands, libc
from .entries import run_failure_entry
from .options import json_values

WORKER_JOB = "LOOPSMITH_WORKER_JOB"  # set in a worker's environment: the path of its job file
GRACE = 5.0  # seconds a worker gets to stop after SIGTERM before it is killed


class Plan:
    """What every process of a run agrees on: the tasks, their output names, and the inputs no output may replace (the
    tasks' files and ``also``, the files the run reads besides: a song, a skeleton)."""

    def __init__(self, tasks, names, inputs=None, also=()):
        self.tasks = [tuple(task) for task in tasks]
        self.names = list(names)
        self.inputs = inputs or sorted({str(input_files.real(path)) for task in self.tasks for path in (*task, *also)})

    def share(self, k, n):
        """The K-th of N shares of the tasks (every N-th from the K-th, 1-based), names and protected inputs kept as planned
        for the whole run, so a farm's shards write what one run would."""
        return Plan(self.tasks[k - 1::n], self.names[k - 1::n], self.inputs)


def in_plan_order(entries, plan):
    """Entries sorted by their task's place in the plan (input order), whatever order they finished in."""
    order = {str(task[0]): index for index, task in enumerate(plan.tasks)}
    return sorted(entries, key=lambda entry: order.get(entry["file"], len(order)))


def balanced(tasks, count_):
    """``count_`` lists of task indices of about equal total input size (largest first, onto the lightest list)."""
    chunks, loads = [[] for _ in range(count_)], [0] * count_
    for index in sorted(range(len(tasks)), key=lambda i: size(tasks[i]), reverse=True):
        lightest = loads.index(min(loads))
        chunks[lightest].append(index)
        loads[lightest] += size(tasks[index])
    return chunks


def size(task):
    """The task's input files' total bytes (a file that cannot be read counts 0)."""
    total = 0
    for path in task:
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    return total


NO_BLENDER = "needs Blender, and this Python has no bpy module: run it with the bpy module or in Blender"


def _failure(error):
    """The reason a task failed with ``error``, an exception no job expects."""
    if isinstance(error, ModuleNotFoundError) and error.name == "bpy":
        return NO_BLENDER
    return f"internal error, please report it: {type(error).__name__}: {error}"


def _job(command):
    """The command's job module; None where importing it needs bpy and this Python has none (each task then fails so)."""
    try:
        with interrupts.deferred():  # a signal while Blender initialises would crash it
            return command.job()
    except ModuleNotFoundError as error:
        if error.name != "bpy":
            raise
        return None


def process_tasks(command, options, plan, indices, done):
    """Run the command's job on the tasks ``indices`` in this process; ``done(entries, name)`` after each."""
    job = _job(command)
    for index in indices:
        # Also here: a stop signal raised inside Python that Blender runs for itself (a callback) is printed and
        # swallowed by Blender, and would otherwise only be seen on an error path.
        interrupts.check()
        task = plan.tasks[index]
        try:
            if job is None:
                entries = [run_failure_entry(task[0], NO_BLENDER, command.name)]
            else:
                entries = job.process(task, options, plan.names[index], plan.inputs)
        except Exception as error:  # a bug must cost its file, not the run and its report (interrupts are not Exceptions)
            interrupts.check()
            entries = [run_failure_entry(task[0], _failure(error), command.name)]
        for entry in entries:
            # A later run of another command on the same file keeps this entry; the page draws it by its command.
            entry["command"], entry["kind"] = command.name, command.kind
        done(entries, task[0].name)
    interrupts.check()


# Looked up once, before any fork: a child forked from a threaded process (a Dask worker) must not import anything before it runs.
_PRCTL = libc.function("prctl")


def _die_with_parent():
    """In a worker, before it runs: the kernel sends SIGTERM when the parent dies (Linux)."""
    _PRCTL(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _worker_command():
    """How to start this command line in another process: a real Blender starts Blender."""
    bpy = sys.modules.get("bpy")
    if bpy is not None and bpy.app.binary_path:
        return [bpy.app.binary_path, "-b", "-c", "loopsmith"]  # the user's preferences: they enable the extension
    return [sys.executable, "-m", "loopsmith"]


def job_document(command, options, plan, indices):
    """What a worker process needs to run the tasks ``indices`` of the plan (JSON values only)."""
    settings = {key: value for key, value in json_values(options).items() if key != "inputs"}
    paths = sorted(key for key, value in vars(options).items() if isinstance(value, pathlib.PurePath))  # made paths again by work()
    return {"command": command.name, "options": settings, "paths": paths, "tasks": [[str(p) for p in plan.tasks[i]] for i in indices],
            "names": [plan.names[i] for i in indices], "inputs": plan.inputs}


class Worker:
    """Another process running the tasks of a :func:`job_document` (a command on a share of the plan); its entries arrive through a file.

    The worker appends a line to that file for every task it finishes, so a
    worker that dies still reports what it did. It runs in its own session (a
    terminal's Ctrl-C reaches only the parent, which stops it) and dies with
    its parent. cwd: the folder it runs in (default this process's).
    """

    def __init__(self, document, folder, index, cwd=None):
        self.tasks = document["tasks"]
        self.command = document["command"]
        self.output = folder / f"worker{index}.jsonl"
        self.log = folder / f"worker{index}.log"
        path = folder / f"worker{index}-job.json"
        path.write_text(json.dumps(dict(document, output=str(self.output))))
        # A file, not a pipe: nobody reads a pipe while this process works, and a full one would stall the worker.
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(_worker_command(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, cwd=cwd,
                                            env=dict(os.environ, **{WORKER_JOB: str(path)}), start_new_session=True,
                                            preexec_fn=_die_with_parent if _PRCTL else None)

    def _lines(self):
        """One finished task a line; a line the worker was killed while writing has no newline yet and is left out."""
        with contextlib.suppress(OSError):
            return self.output.read_bytes().split(b"\n")[:-1]
        return []

    def _read(self):
        return [entry for line in self._lines() for entry in json.loads(line)]

    def files_done(self):
        return len(self._lines())

    def wait(self, tick):
        while self.process.poll() is None:
            tick()
            time.sleep(0.2)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def kill(self):
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(GRACE)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def entries(self, stopped):
        """What the worker finished, and an error entry for each of its tasks it did not, unless the run was stopped."""
        found = self._read()
        if stopped:
            return found
        finished = {entry["file"] for entry in found}
        code = self.process.returncode
        why = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
        lines = self.log.read_text(errors="replace").strip().splitlines() if self.log.is_file() else []
        detail = f": {lines[-1]}" if lines else ""
        return found + [run_failure_entry(str(task[0]), f"the worker process stopped ({why}{detail}) before finishing this file", self.command)
                        for task in self.tasks if str(task[0]) not in finished]


def work(job_path):
    """A worker's whole life: run the job file's tasks, appending each task's entries as a line; returns the exit code."""
    job = json.loads(pathlib.Path(job_path).read_text())
    command = commands.COMMANDS[job["command"]]
    options = argparse.Namespace(**job["options"])
    for key in job["paths"]:  # -o, and what a command's check() made a path (the graph file)
        setattr(options, key, pathlib.Path(getattr(options, key)))
    plan = Plan([[pathlib.Path(p) for p in task] for task in job["tasks"]], job["names"], job["inputs"])

    def done(found, name):
        # Appended and flushed to disk file by file: what a killed worker finished is still there.
        with open(job["output"], "a", encoding="utf-8") as stream:
            stream.write(json.dumps(found) + "\n")
            stream.flush()
            os.fsync(stream.fileno())

    process_tasks(command, options, plan, range(len(plan.tasks)), done)
    return 0
