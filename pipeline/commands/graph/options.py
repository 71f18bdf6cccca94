"""graph's options (no Blender): the thresholds, where the graph file goes, the plan of its one task."""

from ...options import number

MAX_THRESHOLD = 1e6  # squared metres summed over 0.3 s of ~20 joints: real libraries' thresholds are ~10 (100,000 in centimetres)
MAX_TOLERANCE = 10.0  # ten times every pair's threshold joins nearly any two windows: past it no transition means anything


def add_arguments(parser):
    parser.add_argument("--threshold", type=number(0.0, MAX_THRESHOLD, low_open=True), metavar="DISTANCE",
                        help="largest pose distance a transition may bridge, one for every pair of clips (default: each pair's own, "
                             "from its clips' distances; the report gives them)")
    parser.add_argument("--tolerance", type=number(0.0, MAX_TOLERANCE, low_open=True), default=1.0, metavar="FACTOR",
                        help="every pair's threshold times this; the report says which tolerance would bring in a clip left out")


def check(options):
    """``-o`` may name the graph file (``.json``); otherwise it is the folder the graph goes into, as ``graph.json``."""
    if options.out.suffix.lower() == ".json":
        options.graph, options.out = options.out, options.out.parent
    else:
        options.graph = options.out / "graph.json"


def plan(files, options):
    return [tuple(files)], [options.graph.stem]
