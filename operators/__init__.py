"""Loopsmith's operators: context -> arrays -> core -> write back -> report."""

from . import edit, engine, find_loop, make_loop, make_transition

_modules = (find_loop, make_loop, make_transition, edit, engine)


def register():
    for module in _modules:
        module.register()


def unregister():
    for module in reversed(_modules):
        module.unregister()
