"""``synth GRAPH``: new motion from a motion graph, a random walk or a path through named clips, rendered through the
transition engine."""

import importlib

from ...contract import Command
from . import options, report


class Synth(Command):
    name = "synth"
    help = "synthesize new motion from a motion graph: a random walk, or a path through named clips"
    done, kind = "made", "synthesis"
    inputs, inputs_metavar, inputs_help = 1, "GRAPH", "the motion graph (JSON) written by 'loopsmith graph'"
    reads_folders = False  # its clips are the graph's files, none scanned for
    examples = ("loopsmith synth out/graph.json --seconds 30 --seed 1 -o out      # writes out/synthesis.bvh",
                "loopsmith synth out/graph.json --seconds 20 --via walk run -o out")
    exit_codes = "exit codes: 0 the motion was made, 1 it failed (named on stderr), 2 usage error, 130 interrupted"

    options_module, report_module = options, report

    def paths(self, given):
        return self.options_module.paths(given)

    def job(self):
        return importlib.import_module(".job", type(self).__module__)  # bpy: this command's own job


COMMAND = Synth()
