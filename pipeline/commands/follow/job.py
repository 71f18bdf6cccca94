"""The ``follow`` job (bpy side): import the graph's clips, plan a walk along the path, render and correct it, verified
outputs.

Run by :mod:`.runner`. As synth's: the first clip's scene stays open, so the new motion is written onto its armature and
exported.
"""

import time

from ....bridge import clip_io
from ....core.errors import LoopsmithError
from ....core.formats import graph_json
from ....core.graph import check_clips, follow
from ....files import interrupts
from ... import engine_output, file_outputs
from ...entries import error_entry
from ..synth.job import graph_clips
from . import report


def process(task, options, name, inputs):
    """Follow the path with motion from the graph over the task's clips; one report entry (or one error entry)."""
    paths = list(task)
    started = time.perf_counter()
    try:
        graph = graph_json.read_graph_file(options.graph)  # checked when the command started
        obj, clip, settings, header, others = graph_clips(paths, options)
        check_clips(graph, [clip, *others])  # what the graph recorded of each clip, before anything is planned
        imported = time.perf_counter() - started
        targets = file_outputs.targets(options, name, paths[0], [*inputs, str(options.graph.resolve()), str(options.path.resolve())])
        followed = follow.follow(graph, [clip, *others], options.points, options.speeds, options.speed, options.clips,
                                 horizon=options.horizon, end=options.end)
        clip_io.write_clip(obj, followed.composition.clip, name, source_action=clip_io.require_action(obj), frame_range=True)
        by_name = {entry["name"]: clip_path for entry, clip_path in zip(graph.clips, paths)}
        entry = report.follow_entry(paths, obj.name, targets, followed, options, lambda segment: by_name[segment.name])
        return engine_output.finish(obj, targets, settings, header, options, entry, imported, started)
    except LoopsmithError as error:
        interrupts.check()
        entry = error_entry(options.graph, str(error), time.perf_counter() - started)
        entry["graph_file"], entry["path_file"] = str(options.graph), str(options.path)
        return [entry]
