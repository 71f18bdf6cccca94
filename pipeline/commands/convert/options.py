"""convert's options (no Blender): none of its own; the formats it writes must be asked for."""

from ...options import UsageError


def check(options):
    """UsageError without ``--format`` or ``--engine`` (nothing to convert to), or with a root motion that removes the travel."""
    if options.format is None and options.engine is None:
        raise UsageError("convert needs --format (bvh, fbx, glb, blend or amc; several at once) or --engine")
    if options.root_motion == "IN_PLACE":
        raise UsageError("--root-motion IN_PLACE removes the travel, and convert keeps the motion as it is (HEADING or POSITION "
                         "move it onto a root bone)")
