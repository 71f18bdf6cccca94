"""Loopsmith's command line for pipelines.

One entry, :func:`main`, reachable three ways: ``python -m loopsmith
make-loop ...`` with the bpy module, ``blender -c loopsmith make-loop ...``
in a real Blender (the extension registers the command), and
``blender -b --python tools/blender_batch.py -- make-loop ...``.
Each command's options come from its module; the run itself (workers,
outputs, reports, exit codes) from :mod:`.runner`.
"""

import argparse
import os
import pathlib
import sys
import tomllib

# Loop work is many small array operations; BLAS threads would only spin
# (sched_yield) and steal the core of the other worker. Before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from ..files import interrupts
from . import commands, engine, libc, merge_reports, runner, workers
from .options import HelpFormatter

#: The extension's version, as its manifest gives it (``loopsmith --version``).
VERSION = tomllib.loads((pathlib.Path(__file__).resolve().parent.parent / "blender_manifest.toml").read_text(encoding="utf-8"))["version"]


class _OneLineParser(argparse.ArgumentParser):
    """A usage error is one line naming the command and the reason (exit 2); ``--help`` shows the usage."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _CommandParser(_OneLineParser):
    """A command's parser: an option it does not offer is refused in its own name (``loopsmith graph: error: unrecognized
    arguments: --engine``), not the top parser's."""

    def parse_known_args(self, args=None, namespace=None):
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def parser():
    """The argument parser of every command."""
    main_parser = _OneLineParser(prog="loopsmith", description="Seamless loops from motion capture.")
    main_parser.add_argument("--version", action="version", version=f"loopsmith {VERSION}")
    subparsers = main_parser.add_subparsers(dest="command", required=True, parser_class=_CommandParser)
    for command in commands.COMMANDS.values():
        # Inputs named one by one (FROM TO) are a fixed list, which argparse's usage line would show as repeating.
        usage = f"%(prog)s [options] {command.inputs_metavar}" if " " in command.inputs_metavar else None
        sub = subparsers.add_parser(command.name, help=command.help, description=command.help, usage=usage, formatter_class=HelpFormatter)
        runner.add_common_arguments(sub, command)
        command.add_arguments(sub)
        sub.epilog = command.epilog_text()
        if command.writes_motion:  # the engine options shape motion files; a command writing none has no use for them
            engine.add_arguments(sub)
            sub.epilog = engine.epilog(sub.epilog)
    merge = subparsers.add_parser(merge_reports.NAME, help=merge_reports.HELP, description=merge_reports.HELP, formatter_class=HelpFormatter)
    merge_reports.add_arguments(merge)
    return main_parser


def main(argv=None):
    """Run the command line; returns the exit code (130 when stopped by Ctrl-C or SIGTERM)."""
    interrupts.install()
    libc.keep_freed_memory()
    try:
        job = os.environ.pop(workers.WORKER_JOB, None)
        if job:
            return workers.work(job)
        argv = list(sys.argv[1:] if argv is None else argv)
        try:
            options = parser().parse_args(argv)
        except SystemExit as exit_:
            return int(exit_.code or 0)
        if options.command == merge_reports.NAME:
            return merge_reports.main(options)
        return runner.run(commands.COMMANDS[options.command], options)
    except interrupts.Interrupted:
        return interrupts.EXIT_CODE


def blender_command(argv):
    """``blender -c loopsmith ...``: Blender passes the arguments after the command name."""
    return main(list(argv))
