"""make-loop's options (no Blender): where the loop is, how its seam is closed, what the root does; the plan of its tasks."""

import argparse

from ....core.loop import make as loop, stitch
from ....files import inputs
from ... import options as types

OUTPUT_TAG = "_loop"  # outputs are <input stem>_loop.<format>

METHODS_HELP = "methods (--method):\n" + "\n".join(f"  {name:19s} {text}" for name, (_, text) in stitch.CHOICE_INFO.items())

_PARAMETER_HELP = {
    "method": "how the seam is closed (see methods below); AUTO makes the loop with several and keeps the least visible",
    "side": "SPRING and CUBIC: which end takes the correction",
    "ratio": "share of the correction made at the start (0-1) when --side is BOTH",
    "halflife_start": "SPRING: half-life at the start, seconds",
    "halflife_end": "SPRING: half-life at the end, seconds",
    "blend_start": "blend time at the start, seconds",
    "blend_end": "blend time at the end, seconds",
    "softfade_start": "SOFTFADE: fade duration at the start, seconds",
    "softfade_end": "SOFTFADE: fade duration at the end, seconds",
    "hardness_start": "SOFTFADE: ramp hardness at the start",
    "hardness_end": "SOFTFADE: ramp hardness at the end",
    "crossfade": "CROSSFADE: time blended before the seam, seconds",
    "crossfade_preroll": "CROSSFADE: blend towards the frames before the loop start, when the clip has them",
}


#: The stitching parameters each method reads (see core/loop/stitch.py: its shapes, springs and crossfade; side only through
#: SPRING's and CUBIC's effective ratio; ratio also splits a travelling root's correction, so CROSSFADE reads it too).
METHOD_PARAMETERS = {
    "CUBIC": ("side", "ratio", "blend_start", "blend_end"),
    "LINEAR_INERTIALIZE": ("ratio", "blend_start", "blend_end"),
    "SOFTFADE": ("ratio", "blend_start", "blend_end", "softfade_start", "softfade_end", "hardness_start", "hardness_end"),
    "SPRING": ("side", "ratio", "halflife_start", "halflife_end"),
    "LINEAR": ("ratio",),
    "CROSSFADE": ("ratio", "crossfade", "crossfade_preroll"),
    "NONE": (),
}
#: --root-mode as typed: IN_PLACE is now --root-motion IN_PLACE (still taken, with a warning).
ROOT_MODES = ("AUTO", "TRAVEL", "LOOP")
ROOT_BLEND = 0.5  # seconds: the core's default

MAX_CYCLES = 100  # periods in one loop: more is a typing slip, not a loop
MAX_LOOP_SECONDS = 600.0  # the longest loop Find Loop searches for

# Find Loop's options: (flag, type, default, help); defaults filled in by check() once --range and --whole are ruled out.
_AUTO_OPTIONS = (
    ("--cycles", types.number(0, MAX_CYCLES, integer=True), 0, "loop this many periods (0: the best)"),
    ("--min-length", types.number(0.0, MAX_LOOP_SECONDS, low_open=True), 0.4, "shortest loop, seconds"),
    ("--max-length", types.number(0.0, MAX_LOOP_SECONDS, low_open=True), 4.0, "longest loop, seconds"),
)
# SPRING's half-lives and SOFTFADE's hardness, well inside what the spring and the ramp compute in finite numbers (a hardness of 1e308 gives NaN).
_HALFLIFE = types.number(0.001, types.MAX_BLEND_SECONDS)
_HARDNESS = types.number(0.01, 1000.0)


def stitch_fields():
    """The names of Make Loop's stitching parameters (one option each)."""
    return tuple(stitch.StitchParameters.__dataclass_fields__)


def _parameter_type(name):
    if name.startswith("hardness"):
        return _HARDNESS
    if name.startswith("halflife"):
        return _HALFLIFE
    return types.fraction if name == "ratio" else types.blend_seconds


def _flag(name):
    return "--" + name.replace("_", "-")


