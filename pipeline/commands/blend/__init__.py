"""``blend``: blend two clips, B's weight constant or changing, lined up in time so the same foot lands together."""

from ..edit import EditCommand
from . import options

COMMAND = EditCommand("blend", "blend two clips, B's weight constant or changing, lined up in time so the same foot lands together", "blended", options.add_arguments,
                      ("loopsmith blend walk.bvh happy_walk.bvh --weight 0.5 -o out",
                "loopsmith blend walk.bvh run.bvh --weight-curve 0:0 1:1 -o out   # walk into run over the clip"), check=options.check, pair=True,
                      inputs_help="two motion files (BVH, FBX, glTF/GLB or .blend): A, and B blended into it")
