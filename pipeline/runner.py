"""The job runner every command plugs into: inputs, worker processes, progress, reports, exit codes.

A command (a module, or an object such as :class:`.edit.EditCommand`)
provides ``NAME``, ``HELP``, ``JOB`` (the name of its
bpy-side module, whose ``process(task, options, name, inputs)`` returns the
report entries of one task), ``DONE`` (what the summary says of a finished
task), ``INPUTS`` (argparse nargs of the input paths), ``add_arguments(parser)``, ``check(options)`` and
``plan(files, options) -> (tasks, names)``: the tasks (tuples of input
paths: one file for make-loop, a pair for transition) and each task's output
name. This module needs no Blender: the job module is imported
only where files are processed, so ``--jobs N`` starts its workers at once.

Exit codes: 0 every file done, 1 some failed (each named on stderr) or the
report could not be written, 2 a usage error, 130 interrupted.
"""

import argparse
import contextlib
import importlib
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

from ..core import bvh
from ..core.errors import LoopsmithError
from . import commands, engine, inputs as input_files, interrupts, outputs, report, reports
from .options import UsageError, count, number, shard

WORKER_JOB = "LOOPSMITH_WORKER_JOB"  # set in a worker's environment: the path of its job file
OUTPUT_FORMATS = ("same", "bvh", "fbx", "glb", "blend")
_GRACE = 5.0  # seconds a worker gets to stop after SIGTERM before it is killed


def add_common_arguments(parser, inputs="+", inputs_help=None):
    """Options every file command shares: inputs (``inputs``: their argparse nargs; ``inputs_help``: what they are, when not
    motion files), outputs, import settings, workers, reports."""
    parser.add_argument("inputs", nargs=inputs, type=pathlib.Path, help=inputs_help or "BVH, FBX, glTF/GLB or .blend files, or folders of them")
    parser.add_argument("-o", "--out", type=pathlib.Path, default=pathlib.Path("loopsmith_out"), help="output folder")
    parser.add_argument("--format", choices=OUTPUT_FORMATS, nargs="+",
                        help="output formats, one or more ('same': the input's) (default: the --engine's, else same)")
    parser.add_argument("--bvh-scale", type=number(*bvh.SCALE_RANGE), default=None,
                        help="metres per BVH unit on import (default: detected from the skeleton's height; 0.01 for centimetres)")
    parser.add_argument("--bvh-reader", choices=("numpy", "blender"), default="numpy",
                        help="numpy: read BVH files at numpy speed and build the armature in bulk; blender: Blender's own BVH importer")
    parser.add_argument("-j", "--jobs", type=count, default=1, help="worker processes, this one included (capped at the files and cores)")
    parser.add_argument("--report", type=pathlib.Path, help="JSON report path, ending in .json; the HTML page goes beside it (default OUT/loopsmith_report.json)")
    parser.add_argument("--include-outputs", action="store_true", help="also read, in scanned folders, the files the report in OUT lists as earlier outputs")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--shard", type=shard, metavar="K/N",
                        help="only the K-th of N shares of the inputs (every N-th file in sorted order, from the K-th): "
                             "for farm tasks that split one folder")


class _Plan:
    """What every process of a run agrees on: the tasks, their output names, and the inputs no output may replace."""

    def __init__(self, tasks, names, inputs=None):
        self.tasks = [tuple(task) for task in tasks]
        self.names = list(names)
        self.inputs = inputs or sorted({str(input_files.real(path)) for task in self.tasks for path in task})

    def share(self, k, n):
        """The K-th of N shares of the tasks (every N-th from the K-th, 1-based), names and protected inputs kept as planned
        for the whole run, so a farm's shards write what one run would."""
        return _Plan(self.tasks[k - 1::n], self.names[k - 1::n], self.inputs)


def say(text, stream=None, end="\n"):
    """Print to stdout (or ``stream``); a reader that went away (``| head``) silences it instead of stopping the run."""
    stream = stream or sys.stdout
    try:
        print(text, end=end, file=stream, flush=True)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)


def _count(number, noun, plural=None):
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def _usage(command, message):
    say(f"loopsmith {command.NAME}: error: {message}", sys.stderr)
    return 2


