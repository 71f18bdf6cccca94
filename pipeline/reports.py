"""Where a run's reports go and how they are written: a summary table, a JSON file and an HTML page.

The JSON report describes an output folder, not one run: runs that write
into the same folder (at once or one after another) keep each other's
entries, under a lock, and each file is replaced atomically so a failed write
leaves the previous report intact. Plain Python (no Blender).
"""

import contextlib
import itertools
import json
import os
import pathlib
import shutil
import sys
import time
import typing

from ..core.errors import LoopsmithError
from ..files import interrupts, outputs
from ..files.inputs import real
from ..files.progress import counted, say
from . import commands, entries as entry_kit
from .html import page as report
from .options import json_values

DEFAULT_NAME = "loopsmith_report.json"
_LOCK_WAIT = 30.0  # seconds; a lock older than this was left by a killed run


class ReportError(LoopsmithError):
    """A report could not be written; the message names the path."""


def report_path(given, out, inputs, shard=None):
    """The JSON report's path: ``given`` (checked), ``OUT/loopsmith_report.json``, or for a ``--shard K/N`` run its own part
    report ``OUT/loopsmith_report.part-K-of-N.json`` (a part holds its share only, so it never takes the folder's report).

    Raises ValueError with the reason when ``given`` cannot be a report: not a
    ``.json`` name, an existing folder, or one of the run's inputs (also for
    its ``.html`` sibling).
    """
    if given is None and shard:
        return pathlib.Path(out) / f"{pathlib.Path(DEFAULT_NAME).stem}.part-{shard[0]}-of-{shard[1]}.json"
    if given is None:
        return pathlib.Path(out) / DEFAULT_NAME
    path = pathlib.Path(given)
    if path.is_dir():
        raise ValueError(f"{path} is a folder; give a file name ending in .json")
    if path.suffix.lower() != ".json":
        raise ValueError(f"{path} does not end in .json (the HTML page is written beside it)")
    taken = {real(p) for p in inputs}
    for own in (path, path.with_suffix(".html")):
        if real(own) in taken:
            raise ValueError(f"{own} is one of the inputs")
    return path


# What an earlier report's entries must hold for this version to keep them: field -> the types it may have.
_ENTRY_FIELDS = {"file": (str,), "status": (str,), "armature": (str, type(None)), "command": (str, type(None)),
                 "to": (str, type(None)), "with": (str, type(None)), "graph_file": (str, type(None))}
_ENTRY_LISTS = ("outputs", "clips")  # lists of paths


def entry_problem(entry):
    """Why ``entry`` is not one a Loopsmith run writes (a short reason), or None."""
    if not isinstance(entry, dict):
        return f"an entry is not an object but {json.dumps(entry)[:40]}"
    if "file" not in entry or "status" not in entry:
        return "an entry has no 'file' or 'status'"
    for field, types in _ENTRY_FIELDS.items():
        if field in entry and not isinstance(entry[field], types):
            return f"an entry's '{field}' is a {type(entry[field]).__name__}"
    for field in _ENTRY_LISTS:
        if field in entry and not (isinstance(entry[field], list) and all(isinstance(item, str) for item in entry[field])):
            return f"an entry's '{field}' is not a list of paths"
    return None


def read_report(path):
    """The entries of the report at ``path`` and, when it cannot be kept, why: ``(entries, damage)``.

    ``([], None)`` when there is no report; ``([], reason)`` when the file is
    not a report this version reads (not JSON, nested beyond the parser, or
    entries of another shape): such a file is moved aside when the report is
    next written (:func:`write_reports`), never read in part.
    """
    path = pathlib.Path(path)
    if not path.exists():
        return [], None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        return [], f"it cannot be read ({error.strerror or error})"
    except RecursionError:
        return [], "it is nested deeper than a report"
    except ValueError as error:  # also bytes that are not UTF-8
        return [], f"it is not JSON ({error})"
    entries = document.get("entries") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        return [], "it has no list of entries"
    problem = next(filter(None, map(entry_problem, entries)), None)
    return ([], problem) if problem else (entries, None)


