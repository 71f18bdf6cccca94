"""follow's options (no Blender): the path file read and checked, the graph and its clips checked before any work."""

import json
import pathlib

from ....core.errors import GraphError
from ....core.formats import svg_path
from ....core.graph import follow
from ...options import number, UsageError
from ..synth import options as synth_options

DEFAULT_SVG_SCALE = 0.01  # metres per SVG unit: a drawing 500 units (pixels) wide is a 5 m walk
MAX_PATH_BYTES = 64 << 20  # a path of points in JSON: far below this, and a larger file is no path


def add_arguments(parser):
    parser.add_argument("--path", type=pathlib.Path, required=True, metavar="PATH.json",
                        help='the path on the ground: JSON {"points": [[x, y], ...]} in metres (X and Y, Z up), optionally '
                             '"speed": [m/s per point], or an SVG drawing (.svg, see --svg-scale); the character starts on the '
                             'first point facing along it')
    parser.add_argument("--svg-scale", type=number(0.0, 1000.0, low_open=True), metavar="METRES",
                        help="with a --path PATH.svg: metres per SVG unit (default 0.01: a drawing 500 units wide is 5 m); its "
                             "first <path> is followed, SVG's Y (down) turned to the ground's (forwards)")
    parser.add_argument("--speed", type=number(0.0, 20.0, low_open=True),
                        help="travel speed, m/s, for the whole path (default: the path's own speeds, else the median travelling "
                             "clip's); one the clips cannot reach is refused, with the range they can")
    parser.add_argument("--clips", nargs="+", metavar="CLIP", default=[],
                        help="use only these clips (a clip's file name, or a word in it: walk run) (default: every clip of the graph)")
    parser.add_argument("--end", choices=follow.ENDS, default="stand",
                        help="stand: end in a standing pose where the graph has one (a clip that stands, or stops), on the path's "
                             "end; walk: walk on to the path's end (default: stand)")
    parser.add_argument("--horizon", type=number(*follow.HORIZON_RANGE), default=follow.HORIZON_SECONDS, metavar="SECONDS",
                        help=f"the search's effort: how far ahead each step of the walk is judged against the path (default "
                             f"{follow.HORIZON_SECONDS:g} s)")
    parser.add_argument("--name", default="follow", help="the output's name: FOLDER/NAME.<format>")


def read_path(path, svg_scale=None):
    """(points ``(P, 2)``, speeds ``(P,)`` or None) of a path file (JSON, or SVG at ``svg_scale`` metres per unit); UsageError
    naming the file and the reason."""
    if path.suffix.lower() == ".svg":
        try:
            return follow.check_points(svg_path.read_svg_path(path, svg_scale or DEFAULT_SVG_SCALE))
        except OSError as error:
            raise UsageError(f"{path}: cannot be read ({error.strerror or error})") from None
        except GraphError as error:
            raise UsageError(f"{path}: {error}") from None
    if svg_scale is not None:
        raise UsageError(f"--svg-scale scales an SVG drawing, and {path} is JSON in metres: leave it out")
    try:
        if path.stat().st_size > MAX_PATH_BYTES:
            raise UsageError(f"{path}: larger than {MAX_PATH_BYTES >> 20} MB, no path of points")
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise UsageError(f"{path}: cannot be read ({error.strerror or error})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UsageError(f"{path}: not JSON ({error})") from None
    if not isinstance(data, dict) or "points" not in data:
        raise UsageError(f'{path}: a path is JSON {{"points": [[x, y], ...]}}')
    try:
        return follow.check_points(data["points"], data.get("speed"))
    except GraphError as error:
        raise UsageError(f"{path}: {error}") from None


def check(options):
    """Read and check the graph file, its clips against their checksums, the path and the clips asked for; put the clips in
    place of the inputs. UsageError when any does not hold."""
    graph_path, graph, paths = synth_options.read_graph(options)
    points, speeds = read_path(options.path, options.svg_scale)  # kept as lists: the options are written into the report
    options.points, options.speeds = points.tolist(), None if speeds is None else speeds.tolist()
    if options.speeds is not None and options.speed is not None:
        raise UsageError(f"{options.path} gives a speed per point and --speed one for the whole path: give one of them")
    for word in options.clips:
        if not word.strip():
            raise UsageError(f"--clips {word!r} names no clip: give clip names or words in them (walk run)")
    try:
        follow.allowed_clips(graph, options.clips)
    except GraphError as error:
        raise UsageError(f"{graph_path}: {error}") from None
    options.graph, options.inputs = graph_path, paths


plan = synth_options.plan  # one task over the graph's clips, as synth's


def paths(options):
    """The files this command writes or reads besides its inputs and outputs, by role: kept apart from the report's."""
    return [("the graph it reads", options.graph), ("the path it follows", options.path)]
