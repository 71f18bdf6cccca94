"""Loopsmith's command line for pipelines: Make Loop over files and folders.

One job function, :func:`main`, reachable three ways:
``python -m loopsmith make-loop ...`` with the bpy module,
``blender -c loopsmith make-loop ...`` in a real Blender (the extension registers
the command), and ``blender -b --python <script> -- make-loop ...``.

Exit codes: 0 every clip looped, 1 some failed (each named with its reason),
2 a usage error.
"""

import argparse
import contextlib
import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import bpy

from . import report
from .bridge import clip_io, cycles
from .core import detect, loop, stitch
from .core.errors import LoopsmithError

INPUT_SUFFIXES = (".bvh", ".fbx", ".glb", ".gltf", ".blend")
OUTPUT_FORMATS = ("same", "bvh", "fbx", "glb", "blend")
_STITCH_FIELDS = stitch.StitchParameters.__dataclass_fields__


class BatchError(LoopsmithError):
    """A file that cannot be looped (unreadable, no armature, ...)."""


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


@contextlib.contextmanager
def _silenced():
    """Hide what Blender and the importers print (tracebacks included) at the file-descriptor level."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)


def _reason(error):
    """The message of an importer's error, without Blender's traceback and location lines."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip() and not line.strip().startswith(("Location:", "File ", "^", "~"))]
    return lines[-1].removeprefix("Error: ") if lines else type(error).__name__


def _import(path, options):
    suffix = path.suffix.lower()
    if not path.is_file():
        raise BatchError("no such file")
    if suffix not in INPUT_SUFFIXES:
        raise BatchError(f"not a supported file type ({', '.join(INPUT_SUFFIXES)})")
    try:
        with _silenced():
            if suffix == ".blend":
                bpy.ops.wm.open_mainfile(filepath=str(path), load_ui=False)
            else:
                bpy.ops.wm.read_homefile(use_empty=True)
                _read(path, suffix, options)
    except (RuntimeError, ValueError, IndexError, UnicodeDecodeError, OSError) as error:
        raise BatchError(f"cannot be read: {_reason(error)}") from None


def _read(path, suffix, options):
    if suffix == ".bvh":
        bpy.ops.import_anim.bvh(filepath=str(path), global_scale=options.bvh_scale, update_scene_fps=True, update_scene_duration=True)
    elif suffix == ".fbx":
        bpy.ops.import_scene.fbx(filepath=str(path))
    else:
        bpy.ops.import_scene.gltf(filepath=str(path))


def _output_paths(path, obj, options, several):
    """One output per requested format, never the input itself."""
    stem = f"{path.stem}_{obj.name}" if several else path.stem
    suffixes = dict.fromkeys(path.suffix.lower() if name == "same" else "." + name for name in options.format)
    targets = [options.out / f"{stem}_loop{'.glb' if suffix == '.gltf' else suffix}" for suffix in suffixes]
    if any(target.resolve() == path.resolve() for target in targets):
        raise BatchError("the output would overwrite the input")
    return targets


def _export(obj, target, loop_range, options):
    """Write the looped armature to ``target`` through a temporary name, so no half file is left."""
    temporary = target.with_name(f".{target.stem}.partial{target.suffix}")
    suffix = target.suffix
    for other in bpy.context.view_layer.objects:
        other.select_set(other == obj)
    bpy.context.view_layer.objects.active = obj
    start, end = loop_range
    try:
        with _silenced():
            _write(temporary, suffix, start, end, options)
        os.replace(temporary, target)
    except RuntimeError as error:
        raise BatchError(f"cannot be written as {suffix}: {_reason(error)}") from None
    finally:
        temporary.unlink(missing_ok=True)


def _write(temporary, suffix, start, end, options):
    if suffix == ".bvh":
        bpy.ops.export_anim.bvh(filepath=str(temporary), frame_start=start, frame_end=end, global_scale=1.0 / options.bvh_scale)
    elif suffix == ".fbx":
        bpy.ops.export_scene.fbx(filepath=str(temporary), use_selection=True, object_types={"ARMATURE"}, bake_anim_use_all_actions=False)
    elif suffix == ".glb":
        bpy.ops.export_scene.gltf(filepath=str(temporary), export_format="GLB", use_selection=True)
    else:
        bpy.ops.wm.save_as_mainfile(filepath=str(temporary), copy=True)


