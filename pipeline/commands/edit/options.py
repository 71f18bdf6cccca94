"""The motion-editing commands: their options (this module, no Blender); one job runs them all (:mod:`.edit_job`).

``resample``, ``retime``, ``freeze`` and ``mirror`` edit each file they are
given (files or folders, as ``make-loop``) into ``OUT/<name>_<edit>.<format>``;
``splice`` and ``blend`` make one clip of two files, ``OUT/<a>_<b>_<edit>.<format>``.
"""

import pathlib

from ..core.edit import freeze
from ..core.motion import sampling
from ..files import inputs
from . import options as types

EXIT_CODES = "exit codes: 0 every file was edited, 1 some failed (each named on stderr), 2 usage error, 130 interrupted"
TIMINGS = {"splice": ("AUTO", "WARP", "NONE"), "blend": ("CONTACTS", "FRACTION", "WARP")}
SHORTER = ("CLAMP", "LOOP")
MAX_DURATION = 86400.0  # seconds (a day): retime's longest result


class EditCommand:
    """One editing command as :mod:`.runner` plugs it in (the API of a command module).

    name: the command and the edit, also the outputs' tag; pair: whether it
    takes two files (one task) instead of each file on its own.
    """

    JOB = "edit_job"

    def __init__(self, name, help, done, arguments, check=None, pair=False, epilog=""):
        self.NAME, self.HELP, self.DONE = name, help, done
        self.INPUTS = "*" if pair else "+"  # a pair may also come as options (--lower/--upper)
        self._arguments, self._check, self.pair, self.epilog = arguments, check, pair, epilog

    def add_arguments(self, parser):
        parser.set_defaults(edit=self.NAME)
        self._arguments(parser)
        parser.epilog = "\n\n".join(filter(None, [self.epilog, EXIT_CODES]))

    def check(self, options):
        """UsageError for options that do not fit together (naming them)."""
        if self._check:
            self._check(options)
        if self.pair:
            folders = [path for path in options.inputs if path.is_dir()]
            if len(options.inputs) != 2 or folders:
                raise types.UsageError(f"{self.NAME} takes two files (got {len(options.inputs)}{', a folder among them' if folders else ''})")

    def plan(self, files, options):
        """One task per file (``<stem>_<edit>``), or one for the pair (``<a>_<b>_<edit>``)."""
        if self.pair:
            first, second = options.inputs
            return [(first, second)], [f"{first.stem}_{second.stem}_{self.NAME}"]
        stems = inputs.output_stems(files, lambda path: inputs.output_suffixes(path, options.format))
        return [(path,) for path in files], [f"{stems[str(path)]}_{self.NAME}" for path in files]


def _interpolation_argument(parser):
    parser.add_argument("--interpolation", choices=sampling.INTERPOLATIONS, default="CUBIC",
                        help="between frames: CUBIC (smooth speeds) or LINEAR (lerp and slerp)")


def _resample_arguments(parser):
    parser.add_argument("--fps", type=types.number(1.0, 1000.0), required=True, help="the new frame rate, frames per second (29.97 works)")
    _interpolation_argument(parser)


def _retime_arguments(parser):
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--speed", type=types.number(0.01, 100.0), help="play this many times as fast (0.5: half speed, twice as long)")
    how.add_argument("--duration", type=types.number(0.0, MAX_DURATION, low_open=True),
                     help="stretch or squeeze the clip to last this many seconds")
    _interpolation_argument(parser)


def _freeze_arguments(parser):
    parser.add_argument("--bone", action="append", required=True, metavar="NAME", help="a bone to hold still (repeat for more bones)")
    held = parser.add_mutually_exclusive_group()
    held.add_argument("--frame", type=types.frame, help="hold this frame's pose, numbered as the file is imported (a BVH from 1) "
                                                                       "(default: the range's first frame)")
    held.add_argument("--rest", action="store_true", help="hold the rest pose instead")
    parser.add_argument("--range", nargs=2, type=types.frame, metavar=("FIRST", "LAST"),
                        help="freeze only these frames (inclusive), easing in and out around them (default: the whole clip)")
    parser.add_argument("--blend", type=types.number(0.0, types.MAX_BLEND_SECONDS),
                        help=f"with --range: seconds of easing in before and out after it (default: {freeze.BLEND:g})")
    parser.add_argument("--location", action="store_true", help="hold the bones' location too, not only their rotation")


