"""The ``graph`` and ``synth`` commands: their options (this module, no Blender); jobs in :mod:`.graph_job` and :mod:`.synth_job`.

``python -m loopsmith graph CLIPS -o OUT/graph.json`` finds where a library's
clips can blend into each other and writes the motion graph as JSON (clips by
path and SHA-256, nodes, edges with costs: see :mod:`..core.graph.build`).
``python -m loopsmith synth OUT/graph.json --seconds 30 -o OUT`` walks it into
new motion, ``OUT/synthesis.<format>``, through the transition engine.
"""

import pathlib
import re

from ..core.errors import GraphError
from ..core.formats import graph_json
from ..core.graph import path_via, random_walk
from .options import number, UsageError

MIN_SECONDS, MAX_SECONDS = 1.0, 600.0  # a transition's blend lasts up to 1 s; synth renders about a second of motion per second
MAX_THRESHOLD = 1e6  # squared metres summed over 0.3 s of ~20 joints: real libraries' thresholds are ~10 (100,000 in centimetres)
MAX_TOLERANCE = 10.0  # ten times every pair's threshold joins nearly any two windows: past it no transition means anything
MAX_SEED = 10 ** 9
_SHA256 = re.compile(r"[0-9a-f]{64}")

GRAPH_EXIT_CODES = "exit codes: 0 the graph was written, 1 it failed (named on stderr), 2 usage error, 130 interrupted"
SYNTH_EXIT_CODES = "exit codes: 0 the motion was made, 1 it failed (named on stderr), 2 usage error, 130 interrupted"


def _checked_clips(graph_path, graph):
    """The paths of the graph's clips; UsageError for a clip without its path and SHA-256, missing, or changed since."""
    paths = []
    for clip in graph.clips:
        path, checksum = clip.get("path"), clip.get("sha256")
        if not (isinstance(path, str) and path and isinstance(checksum, str) and _SHA256.fullmatch(checksum)):
            raise UsageError(f"{graph_path}: its clip '{clip['name']}' has no file path and SHA-256 to check it by; build the graph again")
        path = pathlib.Path(path)
        if not path.exists():
            raise UsageError(f"{graph_path}: its clip {path} is missing; build the graph again")
        try:
            changed = graph_json.file_checksum(path) != checksum
        except (OSError, GraphError) as error:
            raise UsageError(f"{graph_path}: its clip {path} cannot be read ({getattr(error, 'strerror', None) or error})") from None
        if changed:
            raise UsageError(f"{graph_path}: its clip {path} has changed since the graph was built; build the graph again")
        paths.append(path)
    return paths


class GraphCommand:
    """``graph``: one task over every clip given (files or folders)."""

    NAME, HELP, DONE, INPUTS, JOB = "graph", "build a motion graph over a library: where its clips can blend into each other", "built", "+", "graph_job"
    FANS_OUT = True  # with --scheduler its task sends the distance map's blocks to the cluster too (see .cluster.run_task)

    def add_arguments(self, parser):
        parser.add_argument("--threshold", type=number(0.0, MAX_THRESHOLD, low_open=True),
                            help="largest pose distance a transition may bridge, one for every pair of clips (default: each pair's own, "
                                 "from its clips' distances; the report gives them)")
        parser.add_argument("--tolerance", type=number(0.0, MAX_TOLERANCE, low_open=True), default=1.0,
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

    def paths(self, options):
        """The files this command writes or reads besides its inputs and outputs, by role: kept apart from the report's."""
        return [("the graph (-o)", options.graph)]


class SynthCommand:
    """``synth``: the graph's clips, read from the graph file, make one task."""

    NAME, HELP, DONE, INPUTS, JOB = "synth", "synthesize new motion from a motion graph: a random walk, or a path through named clips", "made", 1, "synth_job"
    INPUTS_HELP = "the motion graph (JSON) written by 'loopsmith graph'"

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=number(MIN_SECONDS, MAX_SECONDS), required=True,
                            help="how long the new motion lasts, seconds (rendering takes about as long as the motion lasts)")
        parser.add_argument("--seed", type=number(0, MAX_SEED, integer=True),
                            help="the random walk's seed (default 0): the same seed, the same motion; not with --via, whose path has no "
                                 "random choice")
        parser.add_argument("--via", nargs="+", metavar="CLIP", default=[],
                            help="visit these clips in order by the shortest path (a clip's file name, or a word in it: walk run bow)")
        parser.add_argument("--name", default="synthesis", help="the output's name: OUT/NAME.<format>")
        parser.epilog = "usage: loopsmith synth OUT/graph.json --seconds 30 --seed 1 -o OUT\n\n" + SYNTH_EXIT_CODES

    def check(self, options):
        """Read and check the whole graph file, its clips against their checksums and the walk asked for; put the clips in place
        of the inputs. UsageError when it is no graph, a clip changed, or the walk cannot be made."""
        graph_path = options.inputs[0]
        try:
            graph = graph_json.read_graph_file(pathlib.Path(graph_path))
        except GraphError as error:
            raise UsageError(f"{graph_path} is not a motion graph written by 'loopsmith graph' ({error})") from None
        paths = _checked_clips(graph_path, graph)
        if "/" in options.name or "\\" in options.name or options.name in ("", ".", ".."):
            raise UsageError(f"--name must be a plain file name, not '{options.name}'")
        for word in options.via:
            if not word.strip():
                raise UsageError(f"--via {word!r} names no clip: give clip names or words in them (walk run bow)")
        if options.via and options.seed is not None:
            raise UsageError("--seed draws a random walk, --via takes the quickest path through its clips: give one of them")
        options.seed = options.seed or 0
        try:  # synthesis draws this walk again (and again without a transition that shows): a walk that cannot be made stops here
            path_via(graph, options.via, options.seconds) if options.via else random_walk(graph, options.seconds, options.seed)
        except GraphError as error:
            raise UsageError(f"{graph_path}: {error}") from None
        options.graph, options.inputs = graph_path, paths

    def plan(self, files, options):
        return [tuple(options.inputs)], [options.name]

    def paths(self, options):
        """The files this command writes or reads besides its inputs and outputs, by role: kept apart from the report's."""
        return [("the graph it reads", options.graph)]


COMMANDS = (GraphCommand(), SynthCommand())
