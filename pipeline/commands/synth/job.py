"""The ``synth`` job (bpy side): import the graph's clips, walk the graph, render the path, verified outputs.

Run by :mod:`.runner`. The later clips are read first and kept as arrays;
the first clip's scene stays open, so the new motion is written onto its
armature and exported.
"""

import time

from ....bridge import clip_io, importers
from ....core import graph as motion_graph
from ....core.formats import graph_json
from ....core.errors import LoopsmithError
from ....files import interrupts
from ... import engine_output
from ...entries import error_entry
from . import report


def _clips(paths, options):
    """:func:`..bridge.importers.several_clips`, but a problem with the first file is named by its path too, as the others' are (the
    report entry is the graph's)."""
    others = [importers.other_clip(path, options) for path in paths[1:]]
    try:
        return (*importers.armature_clip(paths[0], options), others)
    except LoopsmithError as error:
        raise importers.InputError(f"{paths[0]}: {error}") from None


def process(task, options, name, inputs):
    """Synthesize ``options.seconds`` of motion from the graph over the task's clips; one report entry (or one error entry)."""
    paths = list(task)
    started = time.perf_counter()
    try:
        graph = graph_json.read_graph_file(options.graph)  # checked when the command started
        obj, clip, settings, header, others = _clips(paths, options)
        motion_graph.check_clips(graph, [clip, *others])  # what the graph recorded of each clip, before anything is rendered
        imported = time.perf_counter() - started
        targets = engine_output.targets(options, name, paths[0], [*inputs, str(options.graph.resolve())])
        composed = motion_graph.synthesize(graph, [clip, *others], options.seconds, options.seed, options.via)
        clip_io.write_clip(obj, composed.clip, name, source_action=clip_io.require_action(obj), frame_range=True)
        by_name = {clip_entry["name"]: clip_path for clip_entry, clip_path in zip(graph.clips, paths)}
        entry = report.synthesis_entry(paths, obj.name, targets, composed, options.graph, options.seed, options.via,
                                       lambda segment: by_name[segment.name])
        return engine_output.finish(obj, targets, settings, header, options, entry, imported, started)
    except LoopsmithError as error:
        interrupts.check()
        entry = error_entry(options.graph, str(error), time.perf_counter() - started)
        entry["graph_file"] = str(options.graph)
        return [entry]
