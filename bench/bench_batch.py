"""The batch command on 50 real clips with 1 and 2 worker processes.

Prints the speedup and the per-clip overhead of the command (process start,
import, export, reports) against the Make Loop time itself (read, core,
write), both measured in this run. Needs ../shared/mocap (the Bandai clips).
Run: ``.venv/bpy-5.0.1/bin/python bench/bench_batch.py``.
"""

import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
MOCAP = REPO.parent / "shared" / "mocap" / "bandai"
CLIPS = 50


def _inputs(folder):
    clips = sorted(p for p in MOCAP.glob("*.bvh") if "dance" not in p.name)  # similar sizes, so the split is fair
    for index in range(CLIPS):
        source = clips[index % len(clips)]
        shutil.copyfile(source, folder / f"{index:02d}_{source.name}")


def _batch(inputs, jobs, repeats=3):
    """Best of ``repeats`` wall-clock seconds, and the report of the last run."""
    best = None
    for _ in range(repeats):
        seconds, report = _one_batch(inputs, jobs)
        best = seconds if best is None else min(best, seconds)
    return best, report


def _one_batch(inputs, jobs):
    with tempfile.TemporaryDirectory(prefix="loopsmith-bench-out-") as out:
        start = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "loopsmith", "make-loop", str(inputs), "-o", out, "--jobs", str(jobs), "--quiet"],
                                capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if result.returncode != 0:
            raise RuntimeError(result.stderr[-2000:])
        report = json.loads((pathlib.Path(out) / "loopsmith_report.json").read_text())
    return seconds, report


def main():
    if not MOCAP.is_dir():
        sys.exit(f"bench_batch: the real clips are not at {MOCAP}")
    with tempfile.TemporaryDirectory(prefix="loopsmith-bench-in-") as folder:
        inputs = pathlib.Path(folder)
        _inputs(inputs)
        one, report = _batch(inputs, 1)
        two, _ = _batch(inputs, 2)
    looping = sum(entry["seconds"] for entry in report["entries"])  # read, Find Loop, Make Loop, write, export
    importing = sum(entry["import_seconds"] for entry in report["entries"])
    print(f"batch benchmark: {CLIPS} BVH clips (the Bandai walks, runs and cycles, repeated), best of 3")
    print(f"  --jobs 1: {one:.1f} s, --jobs 2: {two:.1f} s, speedup {one / two:.2f}x (target >= 1.7x on 2 cores)")
    print(f"  per clip, --jobs 1: {one / CLIPS * 1000:.0f} ms in all = loop {looping / CLIPS * 1000:.0f} ms (read, Find Loop, Make Loop, "
          f"write, export) + Blender's BVH import {importing / CLIPS * 1000:.0f} ms + command overhead "
          f"{(one - looping - importing) / CLIPS * 1000:.0f} ms (process start, reports)")


if __name__ == "__main__":
    main()
