"""``transition FROM TO``: FROM up to the best transition point, the blend, then TO aligned to continue it."""

from ...contract import Command
from . import options, report


class Transition(Command):
    name = "transition"
    help = "blend one clip into another: FROM up to the best transition point, then TO, aligned to continue it"
    done, kind = "made", "transition"
    inputs, inputs_metavar, inputs_help = "+", "FROM TO", "the clip played first and the clip it blends into"
    reads_folders = False  # two files, never folders
    examples = ("loopsmith transition walk.bvh run.bvh -o out                     # best point, method and length chosen",
                "loopsmith transition walk.bvh run.bvh --at 150 30 --method INERTIALIZE --length 0.4 -o out")
    epilog = options.EPILOG
    exit_codes = "exit codes: 0 the transition was made, 1 it failed (named on stderr), 2 usage error, 130 interrupted"

    options_module, report_module = options, report

    def job(self):
        from . import job  # imports bpy only for a file that needs a Blender scene

        return job


COMMAND = Transition()
