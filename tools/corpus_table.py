"""Run every command over a corpus of BVH files and print one Markdown row per file (not shipped).

Each command runs as ``python -m loopsmith`` in a process of its own, into a temporary folder; a cell is read from
the JSON report the command writes (the entry's ``status``, ``verdict.word`` and ``error``): GOOD, CHECK or VISIBLE,
``ok`` where an entry has no verdict, ``refused: <reason>`` where it failed, ``-`` where the command does not apply.
``--loopsmith FOLDER`` (a folder holding a ``loopsmith`` package link, put on PYTHONPATH) says which checkout runs,
so the same corpus can be compared between two versions::

    python tools/corpus_table.py corpus/ --loopsmith /tmp/old --json old.json
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]
#: Commands run over every file at once: column name and arguments.
BATCH = (("convert bvh", ("convert", "--format", "bvh")), ("convert glb", ("convert", "--format", "glb")),
         ("make-loop", ("make-loop",)), ("resample 60", ("resample", "--fps", "60")),
         ("retime 0.5", ("retime", "--speed", "0.5")), ("mirror", ("mirror",)))
COLUMNS = tuple(name for name, _ in BATCH) + ("freeze", "transition")
REASON_CHARACTERS = 60


def header(path):
    """Joint names (ROOT and JOINT, in file order), frames and fps of a BVH file, read from its text."""
    joints, frames, fps = [], None, None
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            words, label = line.split(None, 1), line.strip().lower()
            if len(words) == 2 and words[0] in ("ROOT", "JOINT"):
                joints.append(words[1].strip())
            elif label.startswith("frames:"):
                frames = int(label.split(":", 1)[1].split()[0])
            elif label.startswith("frame time:"):
                fps = round(1.0 / float(label.split(":", 1)[1]), 3)
                break
    return {"joints": joints, "frames": frames, "fps": fps}


def manifest(folder):
    """``{file name: (source repository, exporter)}`` from the corpus's MANIFEST.md table, where there is one."""
    path = pathlib.Path(folder) / "MANIFEST.md"
    rows = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            cells = [cell.strip() for cell in line.split("|")[1:-1]]
            if len(cells) >= 5 and cells[0].endswith(".bvh"):
                rows[cells[0]] = (cells[1].split("@")[0].strip(), cells[4])
    return rows


