"""synth's options (no Blender): how long, which walk, the graph it reads and its clips checked before any work."""

import pathlib
import re

from ....core.errors import GraphError
from ....core.formats import graph_json
from ....core.graph import path_via, random_walk
from ...options import number, UsageError
from ..compose.options import add_music_arguments, check_music

MIN_SECONDS, MAX_SECONDS = 1.0, 600.0  # a transition's blend lasts up to 1 s; synth renders about a second of motion per second
MAX_SEED = 10 ** 9
_SHA256 = re.compile(r"[0-9a-f]{64}")


def checked_clips(graph_path, graph):
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


def read_graph(options):
    """(the graph's path as given, the graph, its clips' paths): the whole graph file read and checked, its clips against their
    checksums, and ``--name``; UsageError when it is no graph, a clip changed, or the name is no plain file name."""
    graph_path = options.inputs[0]
    try:
        graph = graph_json.read_graph_file(pathlib.Path(graph_path))
    except GraphError as error:
        raise UsageError(f"{graph_path} is not a motion graph written by 'loopsmith graph' ({error})") from None
    paths = checked_clips(graph_path, graph)
    if "/" in options.name or "\\" in options.name or options.name in ("", ".", ".."):
        raise UsageError(f"--name must be a plain file name, not '{options.name}'")
    return graph_path, graph, paths


def add_arguments(parser):
    parser.add_argument("--seconds", type=number(MIN_SECONDS, MAX_SECONDS), required=True,
                        help="how long the new motion lasts, seconds (rendering takes about as long as the motion lasts)")
    parser.add_argument("--seed", type=number(0, MAX_SEED, integer=True),
                        help="the random walk's seed (default 0): the same seed, the same motion; not with --via, whose path has no "
                             "random choice")
    parser.add_argument("--via", nargs="+", metavar="CLIP", default=[],
                        help="visit these clips in order by the shortest path (a clip's file name, or a word in it: walk run bow) "
                             "(default: a random walk, --seed)")
    parser.add_argument("--name", default="synthesis", help="the output's name: FOLDER/NAME.<format>")
    add_music_arguments(parser)


def check(options):
    """Read and check the whole graph file, its clips against their checksums and the walk asked for; put the clips in place
    of the inputs. UsageError when it is no graph, a clip changed, or the walk cannot be made."""
    graph_path, graph, paths = read_graph(options)
    for word in options.via:
        if not word.strip():
            raise UsageError(f"--via {word!r} names no clip: give clip names or words in them (walk run bow)")
    if options.via and options.seed is not None:
        raise UsageError("--seed draws a random walk, --via takes the quickest path through its clips: give one of them")
    options.seed = options.seed or 0
    check_music(options)
    try:  # synthesis draws this walk again (and again without a transition that shows): a walk that cannot be made stops here
        path_via(graph, options.via, options.seconds) if options.via else random_walk(graph, options.seconds, options.seed)
    except GraphError as error:
        raise UsageError(f"{graph_path}: {error}") from None
    options.graph, options.inputs = graph_path, paths


def plan(files, options):
    return [tuple(options.inputs)], [options.name]


def paths(options):
    """The files this command writes or reads besides its inputs and outputs, by role: kept apart from the report's."""
    return [("the graph it reads", options.graph)]
