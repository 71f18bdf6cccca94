"""Run Loopsmith's batch job inside Blender: ``blender -b --python tools/blender_batch.py -- make-loop ARGS``.

Uses the Loopsmith extension enabled in that Blender; with the bpy module
(``python tools/blender_batch.py -- ...``) it falls back to the checkout.
Exits with the job's code (0 all looped, 1 some failed, 2 usage error).
"""

import importlib
import os
import sys


def _cli():
    import bpy

    for name in bpy.context.preferences.addons.keys():
        if name == "loopsmith" or name.endswith(".loopsmith"):
            return importlib.import_module(name + ".pipeline.cli")
    return importlib.import_module("loopsmith.pipeline.cli")


if __name__ == "__main__":
    arguments = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    status = _cli().main(arguments)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
