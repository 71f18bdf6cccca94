"""resample's options (no Blender)."""

from ...options import number
from ..edit.options import interpolation_argument


def add_arguments(parser):
    parser.add_argument("--fps", type=number(1.0, 1000.0), required=True, help="the new frame rate, frames per second (29.97 works)")
    interpolation_argument(parser)
