"""transition's options (no Blender) and the plan of its one task.

``python -m loopsmith transition FROM TO -o OUT`` writes ``OUT/<from>_to_<to>.<format>``:
FROM's motion up to the transition, the blend, then TO's, aligned to continue it.
"""

from ....core.motion import features
from ....core.transition import make
from ...options import allowed_range, blend_seconds, frame_numbers, FRAME_RANGE, UsageError


EPILOG = """\
methods (--method):
  AUTO         try both on the best candidate points and blend lengths, keep the least visible (the default)
  INERTIALIZE  switch to TO at once and decay the pose and velocity difference away (what engines ship)
  CROSSFADE    per-joint slerp from FROM into TO, time-warped so the two clips' steps line up"""


def add_arguments(parser):
    parser.add_argument("--method", choices=make.METHODS, default="AUTO", help="how FROM is blended into TO (see methods below)")
    parser.add_argument("--length", type=blend_seconds, metavar="SECONDS", help="blend length in seconds (default: chosen for the pair)")
    parser.add_argument("--at", nargs="+", default=["auto"], metavar="auto | I J",
                        help="the transition frames: 'auto' finds the best pair near FROM's end and TO's start, "
                             f"or FROM's frame I and TO's frame J, as the files number them when imported (a BVH from 1; range: {allowed_range(*FRAME_RANGE)}) "
                             "(default: auto)")
    parser.add_argument("--joints", default="all", help=f"joints the match compares: {', '.join(features.JOINT_SETS)}")
    parser.add_argument("--no-align", dest="align", action="store_false", help="keep TO where it is instead of continuing FROM's heading and floor position")
    parser.add_argument("--no-timewarp", dest="timewarp", action="store_false", help="CROSSFADE: blend frame by frame, without lining up the steps")


def check(options):
    """Exactly two files; ``--at`` 'auto' or two frame numbers (turned into the core's form). UsageError names the option."""
    if len(options.inputs) != 2 or any(path.is_dir() for path in options.inputs):
        raise UsageError(f"transition takes two files, FROM and TO (got {len(options.inputs)} "
                         f"{'inputs' if len(options.inputs) != 1 else 'input'}{', a folder among them' if any(p.is_dir() for p in options.inputs) else ''})")
    if options.at == ["auto"]:
        options.at = "auto"
    else:
        if len(options.at) != 2:
            raise UsageError(f"--at takes 'auto' or two frame numbers I J, not {' '.join(options.at)}")
        options.at = frame_numbers("--at", options.at)
    if options.joints not in features.JOINT_SETS:
        raise UsageError(f"--joints must be one of {', '.join(features.JOINT_SETS)}, not '{options.joints}'")
    if not options.timewarp and options.method == "INERTIALIZE":
        raise UsageError("--no-timewarp applies to --method CROSSFADE or AUTO, not INERTIALIZE (which switches at one pair of frames)")
    if options.joints != "all" and options.at != "auto":
        raise UsageError("--joints chooses what the automatic match compares; with --at I J nothing is matched")


def plan(files, options):
    """One task: the pair as given (even the same file twice: a clip into itself), named ``<from>_to_<to>``."""
    source, target = options.inputs
    return [(source, target)], [f"{source.stem}_to_{target.stem}"]
