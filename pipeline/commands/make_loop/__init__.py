"""``make-loop``: find the best loop range in every armature's action and close its seam, the root travelling on."""

from ...contract import Command
from . import options, report


class MakeLoop(Command):
    name = "make-loop"
    help = "loop every armature of the given files and folders"
    done, kind = "looped", "loop"
    examples = ("loopsmith make-loop walk.bvh -o looped                       # find the loop, make it, BVH out",
                "loopsmith make-loop clips/ --range 12 76 --method SOFTFADE --format blend glb -o looped",
                "loopsmith make-loop walks/ --cycles 2 --root-mode TRAVEL -o looped")
    epilog = options.METHODS_HELP
    exit_codes = "exit codes: 0 every armature looped, 1 some failed (each named on stderr), 2 usage error, 130 interrupted"

    options_module, report_module = options, report

    def job(self):
        from . import job  # imports bpy only for a file that needs a Blender scene

        return job


COMMAND = MakeLoop()
