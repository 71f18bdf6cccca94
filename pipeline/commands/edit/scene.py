"""The editing commands' Blender side: the task's first file imported into a scene, the edit written onto its armature as a
new action and exported from there (bpy)."""

import bpy

from ....bridge import clip_io, importers
from ... import clips, engine_output


def opened(first, second, options):
    """Import ``first`` into a fresh scene (a pair's ``second`` read first and kept as arrays): ``(armature, clip,
    settings, header, other clip, other settings, playback)``; playback: how the file's action plays (a WRAP loop is read
    with its closing key), None for a pair. Raises LoopsmithError."""
    if second is None:
        obj, settings, header = importers.first_armature(first, options)
        clip, playback = clip_io.read_edit_source(obj)  # a WRAP loop with its closing key
        return obj, clip, settings, header, None, None, playback
    return (*clips.pair_clips(first, second, options), None)


def write_edit(obj, edited, clip, playback, targets, settings, header, options, entry, imported, started):
    """Write ``edited`` (made from ``clip``) onto ``obj`` as a new action, then every target from the scene: the report's
    entries. imported: the import's seconds; started: the task's :func:`time.perf_counter` start."""
    clip_io.write_edit(obj, edited, clip_io.require_action(obj), clip.frames[0], playback)
    clip_io.set_scene_fps(bpy.context.scene, edited.clip.fps)  # the exporters time frames by the scene's rate
    return engine_output.finish(obj, targets, settings, header, options, entry, imported, started)
