"""``compose A B C...``: one continuous performance, each clip continuing where the last ended, each junction a transition."""

from ...contract import Command
from . import options, report


class Compose(Command):
    name = "compose"
    help = "string clips into one continuous performance, each continuing where the last ended, optionally looping"
    done, kind = "composed", "composition"
    inputs_metavar, inputs_help = "CLIP", "the clips in the order they play (a file may come more than once)"
    reads_folders = False  # files in the order they play, never folders
    examples = ("loopsmith compose walk.bvh run.bvh walk.bvh -o out --loop     # writes out/composition.bvh",
                "loopsmith compose dance.bvh dance.bvh --clip-range 1 1 100 --clip-range 2 900 1300 -o out",
                "loopsmith compose walk.bvh run.bvh --junction 1 150 30 -o out    # blend walk frame 150 into run frame 30",
                "loopsmith compose 05_01.amc 05_02.amc --trim --face 2 90 -o out   # idle ends cut, the second take turned 90 degrees left")
    exit_codes = "exit codes: 0 the composition was made, 1 it failed (named on stderr), 2 usage error, 130 interrupted"

    options_module, report_module = options, report

    def job(self):
        from . import job  # bpy

        return job


COMMAND = Compose()
