"""The ``make-loop`` job for one file: read, Find Loop, Make Loop, verified outputs.

Run by :mod:`.runner` in this process or in worker processes. A BVH read
by the numpy reader or an AMC, written as BVH or AMC, is looped in numpy
alone; any other file is imported into a Blender scene (:mod:`.scene`,
which imports bpy only then).
"""

import time

import numpy as np

from ....core.errors import LoopError, LoopsmithError, NoLoopFound
from ....core.loop import detect, make as loop, stitch
from ....core.measure import grounding
from ....files import interrupts, read_motion
from ....files.write_motion import wrap_closing_frame
from ... import clips, file_outputs
from ...entries import error_entry
from . import report
from .options import OUTPUT_TAG


def _targets(stem, obj_name, several, options, path, inputs):
    """One output path per requested format; never any input of the run."""
    base = f"{stem}_{obj_name}" if several else stem
    return file_outputs.targets(options, f"{base}{OUTPUT_TAG}", path, inputs)


def _loop_range(clip, options):
    """The frames to loop and Find Loop's detection (None when the range was given)."""
    try:
        return detect.loop_range(clip, options.range, options.whole, options.min_length, options.max_length, options.cycles)
    except NoLoopFound as missing:
        if missing.cycles:
            raise LoopError(f"no loop of {missing.cycles} cycles fits in the clip between --min-length {missing.min_length:g} s and "
                            f"--max-length {missing.max_length:g} s; ask for fewer cycles, a longer --max-length, or give --range") from None
        if missing.needed:
            raise LoopError(f"no repeating motion found within --max-length {missing.max_length:g} s: it repeats every "
                            f"{missing.needed:.2f} s, so give --max-length {np.ceil(missing.needed * 10) / 10:g} (or --range)") from None
        raise LoopError(f"no repeating motion found between --min-length {missing.min_length:g} s and --max-length "
                        f"{missing.max_length:g} s; give --range") from None


def find_and_make(clip, options):
    """Find Loop (unless the range is given) and Make Loop on ``clip``: (result, detection, start, end, the stitch parameters
    used, how much the loop moves against the take: seam.motion_share)."""
    clip = grounding.grounded(clip) if options.ground else clip
    (start, end), detection = _loop_range(clip, options)
    params = stitch.StitchParameters.from_settings(options)
    # Made as CLAMP, written as either: a WRAP action keeps the closing key and ends its range a frame earlier.
    result = loop.make_loop(clip, start, end, params, options.root_mode, options.root_bone, "CLAMP", options.root_blend, options.lock_feet)
    # AUTO resolved: other curves are stitched with the method kept
    return result, detection, start, end, result.params, round(loop.loop_motion_share(result, clip), 3)


def _loop_in_numpy(clip, name, path, options, targets, settings, header):
    """:func:`.scene.loop_armature` for a clip read in numpy and written as BVH or AMC only: no Blender scene at all."""
    started = time.perf_counter()
    result, detection, start, end, _, share = find_and_make(clip, options)
    looped, note = result.clip, ""
    if options.loop_mode == "WRAP":
        keep, note = wrap_closing_frame(looped)
        looped = looped if keep else looped.slice_frames(0, looped.num_frames - 1)
    entry = report.loop_entry(path, name, targets, result, detection, start, end, 0.0, share)
    if note:
        entry["loop_end"] = note
    file_outputs.write_scene_free(looped, targets, settings, header, entry, f"{name}_loop")
    entry["seconds"] = round(time.perf_counter() - started, 3)
    return entry


def _loop_file(path, options, stem, inputs):
    """The entries of every armature of ``path`` and the import's seconds; raises LoopsmithError if the file cannot be read."""
    started = time.perf_counter()
    if file_outputs.scene_free(path, options):
        clip, settings, header = read_motion.read_clip(path, options)
        imported, name = time.perf_counter() - started, read_motion.armature_name(path)
        loops = [(name, lambda targets: _loop_in_numpy(clip, name, path, options, targets, settings, header))]
    else:
        loops = clips.blender_side(".scene", __package__).armature_loops(path, options)
        imported = time.perf_counter() - started
    entries = []
    for name, make in loops:
        begun = time.perf_counter()
        try:
            entries.append(make(_targets(stem, name, len(loops) > 1, options, path, inputs)))
        except LoopsmithError as error:
            interrupts.check()
            entries.append(error_entry(path, str(error), time.perf_counter() - begun, name))
    return entries, imported


def process(task, options, stem, inputs):
    """Loop every armature with an action in the task's one file; one report entry each (or one error entry).

    ``stem``: the file's output stem; ``inputs``: real paths of every input
    of the run (as strings), which no output may replace. Each entry's
    ``seconds`` covers its own loop; ``import_seconds`` the file's import.
    """
    (path,) = task
    started = time.perf_counter()
    try:
        entries, imported = _loop_file(path, options, stem, inputs)
    except LoopsmithError as error:
        interrupts.check()
        entries, imported = [error_entry(path, str(error), time.perf_counter() - started)], 0.0
    for entry in entries:
        entry["import_seconds"] = round(imported, 3)
    return entries
