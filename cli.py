"""Loopsmith's command line for pipelines: Make Loop over files and folders.

This module needs no Blender: it parses the arguments, hands the files to
:mod:`.batch` (in this process, or split over worker processes that start at
once) and writes the reports.

One job function, :func:`main`, reachable three ways:
``python -m loopsmith make-loop ...`` with the bpy module,
``blender -c loopsmith make-loop ...`` in a real Blender (the extension registers
the command), and ``blender -b --python <script> -- make-loop ...``.

Exit codes: 0 every clip looped, 1 some failed (each named with its reason),
2 a usage error.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

# Loop work is many small array operations; BLAS threads would only spin
# (sched_yield) and steal the core of the other worker. Before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from . import report  # noqa: E402
from .core import loop, stitch  # noqa: E402

INPUT_SUFFIXES = (".bvh", ".fbx", ".glb", ".gltf", ".blend")
OUTPUT_FORMATS = ("same", "bvh", "fbx", "glb", "blend")
_STITCH_FIELDS = stitch.StitchParameters.__dataclass_fields__

def _parser():
    parser = argparse.ArgumentParser(prog="loopsmith", description="Seamless loops from motion capture.")
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("make-loop", help="loop every armature of the given files and folders")
    make.add_argument("inputs", nargs="+", type=pathlib.Path, help="BVH, FBX, glTF/GLB or .blend files, or folders of them")
    make.add_argument("-o", "--out", type=pathlib.Path, default=pathlib.Path("loopsmith_out"), help="output folder (default ./loopsmith_out)")
    make.add_argument("--format", choices=OUTPUT_FORMATS, nargs="+", default=["same"], help="output formats, one or more (default: the input's)")
    where = make.add_mutually_exclusive_group()
    where.add_argument("--auto", action="store_true", help="find the best loop first (the default)")
    where.add_argument("--range", nargs=2, type=int, metavar=("START", "END"), help="loop these frames")
    where.add_argument("--whole", action="store_true", help="loop the action's whole range")
    for name, spec in _STITCH_FIELDS.items():
        flag = "--" + name.replace("_", "-")
        if spec.type == "str" or isinstance(spec.default, str):
            choices = stitch.METHODS if name == "method" else stitch.SIDES
            make.add_argument(flag, choices=choices, default=spec.default)
        elif isinstance(spec.default, bool):
            make.add_argument(flag, action="store_true", default=spec.default)
        else:
            make.add_argument(flag, type=float, default=spec.default, help="seconds" if name not in ("ratio", "hardness_start", "hardness_end") else None)
    make.add_argument("--root-mode", choices=("AUTO", "TRAVEL", "LOOP", "IN_PLACE"), default="AUTO")
    make.add_argument("--root-bone", default="")
    make.add_argument("--root-blend", type=float, default=0.5, help="seconds")
    make.add_argument("--loop-mode", choices=loop.LOOP_MODES, default="CLAMP")
    make.add_argument("--no-lock-feet", dest="lock_feet", action="store_false")
    make.add_argument("--cycles", type=int, default=0, help="with --auto: loop this many periods (0: the best)")
    make.add_argument("--min-length", type=float, default=0.4, help="with --auto: seconds")
    make.add_argument("--max-length", type=float, default=4.0, help="with --auto: seconds")
    make.add_argument("--bvh-scale", type=float, default=0.01, help="BVH units to metres on import (default 0.01: centimetres)")
    make.add_argument("-j", "--jobs", type=int, default=1, help="worker processes")
    make.add_argument("--report", type=pathlib.Path, help="JSON report (default OUT/loopsmith_report.json)")
    make.add_argument("--quiet", action="store_true", help="no progress bar")
    make.add_argument("--worker-output", type=pathlib.Path, help=argparse.SUPPRESS)
    return parser


def collect_inputs(paths):
    """Files to loop, in order: the given files, and the loopable files inside given folders."""
    files = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.suffix.lower() in INPUT_SUFFIXES and p.is_file()))
        else:
            files.append(path)
    return files


def _worker_command():
    """How to start this same command in another process: a real Blender starts Blender."""
    bpy = sys.modules.get("bpy")
    if bpy is not None and bpy.app.binary_path:
        return [bpy.app.binary_path, "-b", "--factory-startup", "-c", "loopsmith"]
    return [sys.executable, "-m", "loopsmith"]


def _run_workers(files, options, argv):
    """Split the files over ``--jobs`` processes, this one included; returns entries in input order.

    The other workers start first, so their start-up overlaps this process's.
    """
    chunks = _balanced(files, options.jobs)
    base = [arg for arg in argv if not _is_input(arg, options)]
    base = _without(base, ("-j", "--jobs"), 1)
    processes = []
    with tempfile.TemporaryDirectory(prefix="loopsmith-workers-") as folder:
        for index, chunk in enumerate(chunks[1:], start=1):
            output = pathlib.Path(folder) / f"worker{index}.json"
            log = pathlib.Path(folder) / f"worker{index}.log"
            command = _worker_command() + base + ["--jobs", "1", "--quiet", "--worker-output", str(output)] + [str(p) for p in chunk]
            # A file, not a pipe: nobody reads a pipe while this process works, and a full one would stall the worker.
            with open(log, "w") as errors:
                processes.append((subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors), output, log, chunk))
        entries = _process_here(chunks[0], options, total=len(files))
        for process, output, log, chunk in processes:
            process.wait()
            if output.is_file():
                entries.extend(json.loads(output.read_text()))
            else:
                reason = (log.read_text().strip().splitlines() or ["worker failed"])[-1]
                entries.extend(report.error_entry(path, f"worker failed: {reason}", 0.0) for path in chunk)
    order = {str(path): index for index, path in enumerate(files)}
    return sorted(entries, key=lambda entry: order.get(entry["file"], len(order)))


def _balanced(files, count):
    """``count`` lists of files of about equal total size (largest first, onto the lightest list)."""
    chunks, loads = [[] for _ in range(count)], [0] * count
    for path in sorted(files, key=lambda p: p.stat().st_size if p.is_file() else 0, reverse=True):
        lightest = loads.index(min(loads))
        chunks[lightest].append(path)
        loads[lightest] += path.stat().st_size if path.is_file() else 0
    return chunks


def _process_here(files, options, total=None):
    """Loop files in this process, with a progress bar (over ``total`` when others share the work)."""
    from .batch import process_file  # Blender is only needed where files are processed

    entries = []
    for index, path in enumerate(files):
        found = process_file(path, options)
        entries.extend(found)
        status = "ok" if all(entry["status"] == "ok" for entry in found) else "FAIL"
        _progress(index + 1, len(files), path.name, status, options.quiet, total)
    return entries


def _is_input(arg, options):
    return any(arg == str(path) for path in options.inputs)


def _without(args, flags, values):
    out, skip = [], 0
    for arg in args:
        if skip:
            skip -= 1
        elif arg in flags:
            skip = values
        elif not any(arg.startswith(flag + "=") for flag in flags):
            out.append(arg)
    return out


def _progress(done, count, name, status, quiet, total=None):
    """A one-line progress bar on stderr; with workers it shows this process's share of ``total`` files."""
    if quiet:
        return
    width = 24
    filled = int(width * done / max(count, 1))
    share = f" (this process; {total} in all)" if total and total != count else ""
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{count}{share} {name[:40]:40s} {status:5s}",
          end="" if done < count else "\n", file=sys.stderr, flush=True)


def main(argv=None):
    """Run the command line; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        options = _parser().parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    files = collect_inputs(options.inputs)
    if not files:
        print("loopsmith: no BVH, FBX, glTF or .blend files in the given inputs", file=sys.stderr)
        return 2
    if options.jobs < 1:
        print("loopsmith: --jobs must be at least 1", file=sys.stderr)
        return 2
    options.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if options.jobs > 1 and len(files) > 1:
        options.jobs = min(options.jobs, len(files))
        entries = _run_workers(files, options, argv)
    else:
        entries = _process_here(files, options)
    if options.worker_output:
        options.worker_output.write_text(json.dumps(entries))
        return 0
    summary = report.write_reports(entries, options.report or options.out / "loopsmith_report.json", time.perf_counter() - started, vars(options))
    print(summary)
    for entry in entries:
        if entry["status"] != "ok":
            print(f"loopsmith: {entry['file']}: {entry['error']}", file=sys.stderr)
    return 0 if all(entry["status"] == "ok" for entry in entries) else 1


def blender_command(argv):
    """``blender -c loopsmith ...``: Blender passes the arguments after the command name."""
    return main(list(argv))
