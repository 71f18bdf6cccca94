"""The ``transition`` job's Blender side: the transition written onto FROM's armature as a new action, and exported from
the scene (bpy)."""

from ....bridge import clip_io
from ... import engine_output


def write_transition(obj, made, name, targets, settings, header, options, entry, imported, started):
    """Write the transition ``made`` onto FROM's armature ``obj`` as the action ``name`` (FROM's own kept), then every
    target from the scene: the report's entries. imported: the import's seconds; started: the task's
    :func:`time.perf_counter` start."""
    clip_io.write_clip(obj, made.clip, name, source_action=clip_io.require_action(obj), frame_range=True)
    return engine_output.finish(obj, targets, settings, header, options, entry, imported, started)
