# SPDX-License-Identifier: GPL-3.0-or-later
"""Loopsmith: seamless loops and clean transitions from motion capture.

Modules register in order and unregister in reverse; each owns its classes.
The command line (``python -m loopsmith``, :mod:`.pipeline`) lives here too.
"""

_cli_command = None


def _modules():
    # Imported here, not at the top: `python -m loopsmith --jobs N` only splits
    # files over workers and should not pay for loading Blender first.
    from . import operators, presets, properties, ui

    return (properties, *operators.MODULES, *ui.MODULES, presets)


def register():
    global _cli_command
    import bpy

    from .pipeline import cli

    for module in _modules():
        module.register()
    # blender -c loopsmith make-loop ... (the same job as python -m loopsmith)
    _cli_command = bpy.utils.register_cli_command("loopsmith", cli.blender_command)


def unregister():
    global _cli_command
    import bpy

    if _cli_command is not None:
        bpy.utils.unregister_cli_command(_cli_command)
        _cli_command = None
    for module in reversed(_modules()):
        module.unregister()
