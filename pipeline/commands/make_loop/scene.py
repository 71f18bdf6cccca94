"""The ``make-loop`` job's Blender side: a file imported into a scene, each armature with an action looped there and written
from the scene (bpy)."""

import time

import bpy

from ....bridge import clip_io, importers
from ....files.read_motion import InputError
from ... import engine_output
from . import report
from .job import find_and_make


def armature_loops(path, options):
    """Import ``path`` into a fresh scene: ``[(armature name, loop(targets) -> report entry)]`` for each armature with an
    action (:func:`loop_armature`). InputError naming the problem when it cannot be read or has no such armature."""
    settings, header = importers.load(path, options)
    names = importers.armatures_with_actions()
    if not names:
        raise InputError("has no armature with an action")
    return [(name, lambda targets, name=name: loop_armature(bpy.data.objects[name], path, options, targets, settings, header))
            for name in names]


def loop_armature(obj, path, options, targets, settings, header):
    """Loop the armature ``obj`` of ``path`` in the scene (a new action; the original kept) and write ``targets``: its
    report entry."""
    started = time.perf_counter()
    source = clip_io.require_action(obj)
    scene = bpy.context.scene
    scene.render.fps = scene.render.fps or 30
    result, detection, start, end, params, share = find_and_make(clip_io.read_clip(obj), options)
    written = clip_io.write_loop(obj, result, source, params, options.loop_mode)
    source.use_fake_user = True  # a .blend output keeps the original action too
    entry = report.loop_entry(path, obj.name, targets, result, detection, start, end, 0.0, share)
    entry["import"] = settings.to_json()
    if written.stitched_curves or written.stepped_curves:
        entry["other_curves"] = {"stitched": [f"{path}[{index}]" for path, index in written.stitched_curves],
                                 "stepped": [f"{path}[{index}]" for path, index in written.stepped_curves]}
    # All formats or none, last: an interrupted or failed file leaves no output that its report entry does not list.
    engine_output.write_outputs(obj, targets, settings, header, options, entry)
    entry["seconds"] = round(time.perf_counter() - started, 3)
    return entry
