"""Loopsmith's operators: context -> arrays -> core -> write back -> report."""

from . import compose, edit, engine, find_loop, graph, make_loop, make_transition

_modules = (find_loop, make_loop, make_transition, edit, compose, graph, engine)


def register():
    for module in _modules:
        module.register()


def unregister():
    for module in reversed(_modules):
        module.unregister()
