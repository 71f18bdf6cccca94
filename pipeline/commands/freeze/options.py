"""freeze's options (no Blender)."""

from ....core.edit import freeze
from ...options import frame, MAX_BLEND_SECONDS, number, UsageError


def add_arguments(parser):
    parser.add_argument("--bone", action="append", required=True, metavar="NAME", help="a bone to hold still (repeat for more bones)")
    held = parser.add_mutually_exclusive_group()
    held.add_argument("--frame", type=frame, help="hold this frame's pose, numbered as the file is imported (a BVH from 1) "
                                                                       "(default: the range's first frame)")
    held.add_argument("--rest", action="store_true", help="hold the rest pose instead")
    parser.add_argument("--range", nargs=2, type=frame, metavar=("FIRST", "LAST"),
                        help="freeze only these frames (inclusive), easing in and out around them (default: the whole clip)")
    parser.add_argument("--blend", type=number(0.0, MAX_BLEND_SECONDS), metavar="SECONDS",
                        help=f"with --range: seconds of easing in before and out after it (default: {freeze.BLEND:g})")
    parser.add_argument("--location", action="store_true", help="hold the bones' location too, not only their rotation")


def check(options):
    if options.range and options.range[1] < options.range[0]:
        raise UsageError(f"--range {options.range[0]} {options.range[1]}: LAST must not be before FIRST")
    if not options.range and options.blend is not None:
        raise UsageError("--blend eases around a --range; without one the whole clip is frozen")
    options.blend = freeze.BLEND if options.blend is None else options.blend
