"""splice's options (no Blender)."""

import pathlib

from ....core.edit.splice import SHORTER
from ...options import UsageError

TIMINGS = ("AUTO", "WARP", "NONE")


def add_arguments(parser):
    parser.add_argument("--lower", type=pathlib.Path, metavar="FILE", help="the file whose root and legs are kept (or give LOWER UPPER)")
    parser.add_argument("--upper", type=pathlib.Path, metavar="FILE", help="the file whose upper body is carried over")
    parser.add_argument("--upper-root", default="", metavar="NAME", help="the first bone of the upper body (default: found, the spine above the pelvis)")
    parser.add_argument("--timing", choices=TIMINGS, default="AUTO",
                        help="WARP lines up the two lower bodies' steps first; NONE plays the upper body at its own speed; "
                             "AUTO warps when both clips step")
    parser.add_argument("--shorter", choices=SHORTER, default="CLAMP", help="an upper body shorter than the lower: hold its last pose or play it again")


def check(options):
    given = [path for path in (options.lower, options.upper) if path is not None]
    if given and options.inputs:
        raise UsageError("give the files as --lower A --upper B, or as LOWER UPPER, not both")
    if given:
        if len(given) != 2:
            raise UsageError("splice needs both --lower and --upper")
        options.inputs = given
