"""The job runner every command plugs into: inputs, worker processes, progress, reports, exit codes.

A command keeps the contract of :class:`.contract.Command`: its options
(``add_arguments``, ``check``), its ``plan(files, options) -> (tasks,
names)`` (tuples of input paths: one file for make-loop, a pair for
transition; each task's output name) and its ``job()``, the module
whose ``process(task, options, name, inputs)`` returns the report entries of
one task. This module needs no Blender: the job is imported only where files
are processed, so ``--jobs N`` starts its workers at once. With ``--scheduler
ADDRESS`` the tasks go to a Dask cluster instead (:mod:`.cluster`), each in a
fresh worker process started the same way.

Exit codes (:func:`.reports.finish`): 0 every file done, 1 some failed (each
named on stderr) or the report could not be written, 2 a usage error, 130
interrupted; a ``--shard`` run exits 0 when only files failed (its part
report holds them) and 1 when a task failed through no fault of its file.
"""

import importlib
import os
import pathlib
import sys
import tempfile
import time

from ..core.errors import AcclaimError
from ..core.formats import acclaim, bvh
from ..files import inputs as input_files, interrupts, outputs
from ..files.progress import counted, Progress, say
from . import engine, reports
from .options import Renamed, number, shard, UsageError
from .workers import balanced, in_plan_order, job_document, Plan, process_tasks, Worker

OUTPUT_FORMATS = ("same", "bvh", "fbx", "glb", "blend", "amc")
MAX_JOBS = 256  # worker processes on one machine; more is a typo, and a cluster takes --scheduler


DEFAULT_OUT = pathlib.Path("loopsmith_out")


def add_common_arguments(parser, command):
    """Options every file command shares that it uses: the command's inputs (as its usage names them), outputs (formats
    only for a command that writes motion), import settings, workers, reports (earlier outputs only where folders are read)."""
    parser.add_argument("inputs", nargs=command.inputs, type=pathlib.Path, metavar=command.inputs_metavar, help=command.inputs_help)
    parser.add_argument("-o", "--out", type=pathlib.Path, metavar="FOLDER",
                        help=f"{command.out_help} (default: the --report's folder, else {DEFAULT_OUT})")
    if command.writes_motion:
        parser.add_argument("--format", choices=OUTPUT_FORMATS, nargs="+",
                            help="output formats, one or more ('same': the input's) (default: the --engine's, else same)")
    if command.input_suffixes is None:  # motion inputs: how they are imported
        _add_import_arguments(parser)
    parser.add_argument("-j", "--jobs", type=number(1, MAX_JOBS, integer=True), metavar="N",
                        help="worker processes, this one included (capped at the files and cores, with a note) (default: 1)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="send every task to the Dask cluster of this scheduler (e.g. tcp://10.0.0.5:8786); inputs and -o on storage "
                             "the workers share, at the same paths (needs 'distributed' in the venv) (default: none, this machine's workers)")
    parser.add_argument("--report", type=pathlib.Path, metavar="PATH.json",
                        help="JSON report path, ending in .json; the HTML page goes beside it (default: FOLDER/loopsmith_report.json)")
    if command.reads_folders:
        parser.add_argument("--include-outputs", action="store_true",
                            help="also read, in scanned folders, the files the report in FOLDER lists as earlier outputs")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--shard", type=shard, metavar="K/N",
                        help="only the K-th of N shares of the inputs (every N-th file in sorted order, from the K-th): "
                             "for farm tasks that split one folder (default: all of them)")


