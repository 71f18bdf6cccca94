"""``retime``: play clips faster or slower, or stretch them to a duration: the root travels as far, feet stay planted."""

from ..edit import EditCommand
from . import options

COMMAND = EditCommand("retime", "play clips faster or slower, or stretch them to a duration: the root travels as far, feet stay planted", "retimed", options.add_arguments,
                      ("loopsmith retime walk.bvh --speed 0.5 -o out                    # or --duration 4.0",))
