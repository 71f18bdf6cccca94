"""The ``graph`` and ``synth`` commands: their options (this module, no Blender); jobs in :mod:`.graph_job` and :mod:`.synth_job`.

``python -m loopsmith graph CLIPS -o OUT/graph.json`` finds where a library's
clips can blend into each other and writes the motion graph as JSON (clips by
path and SHA-256, nodes, edges with costs: see :mod:`..core.graph.build`).
``python -m loopsmith synth OUT/graph.json --seconds 30 -o OUT`` walks it into
new motion, ``OUT/synthesis.<format>``, through the transition engine.
"""

import hashlib
import json
import pathlib

from ..core.errors import GraphError
from ..core.graph import graph_from_json
from .options import UsageError, number

MAX_SECONDS = 600.0  # synth renders about a second of motion per second: longer walks belong to several runs

GRAPH_EXIT_CODES = "exit codes: 0 the graph was written, 1 it failed (named on stderr), 2 usage error, 130 interrupted"
SYNTH_EXIT_CODES = "exit codes: 0 the motion was made, 1 it failed (named on stderr), 2 usage error, 130 interrupted"


def file_sha256(path):
    """The SHA-256 of a file's bytes (hex): a graph's clips are checked against it before synthesis."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class GraphCommand:
    """``graph``: one task over every clip given (files or folders)."""

    NAME, HELP, DONE, INPUTS, JOB = "graph", "build a motion graph over a library: where its clips can blend into each other", "built", "+", "graph_job"
    FANS_OUT = True  # with --scheduler its task sends the distance map's blocks to the cluster too (see .cluster.run_task)

    def add_arguments(self, parser):
        parser.add_argument("--threshold", type=number(0.0, low_open=True),
                            help="largest pose distance a transition may bridge, one for every pair of clips (default: each pair's own, "
                                 "from its clips' distances)")
        parser.add_argument("--tolerance", type=number(0.0, low_open=True), default=1.0,
                            help="every pair's threshold times this (default 1); the report says which tolerance would bring in a clip left out")
        parser.epilog = "usage: loopsmith graph clips/ -o OUT/graph.json\n\n" + GRAPH_EXIT_CODES

    def check(self, options):
        """``-o`` may name the graph file (``.json``); otherwise it is the folder the graph goes into, as ``graph.json``."""
        if options.out.suffix.lower() == ".json":
            options.graph, options.out = options.out, options.out.parent
        else:
            options.graph = options.out / "graph.json"

    def plan(self, files, options):
        return [tuple(files)], [options.graph.stem]


class SynthCommand:
    """``synth``: the graph's clips, read from the graph file, make one task."""

    NAME, HELP, DONE, INPUTS, JOB = "synth", "synthesize new motion from a motion graph: a random walk, or a path through named clips", "made", 1, "synth_job"
    INPUTS_HELP = "the motion graph (JSON) written by 'loopsmith graph'"

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=number(0.0, MAX_SECONDS, low_open=True), required=True,
                            help=f"how long the new motion lasts, up to {MAX_SECONDS:g} s (rendering takes about as long as the motion lasts)")
        parser.add_argument("--seed", type=number(0, integer=True), default=0, help="the random walk's seed: the same seed, the same motion")
        parser.add_argument("--via", nargs="+", metavar="CLIP", default=[],
                            help="visit these clips in order by the shortest path (a clip's file name, or a word in it: walk run bow)")
        parser.add_argument("--name", default="synthesis", help="the output's name: OUT/NAME.<format>")
        parser.epilog = "usage: loopsmith synth OUT/graph.json --seconds 30 --seed 1 -o OUT\n\n" + SYNTH_EXIT_CODES

    def check(self, options):
        """Read the graph file and put its clips in place of the inputs; UsageError when it is not a graph or a clip changed."""
        graph_path = options.inputs[0]
        try:
            graph = graph_from_json(json.loads(pathlib.Path(graph_path).read_text()))
            paths = [pathlib.Path(clip["path"]) for clip in graph.clips]
            checksums = [clip.get("sha256") for clip in graph.clips]
        except (OSError, ValueError, KeyError, TypeError, GraphError) as error:
            raise UsageError(f"{graph_path} is not a motion graph written by 'loopsmith graph' ({error})") from None
        for path, checksum in zip(paths, checksums):
            if not path.is_file():
                raise UsageError(f"{graph_path}: its clip {path} is missing; build the graph again")
            if checksum and file_sha256(path) != checksum:
                raise UsageError(f"{graph_path}: its clip {path} has changed since the graph was built; build the graph again")
        if "/" in options.name or "\\" in options.name or options.name in ("", ".", ".."):
            raise UsageError(f"--name must be a plain file name, not '{options.name}'")
        options.graph, options.inputs = graph_path, paths

    def plan(self, files, options):
        return [tuple(options.inputs)], [options.name]


COMMANDS = (GraphCommand(), SynthCommand())
