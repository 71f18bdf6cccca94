"""``graph CLIPS``: where a library's clips can blend into each other, as a motion graph file (JSON)."""

from ...contract import Command
from . import options, report


class Graph(Command):
    name = "graph"
    help = "build a motion graph over a library: where its clips can blend into each other"
    done, kind = "built", "graph"
    inputs_metavar = "CLIPS"
    examples = ("loopsmith graph clips/ -o out/graph.json                        # then: loopsmith synth out/graph.json ...",)
    exit_codes = "exit codes: 0 the graph was written, 1 it failed (named on stderr), 2 usage error, 130 interrupted"
    fans_out = True  # with --scheduler its task sends the distance map's blocks to the cluster too (see ..cluster.run_task)
    writes_motion = False  # a JSON graph: no --format, no engine or root options
    out_help = "the graph file's path ending in .json, or the folder it goes into as graph.json"

    options_module, report_module = options, report

    def paths(self, given):
        return [("the graph (-o)", given.graph)]

    def job(self):
        from . import job  # imports bpy only for a file that needs a Blender scene

        return job


COMMAND = Graph()