def _check_freeze(options):
    if options.range and options.range[1] < options.range[0]:
        raise types.UsageError(f"--range {options.range[0]} {options.range[1]}: LAST must not be before FIRST")
    if not options.range and options.blend is not None:
        raise types.UsageError("--blend eases around a --range; without one the whole clip is frozen")
    options.blend = freeze.BLEND if options.blend is None else options.blend


def _splice_arguments(parser):
    parser.add_argument("--lower", type=pathlib.Path, help="the file whose root and legs are kept")
    parser.add_argument("--upper", type=pathlib.Path, help="the file whose upper body is carried over")
    parser.add_argument("--upper-root", default="", help="the first bone of the upper body (default: found, the spine above the pelvis)")
    parser.add_argument("--timing", choices=TIMINGS["splice"], default="AUTO",
                        help="WARP lines up the two lower bodies' steps first; NONE plays the upper body at its own speed; "
                             "AUTO warps when both clips step")
    parser.add_argument("--shorter", choices=SHORTER, default="CLAMP", help="an upper body shorter than the lower: hold its last pose or play it again")


def _check_splice(options):
    given = [path for path in (options.lower, options.upper) if path is not None]
    if given and options.inputs:
        raise types.UsageError("give the files as --lower A --upper B, or as LOWER UPPER, not both")
    if given:
        if len(given) != 2:
            raise types.UsageError("splice needs both --lower and --upper")
        options.inputs = given


def _blend_arguments(parser):
    parser.add_argument("--weight", type=types.fraction, help="how much of B: 0 is A, 1 is B (default: 0.5)")
    parser.add_argument("--weight-curve", nargs="+", metavar="T:W",
                        help="B's weight changing over the result instead: W at fraction T (0-1) of it, linear between, e.g. 0:0 1:1")
    parser.add_argument("--timing", choices=TIMINGS["blend"], default="CONTACTS",
                        help="CONTACTS puts the same foot down at the same moment in both; FRACTION samples both at the same fraction "
                             "of their length; WARP follows the time warp of their lower bodies")
    parser.add_argument("--shorter", choices=SHORTER, default="CLAMP", help="when one clip has fewer steps: end with it, or play its steps again")


def _check_blend(options):
    if options.weight_curve is None:
        options.weight = 0.5 if options.weight is None else options.weight
        return
    if options.weight is not None:
        raise types.UsageError("--weight and --weight-curve both set B's weight: give one")
    rows = []
    for text in options.weight_curve:
        try:
            at, weight = (float(part) for part in text.split(":"))
        except ValueError:
            raise types.UsageError(f"--weight-curve takes T:W pairs such as 0:0 1:1, not '{text}'") from None
        if not (0.0 <= at <= 1.0 and 0.0 <= weight <= 1.0):
            raise types.UsageError(f"--weight-curve {text}: T and W must each be between 0 and 1")
        rows.append((at, weight))
    if any(b[0] <= a[0] for a, b in zip(rows, rows[1:])):
        raise types.UsageError("--weight-curve: the fractions T must increase")
    options.weight = rows


def _no_arguments(parser):
    pass


COMMANDS = (
    EditCommand("resample", "put clips on another frame rate: every original frame the new grid meets is kept exactly", "resampled",
                _resample_arguments),
    EditCommand("retime", "play clips faster or slower, or stretch them to a duration: the root travels as far, feet stay planted", "retimed",
                _retime_arguments),
    EditCommand("freeze", "hold bones still (their rotation, optionally location) at a frame's pose or the rest pose", "frozen",
                _freeze_arguments, _check_freeze),
    EditCommand("splice", "one clip's upper body on another's lower body, the two lower bodies lined up in time", "spliced",
                _splice_arguments, _check_splice, pair=True,
                epilog="usage: loopsmith splice --lower WALK.bvh --upper WAVE.bvh -o OUT (writes OUT/WALK_WAVE_splice.bvh)"),
    EditCommand("blend", "blend two clips, B's weight constant or changing, lined up in time so the same foot lands together", "blended",
                _blend_arguments, _check_blend, pair=True),
    EditCommand("mirror", "swap left and right (bone pairs found by name: .L/.R, _l/_r, Left/Right)", "mirrored", _no_arguments),
)
