# SPDX-License-Identifier: GPL-3.0-or-later
"""Loopsmith: seamless loops and clean transitions from motion capture.

Modules register in order and unregister in reverse; each owns its classes.
"""

import bpy

from . import cli, operators, presets, properties, ui

_modules = (properties, operators, ui, presets)
_cli_command = None


def register():
    global _cli_command
    for module in _modules:
        module.register()
    # blender -c loopsmith make-loop ... (the same job as python -m loopsmith)
    _cli_command = bpy.utils.register_cli_command("loopsmith", cli.blender_command)


def unregister():
    global _cli_command
    if _cli_command is not None:
        bpy.utils.unregister_cli_command(_cli_command)
        _cli_command = None
    for module in reversed(_modules):
        module.unregister()
