"""Shipped operator presets (walk/run cycle, idle, short loop).

Blender lists an operator's presets from the user's preset folder; an
extension must not write inside its own folder, so the shipped presets are
copied there on register when missing (a user's edited copy is left alone).
"""

import pathlib
import shutil

import bpy

SHIPPED = pathlib.Path(__file__).parent / "presets"
# Shipped folder -> Blender's preset sub-folder of the operator it is for.
PRESET_FOLDERS = {"make_loop": "operator/loopsmith.make_loop"}


def install():
    """Copy the shipped presets the user does not have yet; returns the files copied."""
    copied = []
    for shipped, subfolder in PRESET_FOLDERS.items():
        target = pathlib.Path(bpy.utils.user_resource("SCRIPTS", path=f"presets/{subfolder}", create=True))
        for preset in sorted((SHIPPED / shipped).glob("*.py")):
            destination = target / preset.name
            if not destination.exists():
                shutil.copyfile(preset, destination)
                copied.append(destination)
    return copied


def register():
    install()


def unregister():
    pass  # presets are the user's files now
