"""What the editing commands' options share (no Blender): the interpolation between frames and the pair commands' two
files."""

from ....core.motion import sampling
from ...options import UsageError

def interpolation_argument(parser):
    parser.add_argument("--interpolation", choices=sampling.INTERPOLATIONS, default="CUBIC",
                        help="between frames: CUBIC (smooth speeds) or LINEAR (lerp and slerp)")


def check_pair(name, options):
    """UsageError unless the pair commands' inputs are two files."""
    folders = [path for path in options.inputs if path.is_dir()]
    if len(options.inputs) != 2 or folders:
        raise UsageError(f"{name} takes two files (got {len(options.inputs)}{', a folder among them' if folders else ''})")
