"""The batch job for one file (bpy side): import, Find Loop, Make Loop, export.

Called by :mod:`.cli` in-process or in its worker processes.
"""

import contextlib
import io
import os
import sys
import tempfile
import time

import bpy

from . import report
from .bridge import clip_io
from .cli import _STITCH_FIELDS, INPUT_SUFFIXES
from .core import bvh, detect, loop, stitch
from .core.errors import LoopsmithError


class BatchError(LoopsmithError):
    """A file that cannot be looped (unreadable, no armature, ...)."""


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
        # Blender writes Z up; BVH files (and what was read in) are Y up.
        temporary.write_text(bvh.change_axes(temporary.read_text()))
    elif suffix == ".fbx":
        # FBX bakes the active animation over the scene's range: make that the loop.
        scene = bpy.context.scene
        scene.frame_start, scene.frame_end = start, end
        bpy.ops.export_scene.fbx(filepath=str(temporary), use_selection=True, object_types={"ARMATURE"},
                                 bake_anim_use_all_actions=False, bake_anim_use_nla_strips=False)
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
    clip_io.write_loop(obj, result, source, end)
    targets = _output_paths(path, obj, options, several)
    for target in targets:
        _export(obj, target, (start, end), options)
    return report.loop_entry(path, obj.name, targets, result, detection, start, end, time.perf_counter() - started)


def process_file(path, options):
    """Loop every armature with an action in one file; one report entry each (or one error entry).

    Each entry's ``seconds`` covers its own loop (read, Find Loop, Make Loop,
    write, export); ``import_seconds`` the file's import.
    """
    started = time.perf_counter()
    try:
        _import(path, options)
        imported = time.perf_counter() - started
        armatures = [obj for obj in bpy.data.objects if obj.type == "ARMATURE" and obj.animation_data and obj.animation_data.action]
        if not armatures:
            raise BatchError("has no armature with an action")
        names = [obj.name for obj in armatures]
        entries = []
        for name in names:
            begun = time.perf_counter()
            try:
                entries.append(_loop_armature(bpy.data.objects[name], path, options, len(names) > 1))
            except LoopsmithError as error:
                entries.append(report.error_entry(path, str(error), time.perf_counter() - begun, name))
    except LoopsmithError as error:
        entries, imported = [report.error_entry(path, str(error), time.perf_counter() - started)], 0.0
    for entry in entries:
        entry["import_seconds"] = round(imported, 3)
    return entries