def _metavar(name):
    if name.startswith("hardness"):
        return "HARDNESS"
    return "FRACTION" if name == "ratio" else "SECONDS"


class _RootModeInPlace(argparse.Action):
    """``--root-mode``, whose old IN_PLACE is now ``--root-motion IN_PLACE`` (one warning line; it means the same)."""

    def __call__(self, parser, namespace, value, option_string=None):
        if value == "IN_PLACE":
            types.warn_renamed(parser, "--root-mode IN_PLACE", "--root-motion IN_PLACE")
            if getattr(namespace, "root_motion", None) not in (None, "IN_PLACE"):
                parser.error(f"--root-mode IN_PLACE (now --root-motion IN_PLACE) does not go with --root-motion {namespace.root_motion}")
            namespace.root_motion = "IN_PLACE"
        setattr(namespace, self.dest, value)


def add_arguments(parser):
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--auto", action="store_true", help="find the best loop first (the default)")
    where.add_argument("--range", nargs=2, type=types.frame, metavar=("FIRST", "LAST"),
                       help="loop these frames (inclusive), numbered as the file is imported (a BVH from 1)")
    where.add_argument("--whole", action="store_true", help="loop the action's whole range")
    defaults = stitch.StitchParameters()
    for name in stitch_fields():  # None until check(): a parameter the --method does not read is refused when given
        default, text = getattr(defaults, name), _PARAMETER_HELP[name]
        if name == "method":
            parser.add_argument("--method", choices=stitch.CHOICES, default=default, help=text)
        elif isinstance(default, bool):
            parser.add_argument(_flag(name), action=argparse.BooleanOptionalAction, help=f"{text} (default: {'yes' if default else 'no'})")
        elif isinstance(default, str):
            parser.add_argument(_flag(name), choices=stitch.SIDES, help=f"{text} (default: {default})")
        else:
            parser.add_argument(_flag(name), type=_parameter_type(name), metavar=_metavar(name), help=f"{text} (default: {default:g})")
    parser.add_argument("--root-mode", choices=(*ROOT_MODES, "IN_PLACE"), metavar="{" + ",".join(ROOT_MODES) + "}", default="AUTO",
                        action=_RootModeInPlace,
                        help="AUTO: TRAVEL for clips that move; TRAVEL keeps the displacement; LOOP loops the root like any bone "
                             "(for a loop in place: --root-motion IN_PLACE)")
    parser.add_argument("--root-bone", default="", metavar="NAME", help="the bone that carries the travel (default: found)")
    parser.add_argument("--root-blend", type=types.blend_seconds, metavar="SECONDS",
                        help=f"blend time of a travelling root's velocity correction, seconds (default: {ROOT_BLEND:g})")
    parser.add_argument("--loop-mode", choices=loop.LOOP_MODES, default="CLAMP",
                        help="CLAMP: the last frame repeats the first; WRAP: drop it, for engines that wrap last to first")
    parser.add_argument("--no-lock-feet", dest="lock_feet", action="store_const", const=False,
                        help="do not re-solve the legs to keep planted feet still")
    parser.add_argument("--ground", action="store_true",
                        help="move the character up or down so its feet stand on the floor (a take that keeps its pelvis at the origin)")
    for flag, kind, default, text in _AUTO_OPTIONS:
        parser.add_argument(flag, type=kind, metavar="N" if flag == "--cycles" else "SECONDS", help=f"with --auto: {text} (default: {default:g})")


def plan(files, options):
    """One task per file, each with its output stem (distinct wherever two inputs' outputs would clash)."""
    stems = inputs.output_stems(files, lambda path: inputs.output_suffixes(path, options.format))
    return [(path,) for path in files], [stems[str(path)] for path in files]