def run(command, options):
    """Run ``command`` over its inputs with parsed ``options``; returns the exit code."""
    started = time.perf_counter()
    try:
        engine.check(options)
        command.check(options)
        try:
            report_path = reports.report_path(options.report, options.out, options.inputs)
        except ValueError as error:
            raise UsageError(f"--report: {error}") from None
        files, skipped = input_files.collect(options.inputs, reports.earlier_outputs(report_path), options.include_outputs)
        if not files:
            raise UsageError("no BVH, FBX, glTF or .blend files in the given inputs")
        if str(input_files.real(report_path)) in {str(input_files.real(path)) for path in files}:
            raise UsageError(f"--report: {report_path} is one of the inputs")
        outputs.require_writable(options.out)
        if report_path.parent != options.out:
            outputs.require_writable(report_path.parent, "the report's folder")
    except (UsageError, outputs.OutputError) as error:
        return _usage(command, error)
    if skipped:
        say(f"loopsmith: skipped {len(skipped)} earlier outputs in {options.out} (--include-outputs reads them)", sys.stderr)
    try:
        plan = _Plan(*command.plan(files, options))
    except UsageError as error:
        return _usage(command, error)
    if options.shard:
        planned, plan = len(plan.tasks), plan.share(*options.shard)
        if not plan.tasks:  # more shards than tasks: this one has nothing to do, and says so in its (empty) report
            say(f"loopsmith: --shard {options.shard[0]}/{options.shard[1]} has no task ({_count(planned, 'task')} in all)", sys.stderr)
            return _finish(command, [], False, report_path, options, time.perf_counter() - started)
    jobs = min(options.jobs, len(plan.tasks), os.cpu_count() or 1)
    if jobs < options.jobs:
        say(f"loopsmith: --jobs {options.jobs} capped at {jobs} ({_count(len(plan.tasks), 'task')}, {_count(os.cpu_count() or 1, 'core')})",
            sys.stderr)
    entries, stopped = _execute(command, options, plan, jobs)
    return _finish(command, entries, stopped, report_path, options, time.perf_counter() - started)


def _plain(options):
    """The options as JSON values (paths as strings)."""
    def plain(value):
        return str(value) if isinstance(value, pathlib.PurePath) else [plain(v) for v in value] if isinstance(value, list) else value

    return {key: plain(value) for key, value in vars(options).items()}


def _finish(command, entries, stopped, report_path, options, seconds):
    """Summary and errors to the terminal first (they must arrive whatever happens to the report), then the reports."""
    summary = "\n".join([reports.summary_table(entries), *reports.scales_used(entries), reports.closing_line(entries, seconds, command.DONE, stopped)])
    say(summary)
    for entry in entries:
        if entry["status"] != "ok":
            say(f"loopsmith: {entry['file']}: {entry['error']}", sys.stderr)
    status = 0 if all(entry["status"] == "ok" for entry in entries) else 1
    try:
        kept, notes = reports.write_reports(entries, report_path, summary, _plain(options))
        say(f"reports: {report_path} and {report_path.with_suffix('.html')}" + (f" (with {_count(kept, 'entry', 'entries')} of earlier runs)" if kept else ""))
        for note in notes:
            say(f"loopsmith: note: {note}", sys.stderr)
    except LoopsmithError as error:
        say(f"loopsmith: {error}", sys.stderr)
        status = 1
    except interrupts.Interrupted:
        say(f"loopsmith: interrupted: the report {report_path} was not written (the previous one is as it was)", sys.stderr)
        stopped = True
    return interrupts.EXIT_CODE if stopped else status


def _execute(command, options, plan, jobs):
    """Entries in input order, and whether the run was interrupted."""
    chunks = _balanced(plan.tasks, jobs)
    entries, workers = [], []
    progress = _Progress(len(plan.tasks), options.quiet)

    def done(found, name):
        entries.extend(found)
        progress.step(found, name, workers)

    with tempfile.TemporaryDirectory(prefix="loopsmith-workers-") as folder:
        try:
            workers.extend(_Worker(command, options, plan, chunk, pathlib.Path(folder), index) for index, chunk in enumerate(chunks[1:], 1))
            _process(command, options, plan, chunks[0], done)
            for worker in workers:
                worker.wait(lambda: progress.show(workers))
                progress.show(workers)
            stopped = False
        except interrupts.Interrupted:
            stopped = True
            for worker in workers:
                worker.stop()
        finally:
            for worker in workers:
                worker.kill()
        for worker in workers:
            entries.extend(worker.entries(stopped))
    progress.close()
    order = {str(task[0]): index for index, task in enumerate(plan.tasks)}
    return sorted(entries, key=lambda entry: order.get(entry["file"], len(order))), stopped


