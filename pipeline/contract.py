"""The one contract every command of the command line keeps: what :mod:`.runner`, :mod:`.workers`, :mod:`.reports` and
the report page rely on.

A command lives in its own folder under ``commands/``: its options (no
Blender), its job (imported only where files are processed, so ``--jobs N``
starts its workers at once; Blender only where a file needs a scene) and its report (the entry its job
makes, the entry's row in the summaries and its section of the page). The
registry, ``commands/__init__.py``, lists them.
"""

from __future__ import annotations

import argparse
import pathlib
import types
import typing

MOTION_FILES = "BVH, FBX, glTF/GLB, .blend or Acclaim .amc files, or folders of them"


class Row(typing.NamedTuple):
    """An entry's cells in the summaries, beside its name, armature and verdict: what was made (frames, a range), how
    (a method, a grade), its numbers with their units, and notes worth the user's eye beyond the verdict's reasons."""

    made: str
    how: str
    numbers: str
    notes: str = ""


class Command:
    """One command. A subclass sets the class attributes and overrides the methods its command needs.

    name: as typed (``make-loop``); help: what it does, one line; done: what
    the summary says of a finished task (``looped``); kind: what its report
    entries are (``loop``, ``transition``...); examples: usage lines shown
    in ``--help`` (each ``loopsmith ...  # what it does``); inputs: argparse
    nargs of the input paths; inputs_metavar: how the usage line names them
    (``FROM TO``: inputs named one by one, a fixed list); inputs_help: what they are; epilog: what ``--help`` says
    after the options (method lists), before the examples; fans_out: its task
    sends work of its own to a Dask cluster; writes_motion: its outputs are
    motion files, so it offers ``--format`` and the game-engine options
    (``--engine``, ``--root-*``); reads_folders: its inputs may be folders, so
    it offers ``--include-outputs``; out_help: what ``-o`` names;
    input_suffixes: the suffixes (lowercase, with the dot) of the files it
    reads when they are not motion files (songs): folders are scanned for
    them, and the motion import options (``--bvh-*``, ``--asf``,
    ``--amc-fps``) are not offered; None: motion files.
    """

    name: str = ""
    help: str = ""
    done: str = "done"
    kind: str = ""
    examples: tuple = ()
    inputs: str | int = "+"
    inputs_metavar: str = "INPUT"
    inputs_help: str = MOTION_FILES
    epilog: str = ""
    exit_codes: str = "exit codes: 0 every task done, 1 some failed (each named on stderr), 2 usage error, 130 interrupted"
    fans_out: bool = False
    options_module: types.ModuleType | None = None  # the folder's options: add_arguments, check, plan
    report_module: types.ModuleType | None = None  # the folder's report: row, section, title
    writes_motion: bool = True
    reads_folders: bool = True
    out_help: str = "output folder"
    input_suffixes: tuple | None = None

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The command's own options (the shared ones come from :func:`.runner.add_common_arguments`): its
        ``options_module``'s ``add_arguments``, when it has one."""
        if hasattr(self.options_module, "add_arguments"):
            self.options_module.add_arguments(parser)

    def check(self, options: argparse.Namespace) -> None:
        """Options that do not fit together or that another choice makes irrelevant: :class:`~.options.UsageError` naming
        them as typed. Fills defaults that depend on other options. Its ``options_module``'s ``check``, when it has one."""
        if hasattr(self.options_module, "check"):
            self.options_module.check(options)

    def plan(self, files: list, options: argparse.Namespace) -> tuple[list, list]:
        """``(tasks, names)``: the tasks (tuples of input paths) and each one's output name: its ``options_module``'s ``plan``."""
        return self.options_module.plan(files, options)

    def paths(self, options: argparse.Namespace) -> list[tuple[str, pathlib.Path]]:
        """Files the command writes or reads besides its inputs and outputs, by role (kept apart from the report's)."""
        return []

    def job(self) -> types.ModuleType:
        """The command's job, imported only where files are processed (Blender only where a file needs a scene): its ``process(task, options, name,
        inputs)`` returns the report entries of one task (``name``: its output name; ``inputs``: real paths of every
        input of the run, which no output may replace)."""
        raise NotImplementedError

    def row(self, entry: dict) -> Row:
        """A finished entry's cells in the summaries."""
        return self.report_module.row(entry)

    def section(self, entry: dict) -> str:
        """A finished entry's section of the page (HTML, after its heading): its facts, charts and player."""
        return self.report_module.section(entry)

    def title(self, entry: dict) -> str | None:
        """What a finished entry is of, as the summaries name it (plain text); None: its file's name."""
        title = getattr(self.report_module, "title", None)
        return title(entry) if title else None

    def epilog_text(self) -> str:
        """What ``--help`` shows after the options: the epilog, the examples and the exit codes."""
        examples = "examples:\n" + "\n".join(f"  {line}" for line in self.examples) if self.examples else ""
        return "\n\n".join(filter(None, [self.epilog, examples, self.exit_codes]))
