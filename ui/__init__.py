"""Loopsmith's panels and menus: layout only. Each module registers its own ``classes``."""

from . import menus, panels

#: In registration order (the extension registers them one after another, and unregisters in reverse).
MODULES = (panels, menus)
