"""``python -m loopsmith``: the batch command line (see :mod:`.cli`)."""

import os
import sys

from .cli import main

status = main()
sys.stdout.flush()
sys.stderr.flush()
os._exit(status)  # bpy 4.2/4.5 may crash or hang at interpreter exit
