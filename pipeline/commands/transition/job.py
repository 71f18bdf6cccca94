"""The ``transition`` job for one pair of files: read both, make the transition, verified outputs.

Run by :mod:`.runner`. TO is read first and kept as arrays. FROM read by
the numpy reader (a BVH, an AMC) and written as BVH or AMC needs no Blender
scene: the transition is written from its clip. Otherwise FROM's scene
stays open, and the result is written onto FROM's armature and exported
(:mod:`.scene`, imported only then).
"""

import time

from ....core.errors import LoopsmithError
from ....core.transition import make
from ....files import interrupts, read_motion
from ... import clips, file_outputs
from ...entries import error_entry
from . import report


def process(task, options, name, inputs):
    """Make the transition FROM -> TO of ``task``; one report entry (or one error entry naming the file at fault).

    ``name``: the output stem (``<from>_to_<to>``); ``inputs``: real paths of
    every input of the run (as strings), which no output may replace.
    """
    source, target = task
    started = time.perf_counter()
    try:
        if file_outputs.scene_free(source, options):
            clip_b, settings_b = clips.other_clip_and_settings(target, options)
            clip_a, settings, header = read_motion.read_clip(source, options)
            obj, armature = None, read_motion.armature_name(source)
        else:  # FROM's scene stays open: the result is written onto its armature and exported
            obj, clip_a, settings, header, clip_b, settings_b = clips.pair_clips(source, target, options)
            armature = obj.name
        imported = time.perf_counter() - started
        targets = file_outputs.targets(options, name, source, inputs)
        # The core calls the clips A and B; here they are the files the user named.
        made = make.make_transition(clip_a, clip_b, options.at, options.method, options.length, options.timewarp, options.align,
                                    options.joints, labels=(f"FROM ({source.name})", f"TO ({target.name})"))
        entry = report.transition_entry(source, target, armature, targets, made, 0.0)
        entry["other_imports"] = clips.other_imports([target], [settings_b])
        if obj is not None:
            scene = clips.blender_side(".scene", __package__)
            return scene.write_transition(obj, made, name, targets, settings, header, options, entry, imported, started)
        return file_outputs.finish(made.clip, targets, settings, header, entry, name, imported, started)
    except LoopsmithError as error:
        interrupts.check()
        entry = error_entry(source, str(error), time.perf_counter() - started)
        entry["to"] = str(target)
        return [entry]
