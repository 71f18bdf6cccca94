"""The editing commands' Blender side: the task's first file imported into a scene, the edit written onto its armature as a
new action and exported from there (bpy)."""

import time

import bpy

from ....bridge import clip_io, importers
from ... import clips, engine_output, file_outputs
from . import report
from .job import edited_clip


def edit_in_scene(first, second, options, name, inputs, started):
    """Edit the task's file (or pair) in the scene: the report's entries. For a pair the second file is read first and kept
    as arrays; the first file's scene stays open, so the result is written onto its armature and exported. Raises
    LoopsmithError. started: the task's :func:`time.perf_counter` start."""
    playback = other = None
    if second is None:
        obj, settings, header = importers.first_armature(first, options)
        clip, playback = clip_io.read_edit_source(obj)  # a WRAP loop with its closing key
    else:
        obj, clip, settings, header, other, other_settings = clips.pair_clips(first, second, options)
    imported = time.perf_counter() - started
    targets = file_outputs.targets(options, name, first, inputs)
    edited = edited_clip(options, clip, other, (first.name, second.name if second else ""))
    clip_io.write_edit(obj, edited, clip_io.require_action(obj), clip.frames[0], playback)
    clip_io.set_scene_fps(bpy.context.scene, edited.clip.fps)  # the exporters time frames by the scene's rate
    entry = report.edit_entry(first, second, obj.name, targets, edited, 0.0, clip)
    if second is not None:
        entry["other_imports"] = clips.other_imports([second], [other_settings])
    return engine_output.finish(obj, targets, settings, header, options, entry, imported, started)
