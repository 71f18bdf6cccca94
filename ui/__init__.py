"""Loopsmith's panels and menus: layout only."""

from . import menus, panels

_modules = (panels, menus)


def register():
    for module in _modules:
        module.register()


def unregister():
    for module in reversed(_modules):
        module.unregister()
