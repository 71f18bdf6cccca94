"""The commands of the command line, by name (each a module that plugs into :mod:`.runner`)."""

from . import make_loop

COMMANDS = {command.NAME: command for command in (make_loop,)}
