"""Loopsmith's operators: context -> arrays -> core -> write back -> report."""

_modules = ()


def register():
    for module in _modules:
        module.register()


def unregister():
    for module in reversed(_modules):
        module.unregister()