def _add_import_arguments(parser):
    """How motion inputs are read: BVH scale, axes and reader, the Acclaim skeleton and frame rate."""
    parser.add_argument("--scale", dest="bvh_scale", type=number(*bvh.SCALE_RANGE), default=None, metavar="METRES_PER_UNIT",
                        help="metres per file unit on import: a BVH's (default: detected from the skeleton's height; 0.01 for "
                             "centimetres) or an ASF's (default: its :units length)")
    parser.add_argument("--bvh-scale", dest="bvh_scale", type=number(*bvh.SCALE_RANGE), action=Renamed, now="--scale METRES_PER_UNIT",
                        metavar="METRES_PER_UNIT")
    parser.add_argument("--bvh-up", choices=("Y", "Z"), help="the BVH files' up axis (default: the axis the skeleton stands along)")
    parser.add_argument("--bvh-reader", choices=("numpy", "blender"), default="numpy",
                        help="numpy: read BVH files at numpy speed and build the armature in bulk; blender: Blender's own BVH importer")
    parser.add_argument("--asf", type=pathlib.Path, metavar="PATH.asf",
                        help="the Acclaim skeleton of the AMC inputs, and the one --format amc writes a BVH, FBX or glTF input's motion on "
                             "(its joints named as the skeleton's bones) (default: an AMC's own, found beside it: CMU's <subject>.asf for "
                             "<subject>_<trial>.amc, or the only .asf in its folder)")
    parser.add_argument("--amc-fps", type=number(1.0, 1000.0), metavar="FPS",
                        help=f"frames per second of the AMC inputs, which carry no frame rate (default: {acclaim.DEFAULT_FPS:g}, CMU's)")


def check_options(command, options):
    """Every check a run makes of its options before reading any file: ``-o`` filled in (the report's folder when only
    ``--report`` is given, so outputs and report land together), the command's own checks, then the engine options'
    (for a command that writes motion). Raises UsageError."""
    if options.out is None:
        options.out = options.report.parent if options.report is not None else DEFAULT_OUT
    command.check(options)
    if command.writes_motion:
        engine.check(options)


def check_acclaim_options(options, files):
    """UsageError, once the inputs are known, for ``--asf`` or ``--amc-fps`` where nothing reads them, an ``--asf`` that is
    no ASF, an AMC output of an input with no Acclaim skeleton, or one with ``--engine``/``--root-motion``; fills the
    default ``--amc-fps``."""
    acclaim_inputs = [path for path in files if input_files.is_acclaim(path)]
    formats = getattr(options, "format", None) or []
    writes_amc = [path for path in files if ".amc" in input_files.output_suffixes(path, formats)]
    if options.amc_fps is not None and not acclaim_inputs:
        raise UsageError("--amc-fps applies to AMC inputs (AMC files carry no frame rate), and no input is one")
    if options.asf is not None and not acclaim_inputs and not writes_amc:
        raise UsageError("--asf applies to AMC inputs (their skeleton) or to --format amc (the skeleton it writes on), and neither is here")
    unknown = next((path for path in writes_amc if not input_files.is_acclaim(path)), None)
    if unknown is not None and options.asf is None:
        raise UsageError(f"--format amc: {unknown} has no Acclaim skeleton, and Loopsmith makes no ASF from a clip: give the skeleton "
                         "its joints are named after with --asf PATH")
    if writes_amc and (getattr(options, "engine", None) or getattr(options, "root_motion", "NONE") != "NONE"):
        raise UsageError("--format amc does not go with --engine or --root-motion: an AMC keeps its skeleton's own root")
    if options.asf is not None:
        problem = input_files.not_a_file(options.asf, "an ASF file")
        if problem:
            raise UsageError(f"--asf {options.asf}: {problem}")
        try:
            acclaim.read_asf(options.asf)
        except AcclaimError as error:
            raise UsageError(f"--asf {options.asf}: {error.reason}" + (f" (line {error.line})" if error.line else "")) from None
    if acclaim_inputs and options.amc_fps is None:
        options.amc_fps = acclaim.DEFAULT_FPS


def _usage(command, message):
    say(f"loopsmith {command.name}: error: {message}", sys.stderr)
    return 2


def run(command, options):
    """Run ``command`` over its inputs with parsed ``options``; returns the exit code."""
    started = time.perf_counter()
    try:
        check_options(command, options)
        try:
            report_path = reports.report_path(options.report, options.out, options.inputs, options.shard)
        except ValueError as error:
            raise UsageError(f"--report: {error}") from None
        files, skipped = input_files.collect(options.inputs, reports.earlier_outputs(report_path), getattr(options, "include_outputs", False),
                                             command.input_suffixes or input_files.INPUT_SUFFIXES)
        if not files and command.input_suffixes is not None:
            raise UsageError(f"no file {command.name} reads in the given inputs ({command.inputs_help})")
        if not files:
            raise UsageError("no BVH, FBX, glTF, .blend or AMC files in the given inputs")
        if command.input_suffixes is None:
            check_acclaim_options(options, files)
        _refuse_shared_paths(command, options, files, report_path)
        outputs.require_writable(options.out)
        if report_path.parent != options.out:
            outputs.require_writable(report_path.parent, "the report's folder")
        if options.scheduler is not None and options.jobs is not None:
            raise UsageError("--jobs does not apply with --scheduler: the cluster's workers run the tasks (dask worker --nworkers N)")
        client = None if options.scheduler is None else _cluster().connect(options.scheduler)
    except (UsageError, outputs.OutputError) as error:
        return _usage(command, error)
    try:
        return _run(command, options, files, skipped, report_path, client, started)
    finally:
        if client is not None:
            _cluster().disconnect(client)