def _balanced(tasks, count_):
    """``count_`` lists of task indices of about equal total input size (largest first, onto the lightest list)."""
    chunks, loads = [[] for _ in range(count_)], [0] * count_
    for index in sorted(range(len(tasks)), key=lambda i: _size(tasks[i]), reverse=True):
        lightest = loads.index(min(loads))
        chunks[lightest].append(index)
        loads[lightest] += _size(tasks[index])
    return chunks


def _size(task):
    total = 0
    for path in task:
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    return total


def _process(command, options, plan, indices, done):
    """Run the command's job on the tasks ``indices`` in this process; ``done(entries, name)`` after each."""
    with interrupts.deferred():  # a signal while Blender initialises would crash it
        job = importlib.import_module(f".{command.JOB}", __package__)
    interrupts.check()
    for index in indices:
        task = plan.tasks[index]
        try:
            entries = job.process(task, options, plan.names[index], plan.inputs)
        except Exception as error:  # a bug must cost its file, not the run and its report (interrupts are not Exceptions)
            interrupts.check()
            entries = [report.error_entry(task[0], f"internal error, please report it: {type(error).__name__}: {error}", 0.0)]
        for entry in entries:
            entry["command"] = command.NAME  # a later run of another command on the same file keeps this entry
        done(entries, task[0].name)


class _Progress:
    """A one-line progress bar on stderr over the whole run's tasks, workers' included."""

    def __init__(self, total, quiet):
        self.total, self.quiet, self.done, self.last = total, quiet, 0, ("", "")

    def step(self, found, name, workers):
        self.done += 1
        self.last = (name, "ok" if all(entry["status"] == "ok" for entry in found) else "FAIL")
        self.show(workers)

    def show(self, workers):
        if self.quiet:
            return
        done = self.done + sum(worker.files_done() for worker in workers)
        width, (name, status) = 24, self.last
        filled = int(width * done / max(self.total, 1))
        say(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} {name[:40]:40s} {status:5s}", sys.stderr, end="")

    def close(self):
        if not self.quiet:
            say("", sys.stderr)


def _die_with_parent():
    """In a worker, before it runs: the kernel sends SIGTERM when the parent dies (Linux)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _worker_command():
    """How to start this command line in another process: a real Blender starts Blender."""
    bpy = sys.modules.get("bpy")
    if bpy is not None and bpy.app.binary_path:
        return [bpy.app.binary_path, "-b", "-c", "loopsmith"]  # the user's preferences: they enable the extension
    return [sys.executable, "-m", "loopsmith"]


class _Worker:
    """Another process running the same command on a share of the tasks; its entries arrive through a file.

    The worker appends a line to that file for every task it finishes, so a
    worker that dies still reports what it did. It runs in its own session (a
    terminal's Ctrl-C reaches only the parent, which stops it) and dies with
    its parent.
    """

    def __init__(self, command, options, plan, indices, folder, index):
        self.tasks = [plan.tasks[i] for i in indices]
        self.command = command.NAME
        self.output = folder / f"worker{index}.jsonl"
        self.log = folder / f"worker{index}.log"
        job = folder / f"worker{index}-job.json"
        settings = {key: value for key, value in _plain(options).items() if key != "inputs"}
        job.write_text(json.dumps({"command": command.NAME, "options": settings, "tasks": [[str(p) for p in task] for task in self.tasks],
                                   "names": [plan.names[i] for i in indices], "inputs": plan.inputs, "output": str(self.output)}))
        # A file, not a pipe: nobody reads a pipe while this process works, and a full one would stall the worker.
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(_worker_command(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                                            env=dict(os.environ, **{WORKER_JOB: str(job)}), start_new_session=True,
                                            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)

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
            self.process.wait(_GRACE)
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
        return found + [dict(report.error_entry(str(task[0]), f"the worker process stopped ({why}{detail}) before finishing this file", 0.0),
                             command=self.command) for task in self.tasks if str(task[0]) not in finished]


def work(job_path):
    """A worker's whole life: run the job file's tasks, appending each task's entries as a line; returns the exit code."""
    job = json.loads(pathlib.Path(job_path).read_text())
    command = commands.COMMANDS[job["command"]]
    options = argparse.Namespace(**job["options"])
    options.out = pathlib.Path(options.out)
    plan = _Plan([[pathlib.Path(p) for p in task] for task in job["tasks"]], job["names"], job["inputs"])

    def done(found, name):
        # Appended and flushed to disk file by file: what a killed worker finished is still there.
        with open(job["output"], "a", encoding="utf-8") as stream:
            stream.write(json.dumps(found) + "\n")
            stream.flush()
            os.fsync(stream.fileno())

    _process(command, options, plan, range(len(plan.tasks)), done)
    return 0
