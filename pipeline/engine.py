"""The options every command shares for game engines: ``--engine`` and ``--root-motion`` (plain Python, no Blender).

``--engine unreal|unity|godot|gltf`` picks the output format and what the
engine needs (:mod:`..core.engine.profiles`) and moves the travel onto a root
bone unless ``--root-motion`` says otherwise; :mod:`.engine_output` applies
both in each job before the files are written.
"""

from ..core.engine import profiles, root_bone
from ..core.errors import ClipError
from .options import MAX_BLEND_SECONDS, number, UsageError

#: HEADING and POSITION as the core's modes; IN_PLACE removes the travel; NONE leaves the skeleton as it is.
ROOT_MOTION = (*root_bone.MODES, "IN_PLACE", "NONE")
SMOOTHING = 0.25  # seconds

PROFILES_HELP = "engines (--engine):\n" + "\n".join(
    f"  {name:8s} {profile.suffix[1:].upper()}: {profile.shows}" for name, profile in profiles.PROFILES.items())


def add_arguments(parser):
    group = parser.add_argument_group("game engines")
    group.add_argument("--engine", choices=tuple(profiles.PROFILES),
                       help="write for this engine: its format (unless --format), units, root bone and animation names (see engines below)")
    group.add_argument("--root-motion", choices=ROOT_MOTION,
                       help="move the travel onto a root bone on the floor under the character: HEADING (position and heading), "
                            "POSITION (position only), IN_PLACE (the travel removed, for engines that bake it into the pose; "
                            "make-loop then makes the loop in place) (default: HEADING with --engine, else NONE)")
    group.add_argument("--root-height", choices=root_bone.HEIGHTS,
                       help="PELVIS keeps the height on the pelvis, the root on the floor; ROOT lets the root rise and fall with it (stairs) "
                            "(default: PELVIS)")
    group.add_argument("--root-name", metavar="NAME", help="the name of a root bone Loopsmith adds; with --engine the rig's own floor bone is renamed "
                                           "to it too (default: the engine's, 'root')")
    group.add_argument("--root-smoothing", type=number(0.0, MAX_BLEND_SECONDS), metavar="SECONDS",
                       help=f"seconds over which the root's path and heading are smoothed (default: {SMOOTHING:g})")


def epilog(text):
    """A command's epilog followed by the engine profiles."""
    return "\n\n".join(filter(None, [text, PROFILES_HELP]))


def check(options):
    """Fill the defaults an ``--engine`` decides (the format, root motion, the root's name); UsageError for root options that
    would be ignored (root motion NONE) or a root name a bone cannot take."""
    profile = profiles.PROFILES.get(options.engine)
    if options.format is None:
        options.format = [profile.suffix[1:]] if profile else ["same"]
    if options.root_motion is None:
        options.root_motion = "HEADING" if profile else "NONE"
    given = [flag for flag, value in (("--root-height", options.root_height), ("--root-name", options.root_name),
                                       ("--root-smoothing", options.root_smoothing)) if value is not None]
    if options.root_motion == "NONE" and given and not (profile and given == ["--root-name"]):
        raise UsageError(f"{', '.join(given)} only apply with --root-motion (or --engine), which would move the travel onto a root bone")
    if options.root_name is None:
        options.root_name = profile.root_name if profile else "root"
    try:
        root_bone.check_root_name(options.root_name)
    except ClipError as error:
        raise UsageError(f"--root-name: {error}") from None
    options.root_height = options.root_height or "PELVIS"
    options.root_smoothing = SMOOTHING if options.root_smoothing is None else options.root_smoothing
