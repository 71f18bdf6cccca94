"""The ``transition`` job's Blender side: FROM imported into a scene, the transition written onto its armature as a new
action and exported from there (bpy)."""

import time

from ....bridge import clip_io
from ... import clips, engine_output, file_outputs
from . import report
from .job import made_transition


def transition_in_scene(source, target, options, name, inputs, started):
    """The transition FROM ``source`` TO ``target`` made in the scene: the report's entries. TO is read first and kept as
    arrays; FROM's scene stays open. Raises LoopsmithError. started: the task's :func:`time.perf_counter` start."""
    obj, clip_a, settings, header, clip_b, settings_b = clips.pair_clips(source, target, options)
    imported = time.perf_counter() - started
    targets = file_outputs.targets(options, name, source, inputs)
    made = made_transition(source, target, clip_a, clip_b, options)
    clip_io.write_clip(obj, made.clip, name, source_action=clip_io.require_action(obj), frame_range=True)
    entry = report.transition_entry(source, target, obj.name, targets, made, 0.0)
    entry["other_imports"] = clips.other_imports([target], [settings_b])
    return engine_output.finish(obj, targets, settings, header, options, entry, imported, started)