def _loop_armature(obj, path, options, several):
    started = time.perf_counter()
    source = clip_io.require_action(obj)
    scene = bpy.context.scene
    scene.render.fps = scene.render.fps or 30
    clip = clip_io.read_clip(obj)
    detection = None
    if options.range:
        start, end = options.range
    elif options.whole:
        start, end = int(clip.frames[0]), int(clip.frames[-1])
    else:
        detection = detect.find_loops(clip, options.min_length, options.max_length, options.cycles)
        if detection.best is None:
            raise BatchError("no repeating motion found; give --range")
        start, end = detection.best.frame_start, detection.best.frame_end
    params = stitch.StitchParameters(**{name: getattr(options, name) for name in _STITCH_FIELDS})
    result = loop.make_loop(clip, start, end, params, options.root_mode, options.root_bone, options.loop_mode, options.root_blend, options.lock_feet)
    action = clip_io.write_clip(obj, result.clip, f"{source.name}_loop", source_action=source, frame_range=True, cyclic=True)
    action.frame_end = end
    if options.loop_mode == "CLAMP":
        cycles.add_cycle_modifiers(obj, action, result.clip.bone_names[result.root] if result.root_mode == "TRAVEL" else None)
    targets = _output_paths(path, obj, options, several)
    for target in targets:
        _export(obj, target, (start, end), options)
    return report.loop_entry(path, obj.name, targets, result, detection, start, end, time.perf_counter() - started)


def process_file(path, options):
    """Loop every armature with an action in one file; one report entry each (or one error entry)."""
    started = time.perf_counter()
    try:
        _import(path, options)
        armatures = [obj for obj in bpy.data.objects if obj.type == "ARMATURE" and obj.animation_data and obj.animation_data.action]
        if not armatures:
            raise BatchError("has no armature with an action")
        names = [obj.name for obj in armatures]
        entries = []
        for name in names:
            try:
                entries.append(_loop_armature(bpy.data.objects[name], path, options, len(names) > 1))
            except LoopsmithError as error:
                entries.append(report.error_entry(path, str(error), time.perf_counter() - started, name))
        return entries
    except LoopsmithError as error:
        return [report.error_entry(path, str(error), time.perf_counter() - started)]


def _worker_command():
    """How to start this same command in another process."""
    if bpy.app.binary_path:
        return [bpy.app.binary_path, "-b", "--factory-startup", "-c", "loopsmith"]
    return [sys.executable, "-m", "loopsmith"]


def _run_workers(files, options, argv):
    """Split the files over ``--jobs`` processes; returns their entries in input order."""
    chunks = [files[i::options.jobs] for i in range(options.jobs)]
    base = [arg for arg in argv if not _is_input(arg, options)]
    base = _without(base, ("-j", "--jobs"), 1)
    processes = []
    with tempfile.TemporaryDirectory(prefix="loopsmith-workers-") as folder:
        for index, chunk in enumerate(chunks):
            if not chunk:
                continue
            output = pathlib.Path(folder) / f"worker{index}.json"
            command = _worker_command() + base + ["--jobs", "1", "--quiet", "--worker-output", str(output)] + [str(p) for p in chunk]
            processes.append((subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True), output, chunk))
        entries = []
        for process, output, chunk in processes:
            _, errors = process.communicate()
            if output.is_file():
                entries.extend(json.loads(output.read_text()))
            else:
                reason = (errors.strip().splitlines() or ["worker failed"])[-1]
                entries.extend(report.error_entry(path, f"worker failed: {reason}", 0.0) for path in chunk)
    order = {str(path): index for index, path in enumerate(files)}
    return sorted(entries, key=lambda entry: order.get(entry["file"], len(order)))


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


def _progress(done, total, name, status, quiet):
    if quiet:
        return
    width = 24
    filled = int(width * done / max(total, 1))
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {name[:40]:40s} {status:5s}", end="" if done < total else "\n", file=sys.stderr, flush=True)


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
        entries = []
        for index, path in enumerate(files):
            found = process_file(path, options)
            entries.extend(found)
            _progress(index + 1, len(files), path.name, "ok" if all(e["status"] == "ok" for e in found) else "FAIL", options.quiet)
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
