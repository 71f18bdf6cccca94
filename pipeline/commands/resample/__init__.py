"""``resample``: put clips on another frame rate: every original frame the new grid meets is kept exactly."""

from ..edit import EditCommand
from . import options

COMMAND = EditCommand("resample", "put clips on another frame rate: every original frame the new grid meets is kept exactly", "resampled", options.add_arguments,
                      ("loopsmith resample clips/ --fps 60 -o out                       # every original frame the new grid meets is kept",))
