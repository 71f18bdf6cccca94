"""Loopsmith's panels and menus: layout only."""

_modules = ()


def register():
    for module in _modules:
        module.register()


def unregister():
    for module in reversed(_modules):
        module.unregister()