def run(python, package, argv, out, timeout):
    """Run ``python -m loopsmith ARGV -o OUT``: (exit code or 'timeout', its report's entries by input file, the last
    line of its stderr: the only reason there is where the run wrote no report, as for a usage error)."""
    env = dict(os.environ, PYTHONPATH=str(package), OMP_NUM_THREADS="1")
    try:
        done = subprocess.run([python, "-m", "loopsmith", *argv, "-o", str(out), "--quiet"], env=env, cwd=out.parent,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", {}, f"timed out after {timeout:g} s"
    report, entries = out / "loopsmith_report.json", {}
    if report.is_file():
        for entry in json.loads(report.read_text(encoding="utf-8")).get("entries", []):
            entries.setdefault(entry.get("file"), []).append(entry)
    return done.returncode, entries, (done.stderr.strip().splitlines() or [""])[-1]


def _short(reason):
    """A reason fit for a table cell: one line, no column bar, at most REASON_CHARACTERS."""
    reason = reason.replace("|", "/").replace("\n", " ")
    return reason[:REASON_CHARACTERS] + "..." if len(reason) > REASON_CHARACTERS else reason


def cell(code, entries, stderr=""):
    """The table's word for one command on one file, and what it rests on (exit code, statuses, verdicts, errors)."""
    result = {"exit": code, "status": [e.get("status") for e in entries], "error": [e["error"] for e in entries if "error" in e],
              "verdict": [(e.get("verdict") or {}).get("word") for e in entries]}
    if result["error"]:
        result["cell"] = "refused: " + _short(result["error"][0])
    elif not entries:
        result["stderr"] = stderr
        result["cell"] = f"refused: exit {code}: {_short(stderr)}"
    else:
        order = ("VISIBLE", "CHECK", "GOOD")
        words = [word for word in result["verdict"] if word in order]
        result["cell"] = min(words, key=order.index) if words else "ok"
    return result


def freeze_groups(infos):
    """``{bone: [file name, ...]}``: every file freezes the first joint below its root at frame 1, files sharing that
    joint's name in one run; a pose (one frame) or a lone joint is not frozen."""
    groups = {}
    for name, info in infos.items():
        if (info["frames"] or 0) >= 2 and len(info["joints"]) >= 2:
            groups.setdefault(info["joints"][1], []).append(name)
    return groups


def batch(column, argv, paths, rows, python, package, timeout, work):
    """Run one command over ``paths`` at once (``argv``: the command, then its options) and fill ``rows[...][column]``;
    where the run ran out of time, each file it left without an entry runs again on its own."""
    out = work / f"{column.replace(' ', '_')}_{len(list(work.iterdir()))}"
    out.mkdir()
    code, entries, stderr = run(python, package, [argv[0], *map(str, paths), *argv[1:]], out, timeout * len(paths))
    for path in paths:
        found = entries.get(str(path))
        if found is None and code == "timeout" and len(paths) > 1:
            batch(column, argv, [path], rows, python, package, timeout, work)
        else:
            rows[path.name][column] = cell(code, found or [], stderr)


def table(paths, python, package, timeout, work):
    """Every command's result on every file: ``{file name: {"joints", "fps", "frames", column: result}}``."""
    infos = {path.name: header(path) for path in paths}
    rows = {name: dict(info, joints=len(info["joints"])) for name, info in infos.items()}
    by_name = {path.name: path for path in paths}
    for column, argv in BATCH:
        batch(column, argv, paths, rows, python, package, timeout, work)
    for name in rows:
        rows[name]["freeze"] = {"exit": None, "cell": "-"}
    for bone, names in freeze_groups(infos).items():
        batch("freeze", ("freeze", "--bone", bone, "--frame", "1"), [by_name[n] for n in names], rows, python, package,
              timeout, work)
    for path in paths:  # a transition from each file into itself
        out = work / f"transition_{path.stem}"
        out.mkdir()
        code, entries, stderr = run(python, package, ["transition", str(path), str(path)], out, timeout)
        rows[path.name]["transition"] = cell(code, [entry for found in entries.values() for entry in found], stderr)
    return rows


def markdown(rows, sources):
    """The Markdown table: file, source, exporter, joints, fps, frames, then a column per command."""
    head = ("file", "source", "exporter", "joints", "fps", "frames") + COLUMNS
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, row in rows.items():
        source, exporter = sources.get(name, ("", ""))
        fps = "" if row["fps"] is None else f"{row['fps']:g}"
        cells = [name, source, exporter, str(row["joints"]), fps, str(row["frames"])] + [row[c]["cell"] for c in COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def package_folder(given, work):
    """The folder put on PYTHONPATH: the one given, else one linking this checkout as ``loopsmith``."""
    if given:
        return pathlib.Path(given).resolve()
    (work / "package").mkdir()
    (work / "package" / "loopsmith").symlink_to(REPO, target_is_directory=True)
    return work / "package"


def main(argv=None):
    default_corpus = os.environ.get("LOOPSMITH_CORPUS") or str(REPO.parent / "shared" / "mocap" / "corpus")
    default_python = REPO / ".venv" / "bpy-5.0.1" / "bin" / "python"
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", nargs="?", default=default_corpus, help="folder of BVH files (default: %(default)s)")
    parser.add_argument("--loopsmith", metavar="FOLDER", help="a folder holding the `loopsmith` package to run")
    parser.add_argument("--python", default=str(default_python) if default_python.exists() else sys.executable,
                        help="a Python with bpy (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per file and command (default: 120)")
    parser.add_argument("--json", metavar="PATH", help="also write every result as JSON")
    options = parser.parse_args(argv)
    paths = sorted(pathlib.Path(options.corpus).resolve().glob("*.bvh"))
    if not paths:
        parser.error(f"no .bvh files in {options.corpus}")
    with tempfile.TemporaryDirectory(prefix="corpus-table-") as work:
        package = package_folder(options.loopsmith, pathlib.Path(work))
        rows = table(paths, options.python, package, options.timeout, pathlib.Path(work))
    print(markdown(rows, manifest(options.corpus)))
    if options.json:
        result = {"loopsmith": str(options.loopsmith or REPO), "corpus": options.corpus, "files": rows}
        pathlib.Path(options.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
