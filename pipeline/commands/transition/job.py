"""The ``transition`` job for one pair of files (bpy side): import both, make the transition, verified outputs.

Run by :mod:`.runner`. TO is read first and kept as arrays; FROM's scene
stays open, so the result is written onto FROM's armature and exported.
"""

import time

from ....bridge import clip_io
from ....core.errors import LoopsmithError
from ....core.transition import make
from ....files import interrupts
from ... import clips, engine_output, file_outputs
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
        obj, clip_a, settings, header, clip_b, settings_b = clips.pair_clips(source, target, options)
        imported = time.perf_counter() - started
        targets = file_outputs.targets(options, name, source, inputs)
        # The core calls the clips A and B; here they are the files the user named.
        labels = (f"FROM ({source.name})", f"TO ({target.name})")
        made = make.make_transition(clip_a, clip_b, options.at, options.method, options.length, options.timewarp, options.align,
                                    options.joints, labels=labels)
        clip_io.write_clip(obj, made.clip, name, source_action=clip_io.require_action(obj), frame_range=True)
        entry = report.transition_entry(source, target, obj.name, targets, made, 0.0)
        entry["other_imports"] = clips.other_imports([target], [settings_b])
        return engine_output.finish(obj, targets, settings, header, options, entry, imported, started)
    except LoopsmithError as error:
        interrupts.check()
        entry = error_entry(source, str(error), time.perf_counter() - started)
        entry["to"] = str(target)
        return [entry]