_UNDRAWABLE = (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError)  # what drawing a foreign entry raises


def undrawable(entries):
    """Why ``entries`` (read from a file) cannot be summed up and drawn by this version, or None."""
    problem = next(filter(None, map(entry_problem, entries)), None)
    if problem:
        return problem
    try:
        summary_table(entries)
        report.html_report(entries, "")
    except _UNDRAWABLE as error:
        return f"an entry lacks what this version draws ({type(error).__name__}: {error})"
    return None


def earlier_outputs(path):
    """Every output that the report at ``path`` lists: files an earlier run wrote (none when it is damaged)."""
    return [output for entry in read_report(path)[0] for output in entry.get("outputs", ())]


def _name(entry, names):
    """How the terminal names an entry's file: its name, or its folder and name where two inputs share a name."""
    path = pathlib.Path(entry["file"])
    return path.name if names.count(path.name) == 1 or len(path.parts) < 2 else "/".join(path.parts[-2:])


def summary_row(entry, names=()):
    """An entry's cells in the terminal's summary: what it is of, the armature, the verdict, what was made, how, its
    numbers, and the reasons behind its verdict (a failure's in full)."""
    command = commands.of_entry(entry)
    name = (command and entry["status"] == "ok" and command.title(entry)) or _name(entry, list(names))
    if entry["status"] != "ok":
        return (name, entry["armature"] or "-", entry_kit.verdict_word(entry), "-", "-", "-", entry["error"])
    row = commands.COMMANDS[entry.get("command")].row(entry)  # KeyError: an entry this version cannot draw
    why = [*entry_kit.verdict_reasons(entry), *([row.notes] if row.notes else [])]
    return (name, entry["armature"] or "-", entry_kit.verdict_word(entry), row.made, row.how, row.numbers, "; ".join(why) or "-")


SUMMARY_HEAD = ("file", "armature", "verdict", "made", "how", "numbers", "why")


def summary_table(entries):
    """A text table of every entry (the reasons behind a verdict and a failure's in full, last), for the terminal."""
    names = [pathlib.Path(entry["file"]).name for entry in entries]
    rows = [SUMMARY_HEAD] + [summary_row(entry, names) for entry in entries]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1] for row in rows)


def scales_used(entries):
    """Lines on each BVH import scale the run's inputs used and why: ``BVH scale 0.01 m per unit (2 files): centimetres``, then the
    reason (``: the skeleton stands 1.71 m tall in centimetres (...)``) on the same line when the files share it, else one
    indented line per reason naming its files. Every input counts: a transition's, an edit's or a composition's later files
    (``other_imports``) too."""
    scales = {}
    # Every input of an entry: its file's, then those a transition, an edit or a composition read after it.
    inputs = [(settings, settings.get("file")) for entry in entries for settings in [{**(entry.get("import") or {}), "file": entry["file"]},
                                                                                   *entry.get("other_imports", [])]]
    for settings, file in inputs:
        if "bvh_scale" in settings:
            # A part report of an earlier version, merged, names no unit.
            unit = settings.get("bvh_unit", "unit not recorded")
            reason = settings.get("bvh_scale_reason") or unit
            scales.setdefault((settings["bvh_scale"], unit), {}).setdefault(reason, []).append(pathlib.Path(file).name)
    lines = []
    for (scale, unit), reasons in scales.items():
        count = sum(map(len, reasons.values()))
        line = f"BVH scale {scale:g} m per unit ({count} file{'s' if count > 1 else ''}): {unit}"
        stated = {reason: files for reason, files in reasons.items() if reason != unit}
        if len(reasons) == 1 and stated:
            line += f": {next(iter(stated))}"
        lines += [line] + ([f"  {', '.join(files)}: {reason}" for reason, files in stated.items()] if len(reasons) > 1 else [])
    return lines


def closing_line(entries, seconds, done="looped", interrupted=False):
    failed = sum(entry["status"] != "ok" for entry in entries)
    line = f"{len(entries) - failed} {done}, {failed} failed in {seconds:.1f} s"
    return line + (" (interrupted: files not listed were not processed)" if interrupted else "")


