"""``mirror``: swap left and right (bone pairs found by name: .L/.R, _l/_r, Left/Right)."""

from ..edit import EditCommand
from . import options

COMMAND = EditCommand("mirror", "swap left and right (bone pairs found by name: .L/.R, _l/_r, Left/Right)", "mirrored", options.add_arguments,
                      ("loopsmith mirror walk.bvh -o out                                # left and right swapped",))
