"""The ``compose`` job (bpy side): import every clip, compose them, verified outputs.

Run by :mod:`.runner`. The later files are read first and kept as arrays;
the first file's scene stays open, so the composition is written onto its
armature and exported.
"""

import time

from ....bridge import clip_io, importers
from ....core.compose import sequence
from ....core.errors import LoopsmithError
from ....files import interrupts
from ... import engine_output
from ...entries import error_entry
from . import options as compose_options, report


def pieces_and_junctions(paths, first_clip, others, options):
    """The core's pieces (with ``--clip-range`` and ``--face``) and junctions (``--junction``, ``--method``, ``--length``) for the
    files in order."""
    ranges = {index: (first, last) for index, first, last in options.clip_range}
    turns = compose_options.faces(options)
    pieces = [sequence.Piece(clip, *ranges.get(number, (None, None)), name=path.name, heading=turns.get(number, 0.0))
              for number, (path, clip) in enumerate(zip(paths, [first_clip, *others]), start=1)]
    points = {junction: (frame_a, frame_b) for junction, frame_a, frame_b in options.junction}
    junctions = [sequence.Junction(points.get(number, "auto"), options.method, options.length)
                 for number in range(1, sequence.junction_count(len(pieces), options.loop) + 1)]
    return pieces, junctions


def process(task, options, name, inputs):
    """Compose the task's files in order; one report entry (or one error entry naming the file at fault).

    ``name``: the output stem (``--name``); ``inputs``: real paths of every
    input of the run (as strings), which no output may replace.
    """
    paths = list(task)
    started = time.perf_counter()
    try:
        obj, clip, settings, header, others = importers.several_clips(paths, options)
        imported = time.perf_counter() - started
        targets = engine_output.targets(options, name, paths[0], inputs)
        pieces, junctions = pieces_and_junctions(paths, clip, others, options)
        composed = sequence.compose(pieces, junctions, loop=options.loop, trim=options.trim, align=options.align)
        clip_io.write_clip(obj, composed.clip, name, source_action=clip_io.require_action(obj), frame_range=True, cyclic=options.loop,
                           cycles_travel=composed.travel_bone)
        entry = report.composition_entry(paths, obj.name, targets, composed)
        return engine_output.finish(obj, targets, settings, header, options, entry, imported, started)
    except LoopsmithError as error:
        interrupts.check()
        entry = error_entry(paths[0], str(error), time.perf_counter() - started)
        entry["clips"] = [str(path) for path in paths]
        return [entry]