@contextlib.contextmanager
def _locked(path):
    """Hold ``.<name>.lock`` beside ``path`` while runs merge their entries (portable: an exclusive create)."""
    lock = path.with_name(f".{path.name}.lock")
    waited = 0.0
    while True:
        try:
            descriptor = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            break
        except FileExistsError:
            with contextlib.suppress(OSError):
                if time.time() - lock.stat().st_mtime > _LOCK_WAIT:
                    lock.unlink()  # its run died holding it
                    continue
            if waited > _LOCK_WAIT:
                raise ReportError(f"cannot write the report {path}: {lock} is held by another run") from None
            if waited == 1.0:
                print(f"loopsmith: waiting for {lock}: another run is writing this report (a lock older than "
                      f"{_LOCK_WAIT:g} s is taken over)", file=sys.stderr, flush=True)
            time.sleep(0.05)
            waited = round(waited + 0.05, 2)
    try:
        os.close(descriptor)
        yield
    finally:
        with contextlib.suppress(OSError):
            lock.unlink()


def _identity(entry):
    """What a run's entry replaces an earlier one for: the same command on the same file(s) and armature.

    A graph's entries are those of the graph file they describe: rebuilding it
    from a changed library replaces them. Entries of reports written before
    entries named their command are make-loop's, or transition's when they have a TO.
    """
    command = entry.get("command") or ("transition" if entry.get("to") else "make-loop")
    if command == "graph":
        return command, real(entry.get("graph_file") or (entry.get("outputs") or [entry["file"]])[0]), "", None, None, ()
    clips = tuple(str(real(path)) for path in entry.get("clips", ()))
    return command, real(entry["file"]), entry.get("armature", ""), entry.get("to"), entry.get("with"), clips


def _without_armature(identity):
    command, file, _, *others = identity
    return command, file, *others


def _earlier_entries(earlier, entries):
    """The ``earlier`` entries of a report that this run does not replace (same command, file(s) and armature), and notes.

    An earlier entry whose output this run has since written over (another
    input with the same output name) loses that output from its list, which
    moves to ``outputs_replaced``, and a note says so.
    """
    ours = {_identity(entry) for entry in entries}
    files = {_without_armature(identity) for identity in ours}
    written = {real(output): entry["file"] for entry in entries for output in entry.get("outputs", ())}
    kept, notes = [], []
    for entry in earlier:
        identity = _identity(entry)
        # An earlier failure of the whole file (no armature named) is stale once this run reports on that file at all.
        if identity in ours or (not entry.get("armature") and _without_armature(identity) in files):
            continue
        replaced = [output for output in entry.get("outputs", ()) if real(output) in written]
        if replaced:
            entry = dict(entry, outputs=[o for o in entry["outputs"] if o not in replaced], outputs_replaced=replaced)
            notes += [f"{output} (from {entry['file']} in an earlier or concurrent run) now holds {written[real(output)]}'s output"
                      for output in replaced]
        kept.append(entry)
    return kept, notes


class Written(typing.NamedTuple):
    """What :func:`write_reports` did besides writing: earlier entries kept, notes on outputs written over, and where a
    damaged earlier report was moved (with why), or None."""

    kept: int
    notes: list
    moved_aside: tuple | None


def _page(entries, kept, summary):
    """The HTML page, and the earlier entries it holds: an earlier entry this version cannot draw makes the earlier report
    damaged (None in place of the page), never a failed run."""
    if not kept:
        return report.html_report(entries, summary)
    try:
        return report.html_report(entries, summary, kept)
    except _UNDRAWABLE:
        return None


