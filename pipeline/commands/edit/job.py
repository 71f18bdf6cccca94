"""The editing commands' job for one task: read, one core edit, verified outputs.

Run by :mod:`.runner`. A BVH read by the numpy reader or an AMC, written as
BVH or AMC, is edited in numpy alone; any other file is imported into a
Blender scene (:mod:`.scene`, which imports bpy only then). For a pair
(splice, blend) the second file is read first and kept as arrays.
"""

import time

from ....core.edit import blend, freeze, mirror, splice, timing
from ....core.errors import LoopsmithError
from ....files import interrupts, read_motion
from ... import clips, file_outputs
from ...entries import error_entry
from . import report


def edited_clip(options, clip, other, names):
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
        return _edited_task(first, second, options, name, inputs, started)
    except LoopsmithError as error:
        interrupts.check()
        entry = error_entry(first, str(error), time.perf_counter() - started)
        if second is not None:
            entry["with"] = str(second)
        return [entry]


def _edited_task(first, second, options, name, inputs, started):
    """:func:`process`'s entries; raises LoopsmithError. A BVH read by the numpy reader or an AMC, written as BVH or AMC
    (:func:`...file_outputs.scene_free`), is edited in numpy with no armature built (a long take costs no Blender keys);
    any other file in the scene (:mod:`.scene`), where the edit is written onto its armature and exported."""
    if file_outputs.scene_free(first, options):
        clip, settings, header = read_motion.read_clip(first, options)
        other, other_settings = clips.other_clip_and_settings(second, options) if second is not None else (None, None)
        obj, playback, armature = None, None, read_motion.armature_name(first)
    else:
        scene = clips.blender_side(".scene", __package__)  # only for a file Blender must import or write
        obj, clip, settings, header, other, other_settings, playback = scene.opened(first, second, options)
        armature = obj.name
    imported = time.perf_counter() - started
    targets = file_outputs.targets(options, name, first, inputs)
    edited = edited_clip(options, clip, other, (first.name, second.name if second else ""))
    entry = report.edit_entry(first, second, armature, targets, edited, 0.0, clip)
    if second is not None:
        entry["other_imports"] = clips.other_imports([second], [other_settings])
    if obj is not None:
        return scene.write_edit(obj, edited, clip, playback, targets, settings, header, options, entry, imported, started)
    return file_outputs.finish(edited.clip, targets, settings, header, entry, f"{armature}_{edited.edit}", imported, started)
