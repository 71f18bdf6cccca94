"""The editing commands' job for one task (bpy side): import, one core edit, verified outputs.

Run by :mod:`.runner`. For a pair (splice, blend) the second file is read
first and kept as arrays; the first file's scene stays open, so the result
is written onto its armature and exported.
"""

import time

import bpy

from ....bridge import clip_io, importers
from ....core.edit import blend, freeze, mirror, splice, timing
from ....core.errors import LoopsmithError
from ....files import interrupts
from ... import engine_output
from ...entries import error_entry
from . import report


def _edited(options, clip, other, names):
    """The :class:`~..core.measure.edit.EditResult` of the command's edit of ``clip`` (and ``other``, for a pair; ``names``: the two files')."""
    edit = options.edit
    if edit == "resample":
        return timing.resample(clip, options.fps, options.interpolation)
    if edit == "retime":
        return timing.retime(clip, options.speed, options.duration, options.interpolation)
    if edit == "freeze":
        return freeze.freeze(clip, options.bone, options.frame, options.rest, options.range, options.blend, options.location)
    if edit == "mirror":
        return mirror.mirror(clip)
    if edit == "splice":
        return splice.splice(clip, other, options.upper_root or None, options.timing, options.shorter, names)
    return blend.blend(clip, other, options.weight, options.timing, options.shorter, names)


def process(task, options, name, inputs):
    """Edit the task's file (or pair); one report entry, or one error entry naming the file at fault.

    ``name``: the output stem (``<stem>_<edit>`` or ``<a>_<b>_<edit>``);
    ``inputs``: real paths of every input of the run (as strings), which no
    output may replace.
    """
    first, second = task if len(task) == 2 else (task[0], None)
    started = time.perf_counter()
    try:
        if engine_output.scene_free(first, options):
            return _edit_without_scene(first, second, options, name, inputs, started)
        playback = other = None
        if second is None:
            obj, settings, header = importers.first_armature(first, options)
            clip, playback = clip_io.read_edit_source(obj)  # a WRAP loop with its closing key
        else:
            obj, clip, settings, header, other, other_settings = importers.pair_clips(first, second, options)
        imported = time.perf_counter() - started
        targets = engine_output.targets(options, name, first, inputs)
        edited = _edited(options, clip, other, (first.name, second.name if second else ""))
        clip_io.write_edit(obj, edited, clip_io.require_action(obj), clip.frames[0], playback)
        clip_io.set_scene_fps(bpy.context.scene, edited.clip.fps)  # the exporters time frames by the scene's rate
        entry = report.edit_entry(first, second, obj.name, targets, edited, 0.0, clip)
        if second is not None:
            entry["other_imports"] = importers.other_imports([second], [other_settings])
        return engine_output.finish(obj, targets, settings, header, options, entry, imported, started)
    except LoopsmithError as error:
        interrupts.check()
        entry = error_entry(first, str(error), time.perf_counter() - started)
        if second is not None:
            entry["with"] = str(second)
        return [entry]


def _edit_without_scene(first, second, options, name, inputs, started):
    """:func:`process` for a BVH read by the numpy reader and written as BVH only (:func:`.engine_output.scene_free`): the
    edit in numpy, no armature built (a long take costs no Blender keys). Raises LoopsmithError."""
    clip, settings, header = importers.load_clip(first, options)
    other, other_settings = importers.other_clip_and_settings(second, options) if second is not None else (None, None)
    imported = time.perf_counter() - started
    targets = engine_output.targets(options, name, first, inputs)
    edited = _edited(options, clip, other, (first.name, second.name if second else ""))
    armature = importers.bvh_armature_name(first)
    entry = report.edit_entry(first, second, armature, targets, edited, 0.0, clip)
    if second is not None:
        entry["other_imports"] = importers.other_imports([second], [other_settings])
    engine_output.write_scene_free(edited.clip, targets, settings, header, entry, f"{armature}_{edited.edit}")
    entry["import_seconds"], entry["seconds"] = round(imported, 3), round(time.perf_counter() - started, 3)
    return [entry]