def _copy_aside(json_path, reason):
    """Copy a damaged report to ``<name>.damaged-<time>.json`` beside it (the new report then takes its name); returns
    ``(the copy's path, reason)``."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = json_path.with_name(f"{json_path.stem}.damaged-{stamp}{json_path.suffix}")
    for number in itertools.count(2):
        if not aside.exists():
            break
        aside = json_path.with_name(f"{json_path.stem}.damaged-{stamp}-{number}{json_path.suffix}")
    shutil.copyfile(json_path, aside)
    return aside, reason


def write_reports(entries, json_path, summary, settings, keep_earlier=True):
    """Write the JSON report and the HTML page beside it, keeping other runs' entries (unless not ``keep_earlier``).

    An earlier report this version cannot read (:func:`read_report`) or draw
    is moved aside, never overwritten, and the new report holds this run's
    entries. Returns a :class:`Written`.

    Raises ReportError naming the path when either cannot be written; the
    previous files stay as they were.
    """
    json_path = pathlib.Path(json_path)
    html_path = json_path.with_suffix(".html")
    try:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(json_path):
            earlier, damage = read_report(json_path) if keep_earlier else ([], None)
            kept, notes = _earlier_entries(earlier, entries)
            page = _page(entries, kept, summary)
            if page is None:
                kept, notes, damage = [], [], "its entries are not ones this version can draw"
                page = _page(entries, kept, summary)
            moved = _copy_aside(json_path, damage) if damage else None
            document = {"entries": kept + entries, "settings": settings, "written": time.strftime("%Y-%m-%dT%H:%M:%S")}
            try:
                outputs.replace_all([(json_path, outputs.text_writer(json.dumps(document, separators=(",", ":"))), None),
                                     (html_path, outputs.text_writer(page), None)])
            except BaseException:  # the damaged report stays where it was (the group is all or none): the copy goes
                if moved:
                    moved[0].unlink(missing_ok=True)
                raise
    except OSError as error:
        raise ReportError(f"cannot write the report {error.filename or json_path}: {error.strerror or error}") from None
    except outputs.OutputError as error:
        raise ReportError(f"cannot write the report {error.path}: {error.reason}") from None
    return Written(len(kept), notes, moved)


def finish(command, entries, stopped, report_path, options, seconds):
    """A run's end: summary and errors to the terminal first (they must arrive whatever happens to the report), then the
    reports (:func:`write_reports`); returns the exit code.

    command: the command run (its ``DONE`` says what a finished task is);
    options: its parsed options, kept in the report; seconds: the run's time.
    """
    run = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() - seconds))
    for entry in entries:
        entry.setdefault("run", run)  # the page groups earlier entries by the run that made them (merged parts keep theirs)
    summary = "\n".join([summary_table(entries), *scales_used(entries), closing_line(entries, seconds, command.done, stopped)])
    say(summary)
    for entry in entries:
        if entry["status"] != "ok":
            say(f"loopsmith: {entry['file']}: {entry['error']}", sys.stderr)
    status = 0 if all(entry["status"] == "ok" for entry in entries) else 1
    if status and options.shard and not any(entry.get("run_failure") for entry in entries):
        # A farm's task: its files' verdicts are in its part report and merge-reports exits 1 for them; only a task
        # that failed through no fault of its files (a worker died) exits 1, so the farm runs it again.
        say("loopsmith: note: --shard: exit code 0 with failed files, which the part report holds (merge-reports gives the run's exit code)",
            sys.stderr)
        status = 0
    try:
        # A part report holds its own share only: merge-reports reads it as this task's whole verdict.
        written = write_reports(entries, report_path, summary, json_values(options), keep_earlier=not options.shard)
        if written.moved_aside:
            say(f"loopsmith: warning: the earlier report {report_path} was damaged ({written.moved_aside[1]}): moved aside to "
                f"{written.moved_aside[0].name}; the new report holds this run only", sys.stderr)
        kept = written.kept
        say(f"reports: {report_path} and {report_path.with_suffix('.html')}" + (f" (with {counted(kept, 'entry', 'entries')} of earlier runs)" if kept else ""))
        for note in written.notes:
            say(f"loopsmith: note: {note}", sys.stderr)
    except LoopsmithError as error:
        say(f"loopsmith: {error}", sys.stderr)
        status = 1
    except interrupts.Interrupted:
        say(f"loopsmith: interrupted: the report {report_path} was not written (the previous one is as it was)", sys.stderr)
        stopped = True
    return interrupts.EXIT_CODE if stopped else status
