"""``python -m loopsmith``: the batch command line (see :mod:`.pipeline.cli`)."""

import os
import pathlib
import shutil
import sys

from .files import interrupts

interrupts.install()  # Ctrl-C from the first moment is a clean stop
try:
    with interrupts.deferred():  # a signal inside numpy's C initialisation would break its import
        from .pipeline.cli import main
    status = main()
except interrupts.Interrupted:
    status = interrupts.EXIT_CODE
bpy = sys.modules.get("bpy")
if bpy is not None and pathlib.Path(bpy.app.tempdir).name.startswith("blender_"):
    shutil.rmtree(bpy.app.tempdir, ignore_errors=True)  # Blender's session folder: os._exit skips Blender's own clean-up
sys.stdout.flush()
sys.stderr.flush()
os._exit(status)  # bpy 4.2/4.5 may crash or hang at interpreter exit