def check(options):
    """Options that do not fit together; raises :class:`~.options.UsageError` naming them. Fills Find Loop's defaults."""
    given = [flag for flag, *_ in _AUTO_OPTIONS if getattr(options, flag[2:].replace("-", "_")) is not None]
    if given and (options.range or options.whole):
        raise types.UsageError(f"{', '.join(given)} only apply with --auto, not with {'--range' if options.range else '--whole'}")
    for flag, _, default, _ in _AUTO_OPTIONS:
        name = flag[2:].replace("-", "_")
        if getattr(options, name) is None:
            setattr(options, name, default)
    if options.min_length > options.max_length:
        raise types.UsageError(f"--min-length {options.min_length:g} s is above --max-length {options.max_length:g} s")
    if options.range and options.range[1] <= options.range[0]:
        raise types.UsageError(f"--range {options.range[0]} {options.range[1]}: LAST must be after FIRST")
    _check_method_options(options)
    _check_root_options(options)


def _check_method_options(options):
    """Refuse a stitching parameter the --method does not read (with AUTO, one that only one method reads: AUTO makes each
    method with its defaults) and --ratio where --side gives the whole correction to one end; fill the defaults."""
    given = [name for name in stitch_fields() if name != "method" and getattr(options, name) is not None]
    if options.method == "AUTO":
        single = [name for name in given if name in stitch.SINGLE_METHOD_PARAMETERS]
        if single:
            flags = ", ".join(f"{_flag(name)} ({stitch.SINGLE_METHOD_PARAMETERS[name]})" for name in single)
            raise types.UsageError(f"{flags} only {'applies' if len(single) == 1 else 'apply'} with that --method: --method AUTO "
                                   "makes each method with its defaults")
    else:
        ignored = [name for name in given if name not in METHOD_PARAMETERS[options.method]]
        if ignored:
            raise types.UsageError(f"{_flag(ignored[0])} applies to --method {_methods_reading(ignored[0])}, not {options.method}")
    if options.ratio is not None and options.side in ("START", "END") and options.method in ("CUBIC", "SPRING"):
        raise types.UsageError(f"--ratio applies with --side BOTH, not {options.side} (which takes the whole correction at that end)")
    defaults = stitch.StitchParameters()
    for name in stitch_fields():
        if getattr(options, name) is None:
            setattr(options, name, getattr(defaults, name))


def _methods_reading(name):
    """The methods that read a stitching parameter, as a person lists them: 'SOFTFADE', 'CUBIC, LINEAR_INERTIALIZE or SOFTFADE'."""
    methods = [method for method, read in METHOD_PARAMETERS.items() if name in read]
    return methods[0] if len(methods) == 1 else f"{', '.join(methods[:-1])} or {methods[-1]}"


def _check_root_options(options):
    """--root-motion IN_PLACE makes the loop in place (the core's root mode IN_PLACE); --root-blend only where a root
    travels, --no-lock-feet only where the seam is closed. Fills their defaults."""
    if options.root_mode == "IN_PLACE" and options.root_motion != "IN_PLACE":  # the old spelling, then another --root-motion
        raise types.UsageError(f"--root-mode IN_PLACE (now --root-motion IN_PLACE) does not go with --root-motion {options.root_motion}")
    if options.root_motion == "IN_PLACE":
        if options.root_mode not in ("AUTO", "IN_PLACE"):
            raise types.UsageError(f"--root-mode {options.root_mode} does not apply with --root-motion IN_PLACE, which makes the loop in place")
        options.root_mode = "IN_PLACE"
    if options.root_blend is not None:
        if options.root_mode in ("LOOP", "IN_PLACE"):
            mode = "--root-mode LOOP" if options.root_mode == "LOOP" else "--root-motion IN_PLACE"
            raise types.UsageError(f"--root-blend applies to a travelling root (--root-mode TRAVEL or AUTO), not with {mode}")
        if options.method == "NONE":
            raise types.UsageError("--root-blend applies to a seam that is closed, not --method NONE (which only cuts the range)")
    if options.lock_feet is False and options.method == "NONE":
        raise types.UsageError("--no-lock-feet applies to a seam that is closed, not --method NONE (which only cuts the range)")
    options.root_blend = ROOT_BLEND if options.root_blend is None else options.root_blend
    options.lock_feet = options.lock_feet is not False
