"""Loopsmith's operators: context -> arrays -> core -> write back -> report. Each module registers its own ``classes``."""

from . import acclaim, compose, edit, engine, find_loop, follow, graph, make_loop, make_transition, music

#: In registration order (the extension registers them one after another, and unregisters in reverse).
MODULES = (find_loop, make_loop, make_transition, edit, compose, music, graph, follow, engine, acclaim)
