"""The commands of the command line, by name (each a module that plugs into :mod:`.runner`)."""

from . import edit, make_loop, transition

COMMANDS = {command.NAME: command for command in (make_loop, transition, *edit.COMMANDS)}
