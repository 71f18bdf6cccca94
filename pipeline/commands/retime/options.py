"""retime's options (no Blender)."""

from ...options import number
from ..edit.options import interpolation_argument

MAX_DURATION = 86400.0  # seconds (a day): retime's longest result


def add_arguments(parser):
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--speed", type=number(0.01, 100.0), metavar="FACTOR", help="play this many times as fast (0.5: half speed, twice as long)")
    how.add_argument("--duration", type=number(0.0, MAX_DURATION, low_open=True), metavar="SECONDS",
                     help="stretch or squeeze the clip to last this many seconds")
    interpolation_argument(parser)
