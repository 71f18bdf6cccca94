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
import sys

# Loop work is many small array operations; BLAS threads would only spin
# (sched_yield) and steal the core of the other worker. Before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from ..files import interrupts
from . import commands, engine, merge_reports, runner, workers
from .options import HelpFormatter


class _OneLineParser(argparse.ArgumentParser):
    """A usage error is one line naming the command and the reason (exit 2); ``--help`` shows the usage."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def parser():
    """The argument parser of every command."""
    main_parser = _OneLineParser(prog="loopsmith", description="Seamless loops from motion capture.")
    subparsers = main_parser.add_subparsers(dest="command", required=True)
    for command in commands.COMMANDS.values():
        # Inputs named one by one (FROM TO) are a fixed list, which argparse's usage line would show as repeating.
        usage = f"%(prog)s [options] {command.inputs_metavar}" if " " in command.inputs_metavar else None
        sub = subparsers.add_parser(command.name, help=command.help, description=command.help, usage=usage, formatter_class=HelpFormatter)
        runner.add_common_arguments(sub, command)
        command.add_arguments(sub)
        engine.add_arguments(sub)
        sub.epilog = engine.epilog(command.epilog_text())
    merge = subparsers.add_parser(merge_reports.NAME, help=merge_reports.HELP, description=merge_reports.HELP, formatter_class=HelpFormatter)
    merge_reports.add_arguments(merge)
    return main_parser


def main(argv=None):
    """Run the command line; returns the exit code (130 when stopped by Ctrl-C or SIGTERM)."""
    interrupts.install()
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
