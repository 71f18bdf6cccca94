"""The registry: every command of the command line that runs over motion files, by name, in the order ``--help`` lists
them. A command is one folder here (its options, job and report) and one line below."""

from . import beats, blend, compose, convert, follow, freeze, graph, make_loop, mirror, resample, retime, splice, synth, transition

COMMANDS = {command.name: command for command in (
    make_loop.COMMAND,
    transition.COMMAND,
    compose.COMMAND,
    graph.COMMAND,
    synth.COMMAND,
    follow.COMMAND,
    resample.COMMAND,
    retime.COMMAND,
    freeze.COMMAND,
    splice.COMMAND,
    blend.COMMAND,
    mirror.COMMAND,
    convert.COMMAND,
    beats.COMMAND,
)}


def of_entry(entry):
    """The command that made a report entry (entries name it), or None for one this version does not know."""
    return COMMANDS.get(entry.get("command"))
