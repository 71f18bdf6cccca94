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


def add_arguments(parser):
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--auto", action="store_true", help="find the best loop first (the default)")
    where.add_argument("--range", nargs=2, type=types.frame, metavar=("START", "END"), help="loop these frames")
    where.add_argument("--whole", action="store_true", help="loop the action's whole range")
    defaults = stitch.StitchParameters()
    for name in stitch_fields():
        flag, default, text = "--" + name.replace("_", "-"), getattr(defaults, name), _PARAMETER_HELP[name]
        if name in stitch.SINGLE_METHOD_PARAMETERS:  # None until check(): AUTO refuses them when given
            text, default = f"{text} (default: {default})", None
        if isinstance(defaults.__dataclass_fields__[name].default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=text)
        elif isinstance(default, str):
            parser.add_argument(flag, choices=stitch.CHOICES if name == "method" else stitch.SIDES, default=default, help=text)
        else:
            parser.add_argument(flag, type=_parameter_type(name), default=default, help=text)
    parser.add_argument("--root-mode", choices=("AUTO", "TRAVEL", "LOOP", "IN_PLACE"), default="AUTO",
                        help="AUTO: TRAVEL for clips that move; TRAVEL keeps the displacement; LOOP loops the root like any bone; "
                             "IN_PLACE removes the steady travel first")
    parser.add_argument("--root-bone", default="", help="the bone that carries the travel (default: found)")
    parser.add_argument("--root-blend", type=types.blend_seconds, default=0.5, help="blend time of the root's velocity correction, seconds")
    parser.add_argument("--loop-mode", choices=loop.LOOP_MODES, default="CLAMP",
                        help="CLAMP: the last frame repeats the first; WRAP: drop it, for engines that wrap last to first")
    parser.add_argument("--no-lock-feet", dest="lock_feet", action="store_false", help="do not re-solve the legs to keep planted feet still")
    for flag, kind, default, text in _AUTO_OPTIONS:
        parser.add_argument(flag, type=kind, help=f"with --auto: {text} (default: {default:g})")


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
        raise types.UsageError(f"--min-length {options.min_length:g} is above --max-length {options.max_length:g}")
    if options.range and options.range[1] <= options.range[0]:
        raise types.UsageError(f"--range {options.range[0]} {options.range[1]}: END must be after START")
    _check_method_options(options)


def _check_method_options(options):
    """Refuse a parameter of one method with --method AUTO (which makes each method with its defaults); fill their defaults."""
    given = [name for name in stitch.SINGLE_METHOD_PARAMETERS if getattr(options, name) is not None]
    if options.method == "AUTO" and given:
        flags = ", ".join(f"--{name.replace('_', '-')} ({stitch.SINGLE_METHOD_PARAMETERS[name]})" for name in given)
        raise types.UsageError(f"{flags} only {'applies' if len(given) == 1 else 'apply'} with that --method: --method AUTO "
                               "makes each method with its defaults")
    defaults = stitch.StitchParameters()
    for name in stitch.SINGLE_METHOD_PARAMETERS:
        if getattr(options, name) is None:
            setattr(options, name, getattr(defaults, name))
