"""``splice``: one clip's upper body on another's lower body, the two lower bodies lined up in time."""

from ..edit import EditCommand
from . import options

COMMAND = EditCommand("splice", "one clip's upper body on another's lower body, the two lower bodies lined up in time", "spliced", options.add_arguments,
                      ("loopsmith splice --lower walk.bvh --upper wave.bvh -o out        # writes out/walk_wave_splice.bvh",
                "loopsmith splice walk.bvh wave.bvh -o out                         # the same: LOWER UPPER"), check=options.check, pair=True, inputs_metavar="LOWER UPPER",
                      inputs_help="two motion files (BVH, FBX, glTF/GLB or .blend): the one whose root and legs are kept, then the one "
                                  "whose upper body is carried over")
