"""convert's Blender side: a file imported into a scene and written from it, and an FBX, GLB or .blend output read back (bpy)."""

import time

import numpy as np

from ....bridge import importers
from ... import engine_output, file_outputs
from . import report


def convert_in_scene(path, options, name, inputs, started):
    """Import ``path`` (its first armature with an action) and write every target from the scene: ``(clip, import settings,
    the armature's 4x4 placement, targets, report entry)``. started: the task's :func:`time.perf_counter` start."""
    obj, clip, settings, header = importers.armature_clip(path, options, pose=True)
    imported, placement = time.perf_counter() - started, np.array(obj.matrix_world)
    targets = file_outputs.targets(options, name, path, inputs)
    entry = report.convert_entry(path, obj.name, targets, clip)
    engine_output.finish(obj, targets, settings, header, options, entry, imported, started)
    return clip, settings, placement, targets, entry


def read_back(target, options):
    """``(clip, placement)`` of an FBX, GLB or .blend output imported into a fresh scene (its armature's 4x4 placement)."""
    obj, clip, _, _ = importers.armature_clip(target, options, pose=True)
    return clip, np.array(obj.matrix_world)