def _refuse_shared_paths(command, options, files, report_path):
    """UsageError naming both roles when two of the run's files are one (links resolved): the report, its page, what the
    command writes or reads besides (a graph) and the inputs; checked before any work, so nothing is written over."""
    roles = [("the report", report_path), ("the report's page", report_path.with_suffix(".html")),
             *command.paths(options), *other_inputs(options), *(("an input", path) for path in files)]
    seen = {}
    for role, path in roles:
        other = seen.setdefault(input_files.real(path), (role, path))
        if other[0] == role:
            continue
        if str(other[1]) == str(path):
            raise UsageError(f"{path} would be both {other[0]} and {role}; give each its own path")
        raise UsageError(f"{other[1]} ({other[0]}) and {path} ({role}) are the same file; give each its own path")


def other_inputs(options):
    """The files a run reads besides its inputs, by role: the song of ``--music``, the skeleton of ``--asf``."""
    given = (("the song", getattr(options, "music", None)), ("the skeleton", getattr(options, "asf", None)))
    return [(role, path) for role, path in given if path is not None]


def _cluster():
    """:mod:`.cluster`, imported only for ``--scheduler`` runs (it loads Dask's client)."""
    return importlib.import_module(".cluster", __package__)


def _run(command, options, files, skipped, report_path, client, started):
    if skipped:
        say(f"loopsmith: skipped {len(skipped)} earlier outputs in {options.out} (--include-outputs reads them)", sys.stderr)
    try:
        plan = Plan(*command.plan(files, options), also=[path for _, path in other_inputs(options)])
    except UsageError as error:
        return _usage(command, error)
    if options.shard:
        planned, plan = len(plan.tasks), plan.share(*options.shard)
        if not plan.tasks:  # more shards than tasks: this one has nothing to do, and says so in its (empty) report
            say(f"loopsmith: --shard {options.shard[0]}/{options.shard[1]} has no task ({counted(planned, 'task')} in all)", sys.stderr)
            return reports.finish(command, [], False, report_path, options, time.perf_counter() - started)
    if client is not None:
        entries, stopped = _cluster().execute(client, command, options, plan)
        return reports.finish(command, entries, stopped, report_path, options, time.perf_counter() - started)
    asked = options.jobs or 1
    jobs = min(asked, len(plan.tasks), os.cpu_count() or 1)
    if jobs < asked:
        say(f"loopsmith: --jobs {asked} capped at {jobs} ({counted(len(plan.tasks), 'task')}, {counted(os.cpu_count() or 1, 'core')})",
            sys.stderr)
    entries, stopped = _execute(command, options, plan, jobs)
    return reports.finish(command, entries, stopped, report_path, options, time.perf_counter() - started)


def _execute(command, options, plan, jobs):
    """Entries in input order, and whether the run was interrupted."""
    chunks = balanced(plan.tasks, jobs)
    entries, workers = [], []
    progress = Progress(len(plan.tasks), options.quiet, workers)

    def done(found, name):
        entries.extend(found)
        progress.step(found, name)

    with tempfile.TemporaryDirectory(prefix="loopsmith-workers-") as folder:
        try:
            workers.extend(Worker(job_document(command, options, plan, chunk), pathlib.Path(folder), index) for index, chunk in enumerate(chunks[1:], 1))
            process_tasks(command, options, plan, chunks[0], done)
            for worker in workers:
                worker.wait(progress.show)
                progress.show()
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
    return in_plan_order(entries, plan), stopped


