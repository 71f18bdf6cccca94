"""The ``merge-reports`` command: one report from the part reports of a run split with ``--shard K/N`` (plain Python, no Blender).

A farm runs a command as N tasks, ``--shard K/N --report PARTS/part-K.json``
(the Flamenco job type in ``flamenco/`` does), then ``merge-reports PARTS``.
Part K holds the run's tasks K, K + N, K + 2N ... (1-based, in the run's
input order), so taking one task's entries from each part in turn gives the
entries a single run over the same inputs would have reported, in its order.
They are written as a run writes its own (:func:`.reports.finish`): summary, JSON and
HTML report, and exit code 1 when an entry failed.

A part that is missing, unreadable or from another run (another command,
other settings, another N) is named on one line, exit code 1, nothing written.
"""

import argparse
import itertools
import json
import pathlib
import sys

from ..core.errors import LoopsmithError
from ..files.progress import say
from . import commands, reports

NAME = "merge-reports"
HELP = "merge the part reports of a run split with --shard K/N into the report one run would have written"

# Settings that say how a part ran, not what it did: parts may differ in these.
_HOW_RUN = {"shard", "report", "jobs", "quiet", "scheduler"}


class PartError(LoopsmithError):
    """A part report is missing, unreadable, or does not belong with the others; the message names it."""


def add_arguments(parser):
    parser.add_argument("parts", nargs="+", type=pathlib.Path, metavar="PART", help="part reports (.json), or folders of them")
    parser.add_argument("--report", type=pathlib.Path, metavar="PATH.json",
                        help="the merged JSON report, ending in .json; the HTML page goes beside it (default: OUT/loopsmith_report.json "
                             "of the parts' run)")
    parser.epilog = ("examples:\n  loopsmith merge-reports out/            # the part reports a --shard K/N run left in out/\n\n"
                     "exit codes: 0 every entry done, 1 some failed or a part is wrong (named on stderr), 2 usage error")


def main(options):
    """Merge the part reports ``options.parts`` into ``options.report``; returns the exit code (0, 1 some entry failed or a
    part is wrong, 2 a usage error)."""
    try:
        paths = _part_files(options.parts)
        parts = sorted((_read_part(path) for path in paths), key=lambda part: part["settings"]["shard"][0])
        settings = _run_settings(parts)
        entries = _in_run_order(parts)
    except PartError as error:
        say(f"loopsmith {NAME}: {error}", sys.stderr)
        return 1
    try:
        report_path = reports.report_path(options.report, settings["out"], paths)
    except ValueError as error:
        say(f"loopsmith {NAME}: error: --report: {error}", sys.stderr)
        return 2
    merged = argparse.Namespace(**dict(settings, shard=None, report=str(report_path), merged_parts=[str(path) for path in paths]))
    seconds = sum(entry.get("seconds", 0.0) for entry in entries)  # the time the parts spent on the entries themselves
    return reports.finish(commands.COMMANDS[settings["command"]], entries, False, report_path, merged, seconds)


def _beside_the_parts(path):
    """Whether ``path`` is a report a run's output folder holds besides its parts: the folder's own
    (``loopsmith_report.json``, which a shard without ``--report`` writes beside) or a damaged one set aside."""
    return path.name == reports.DEFAULT_NAME or ".damaged-" in path.name


def _part_files(given):
    """The part reports: files as given, and the ``.json`` files of given folders (sorted) but the folder's own report."""
    paths = []
    for path in given:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() == ".json" and p.is_file() and not _beside_the_parts(p))
            if not found:
                raise PartError(f"{path}: no .json part reports in this folder")
            paths += found
        else:
            paths.append(path)
    return paths


def _read_part(path):
    """The report at ``path`` as a part of a ``--shard`` run; PartError naming it and the reason otherwise."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise PartError(f"{path}: cannot be read: {error.strerror or error}") from None
    except RecursionError:
        raise PartError(f"{path}: is not a JSON report (nested deeper than a report)") from None
    except ValueError as error:
        raise PartError(f"{path}: is not a JSON report ({error})") from None
    settings = document.get("settings") if isinstance(document, dict) else None
    entries = document.get("entries") if isinstance(document, dict) else None
    if not isinstance(settings, dict) or not isinstance(entries, list):
        raise PartError(f"{path}: is not a Loopsmith report (no settings and entries)")
    problem = reports.undrawable(entries)
    if problem:
        raise PartError(f"{path}: is not a Loopsmith report ({problem})")
    shard = settings.get("shard")
    if not (isinstance(shard, list) and len(shard) == 2 and all(isinstance(n, int) for n in shard)):
        raise PartError(f"{path}: is not the report of a --shard K/N run")
    command = settings.get("command")
    if not isinstance(settings.get("out"), str):
        raise PartError(f"{path}: is not the report of a Loopsmith run (no output folder in its settings)")
    if command not in commands.COMMANDS or command == NAME:
        raise PartError(f"{path}: is not the report of a Loopsmith run (command {command!r})")
    others = sorted({entry.get("command") for entry in entries} - {command}, key=str)
    if others:
        raise PartError(f"{path}: also holds entries of other runs ({', '.join(map(str, others))}); give each part its own report")
    return {"path": path, "settings": settings, "entries": entries}


def _run_settings(parts):
    """The settings the parts share (those that say what the run did); PartError when parts disagree or one is missing."""
    first = parts[0]
    what = {key: value for key, value in first["settings"].items() if key not in _HOW_RUN}
    for part in parts[1:]:
        differ = sorted(key for key in what.keys() | part["settings"].keys() - _HOW_RUN if part["settings"].get(key) != what.get(key))
        if differ:
            raise PartError(f"{part['path']}: is not from the same run as {first['path']} (they differ in {', '.join(differ)})")
    count = first["settings"]["shard"][1]
    held = {}
    for part in parts:
        k, n = part["settings"]["shard"]
        if n != count:
            raise PartError(f"{part['path']}: is part {k} of {n}, not of {count} like {first['path']}")
        if k in held:
            raise PartError(f"{part['path']}: is part {k} of {n}, like {held[k]}")
        held[k] = part["path"]
    missing = [k for k in range(1, count + 1) if k not in held]
    if missing:
        where = ", ".join(sorted({str(part["path"].parent) for part in parts}))
        raise PartError(f"{where}: part {', '.join(map(str, missing))} of {count} is missing (no report of --shard {missing[0]}/{count})")
    return what


def _task_key(entry):
    """What one task of a run reports on: its file, with its second file or clips for commands that take more."""
    return entry["file"], entry.get("to"), entry.get("with"), tuple(entry.get("clips", ()))


def _in_run_order(parts):
    """The entries in the run's task order: each part's entries grouped by task (in the part's order), one group from each
    part in turn (parts sorted by K)."""
    groups = [[list(group) for _, group in itertools.groupby(part["entries"], key=_task_key)] for part in parts]
    return [entry for turn in itertools.zip_longest(*groups) for group in turn if group for entry in group]
