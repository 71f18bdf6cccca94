"""The commands of the command line that run over motion files, by name (each a module that plugs into :mod:`.runner`)."""

from . import compose, edit, graph, make_loop, transition

COMMANDS = {command.NAME: command for command in (make_loop, transition, compose, *graph.COMMANDS, *edit.COMMANDS)}
