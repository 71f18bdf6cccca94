"""``follow GRAPH --path PATH.json``: a walk, run or mix from a motion graph whose root follows a path drawn on the ground,
feet planted. It reads a graph as ``synth`` does."""

from ..synth import Synth
from . import options, report


class Follow(Synth):
    name = "follow"
    help = "follow a path on the ground with a walk, run or mix from a motion graph, feet kept planted"
    done, kind = "made", "follow"
    examples = ('loopsmith follow out/graph.json --path path.json -o out      # writes out/follow.bvh; path.json: {"points": [[0, 0], [5, 0], [5, 5]]}',
                "loopsmith follow out/graph.json --path path.json --speed 1.2 --clips walk -o out")

    options_module, report_module = options, report


COMMAND = Follow()
