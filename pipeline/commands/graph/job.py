"""The ``graph`` job: read every clip once, build the motion graph, write it as verified JSON.

Run by :mod:`.runner` as one task over the whole library; with ``--scheduler`` the
distance map's blocks run on the Dask cluster (:func:`.cluster.block_map`). A
library of BVH and AMC files is read in numpy, with no Blender; any other file
through Blender's importers (:func:`...clips.load_clip`).
"""

import contextlib
import json
import time

from ....core import graph as motion_graph
from ....core.formats import graph_json
from ....core.errors import GraphError, LoopsmithError
from ....files import interrupts, outputs
from ...clips import load_clip
from ...entries import error_entry
from . import report


def _write_json(document):
    def write(path):
        path.write_text(json.dumps(document, indent=1))
    return write


def _verify_json(path):
    try:
        graph_json.read_graph_file(path)
    except GraphError as error:
        raise outputs.OutputError(path, f"the written graph does not read back ({error})") from None


def distinct_names(paths):
    """Each clip's name in the graph: its file name, with as many of its folders in front as it takes to tell it from another's."""
    depth = 1
    while True:
        names = ["/".join(path.resolve().parts[-depth:]) for path in paths]
        if len(set(names)) == len(names) or depth > max(len(path.resolve().parts) for path in paths):
            return names
        depth += 1


def _blocks_on(scheduler):
    """Where the distance map's blocks run: this process's threads, or the cluster at ``scheduler`` (``--scheduler``)."""
    if scheduler is None:
        return contextlib.nullcontext()
    from ... import cluster

    return cluster.block_map(scheduler)


def _read_library(paths, options):
    """The clips of ``paths`` a graph can hold: (clips, their paths, error entries naming each file left out and why).

    A file that cannot be read, or whose skeleton or frame rate is not the
    library's majority's, is left out; the others make the graph.
    """
    clips, kept, failed = [], [], []
    for path in paths:
        started = time.perf_counter()
        try:
            clips.append(load_clip(path, options)[0])
            kept.append(path)
        except LoopsmithError as error:
            interrupts.check()
            failed.append(error_entry(path, str(error), time.perf_counter() - started))
    odd = motion_graph.odd_clips(clips) if clips else {}
    failed += [error_entry(kept[index], reason, 0.0) for index, reason in odd.items()]
    return [c for k, c in enumerate(clips) if k not in odd], [p for k, p in enumerate(kept) if k not in odd], failed


def process(task, options, name, inputs):
    """Build the graph over the task's files; its report entry (or an error entry for the graph) and an error entry for
    each file left out of it, each naming the graph file (a later build of it replaces them all in the folder's report)."""
    return [dict(entry, graph_file=str(options.graph)) for entry in _built(task, options, inputs)]


def _built(task, options, inputs):
    paths = list(task)
    started = time.perf_counter()
    failed = []
    try:
        clips, kept, failed = _read_library(paths, options)
        if not clips:
            raise GraphError(f"no graph: none of the {len(paths)} clips can be read as one library (each is named above)")
        imported = time.perf_counter() - started
        outputs.refuse_inputs([options.graph], inputs)
        with _blocks_on(options.scheduler) as map_blocks:
            graph = motion_graph.build_graph(clips, distinct_names(kept), threshold=options.threshold, map_blocks=map_blocks,
                                             tolerance=getattr(options, "tolerance", 1.0))
        document = graph_json.graph_to_json(graph)
        del document["stats"]["seconds"]  # the report has the time: the same library gives the same file, locally or on a cluster
        for entry, path in zip(document["clips"], kept):
            entry["path"], entry["sha256"] = str(path.resolve()), graph_json.file_checksum(path)
        outputs.replace_all([(options.graph, _write_json(document), _verify_json)])
        entry = report.graph_entry(kept, options.graph, graph, time.perf_counter() - started)
        entry["import_seconds"] = round(imported, 3)
        return [entry, *failed]
    except LoopsmithError as error:
        interrupts.check()
        entry = error_entry(options.graph, str(error), time.perf_counter() - started)
        entry["clips"] = [str(path) for path in paths]
        return [*failed, entry]
