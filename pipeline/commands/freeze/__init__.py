"""``freeze``: hold bones still (their rotation, optionally location) at a frame's pose or the rest pose."""

from ..edit import EditCommand
from . import options

COMMAND = EditCommand("freeze", "hold bones still (their rotation, optionally location) at a frame's pose or the rest pose", "frozen", options.add_arguments,
                      ("loopsmith freeze walk.bvh --bone UpperArm_L --bone UpperArm_R --frame 40 --range 30 90 -o out",), check=options.check)
