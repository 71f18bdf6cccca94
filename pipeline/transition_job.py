"""The ``transition`` job for one pair of files (bpy side): import both, make the transition, verified outputs.

Run by :mod:`.runner`. TO is read first and kept as arrays; FROM's scene
stays open, so the result is written onto FROM's armature and exported.
"""

import time

import bpy

from ..bridge import clip_io
from ..core.errors import LoopsmithError
from ..core.transition import make
from . import export, importers, interrupts, outputs, report
from .inputs import output_suffixes


def _armature_clip(path, options):
    """Import ``path``; its first armature with an action, that action's clip, the import settings and the BVH header."""
    settings, header = importers.load(path, options)
    names = importers.armatures_with_actions()
    if not names:
        raise importers.InputError("has no armature with an action")
    obj = bpy.data.objects[names[0]]
    return obj, clip_io.read_clip(obj), settings, header


def process(task, options, name, inputs):
    """Make the transition FROM -> TO of ``task``; one report entry (or one error entry naming the file at fault).

    ``name``: the output stem (``<from>_to_<to>``); ``inputs``: real paths of
    every input of the run (as strings), which no output may replace.
    """
    source, target = task
    started = time.perf_counter()
    at = source
    try:
        at = target
        _, clip_b, _, _ = _armature_clip(target, options)
        at = source
        obj, clip_a, settings, header = _armature_clip(source, options)
        imported = time.perf_counter() - started
        targets = [options.out / f"{name}{suffix}" for suffix in output_suffixes(source, options.format)]
        outputs.refuse_inputs(targets, inputs)
        made = make.make_transition(clip_a, clip_b, options.at, options.method, options.length, options.timewarp, options.align,
                                    options.joints)
        action = clip_io.write_clip(obj, made.clip, name, source_action=clip_io.require_action(obj), frame_range=True)
        first, last = int(made.clip.frames[0]), int(made.clip.frames[-1])
        entry = report.transition_entry(source, target, obj.name, targets, made, 0.0)
        entry["import"], entry["import_seconds"] = settings, round(imported, 3)
        scale = settings.get("bvh_scale", 1.0)
        bvh_source = (header, settings["up_axis"]) if header is not None else None
        outputs.replace_all([(path, lambda temporary, suffix=path.suffix: export.write(obj, temporary, suffix, first, last, scale, bvh_source),
                              lambda temporary, suffix=path.suffix: export.verify(temporary, suffix, last - first + 1)) for path in targets])
        entry["seconds"] = round(time.perf_counter() - started, 3)
        entry["action"] = action.name
        return [entry]
    except LoopsmithError as error:
        interrupts.check()
        blame = "" if at == source else f"{target}: "  # the entry names FROM; say when TO is the file at fault
        # The core calls the clips A and B; here they are the files the user named.
        reason = str(error).replace("clip A", f"FROM ({source.name})").replace("clip B", f"TO ({target.name})")
        entry = report.error_entry(source, blame + reason, time.perf_counter() - started)
        entry["to"] = str(target)
        return [entry]
