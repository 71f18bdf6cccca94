"""Big BVH files: the numpy reader, converter and writer against the raw file read and Blender's importer.

A 200,000-frame BVH (about 246 MB) is made in a temporary folder by tiling a
real Bandai clip. Each step runs in a fresh process, so its peak memory is its
own: the raw read (the floor), ``bvh.read_bvh``, ``bvh_clip.clip_from_bvh``,
``bvh.write_bvh`` of the whole clip, and Blender's importer on a 20,000-frame
cut (the naive baseline, scaled by 10). ``end_to_end`` times the command line
on the big file as a subprocess of this checkout's code, a short loop
(``--range 100 171``) with Best Measured (AUTO) and with Cubic, best of
``--repeats`` interleaved with the raw read of the file (the floor), and
prints their ratios; ``--against CHECKOUT`` runs another checkout's
code the same way in the same rounds, and its reader, converter and writer
each right after this one's (before and after a change in one run).
Run: ``.venv/bpy-5.0.1/bin/python bench/bench_bvh.py [--frames N] [--against DIR]``.
"""

import argparse
import dataclasses
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import common

import numpy as np  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[1]
SOURCE = REPO.parent / "shared" / "mocap" / "bandai" / "dataset-1_dance-short_normal_001.bvh"
BASELINE_FRAMES = 20_000


def _modules(checkout=REPO):
    sys.path.insert(0, str(checkout))
    from core.formats import bvh, bvh_clip

    return bvh, bvh_clip


def make_big(path, frames):
    """A BVH of ``frames`` frames: the source clip tiled, its root carried on so the motion stays continuous."""
    bvh, _ = _modules()
    info = bvh.read_bvh(SOURCE)
    tiles = -(-frames // info.frame_count)
    motion = np.tile(info.motion, (tiles, 1))[:frames]
    drift = info.motion[-1, :3] - info.motion[0, :3]
    motion[:, :3] += np.repeat(np.arange(tiles), info.frame_count)[:frames, None] * drift
    bvh.write_bvh(path, dataclasses.replace(info, motion=motion))


def _variant(name, path, checkout):
    bvh, bvh_clip = _modules(checkout)
    common.reset_peak()
    before, _ = common.rss_mb()
    start, cpu = time.perf_counter(), time.process_time()
    if name == "floor":
        pathlib.Path(path).read_bytes()
    elif name == "read":
        bvh.read_bvh(path)
    else:
        info = bvh.read_bvh(path)
        up = bvh.up_axis(info)
        scale = bvh.suggest_scale(info, up)[0]
        if name == "convert":
            start, cpu = time.perf_counter(), time.process_time()
            common.reset_peak()
            before, _ = common.rss_mb()
            bvh_clip.clip_from_bvh(info, scale, up)
        elif name == "write":
            start, cpu = time.perf_counter(), time.process_time()
            common.reset_peak()
            before, _ = common.rss_mb()
            bvh.write_bvh(pathlib.Path(path).with_suffix(".out.bvh"), info)
        elif name == "blender":
            import bpy

            bpy.ops.wm.read_homefile(use_empty=True)
            start, cpu = time.perf_counter(), time.process_time()
            common.reset_peak()
            before, _ = common.rss_mb()
            bpy.ops.import_anim.bvh(filepath=str(path), global_scale=scale, update_scene_fps=True, **bvh.IMPORT_AXES[up])
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    _, peak = common.rss_mb()
    common.finish({"seconds": seconds, "cpu": cpu, "peak_mb": peak, "extra_mb": peak - before})


END_TO_END_RANGE = ("100", "171")  # a short loop of a long take: what every full-length step costs shows


def end_to_end(path, out, package, method):
    """``python -m loopsmith make-loop BIG --range 100 171 --format bvh [--method M]`` as a subprocess running the
    ``loopsmith`` that ``package`` (a folder) holds: wall and CPU seconds, its own peak RSS (MB), exit code.

    It runs from compiled bytecode, as an installed package does, kept in ``package``'s ``bytecode`` folder (the first
    run, not counted, writes it): with PYTHONDONTWRITEBYTECODE set, as on the machines this was measured on, every run
    would compile the whole package first (0.4 s here)."""
    command = [sys.executable, "-m", "loopsmith", "make-loop", str(path), "--range", *END_TO_END_RANGE, "--format", "bvh", "--quiet",
               "-o", str(out)] + ([] if method == "AUTO" else ["--method", method])
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    environment.update(PYTHONPATH=str(package), PYTHONPYCACHEPREFIX=str(pathlib.Path(package) / "bytecode"))
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, env=environment)
        _, status, usage = os.wait4(child.pid, 0)  # this child's own usage and peak
        seconds = time.perf_counter() - start
        errors.seek(0)
        stderr = errors.read().decode("utf-8", "replace").strip()[-300:]
    return {"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024.0,
            "code": os.waitstatus_to_exitcode(status), "stderr": stderr}


def _print_end_to_end(big, folder, checkouts, repeats):
    """Best of ``repeats`` rounds of :func:`end_to_end` per checkout and method, interleaved, with the load."""
    packages = {}
    for name, checkout in checkouts.items():
        packages[name] = pathlib.Path(folder) / f"package-{name}"
        packages[name].mkdir()
        (packages[name] / "loopsmith").symlink_to(checkout, target_is_directory=True)
        end_to_end(big, pathlib.Path(folder) / f"out-{name}-bytecode", packages[name], "CUBIC")  # writes the bytecode
    runs, floors = {}, []
    for _ in range(repeats):
        floors.append(common.run_variant(__file__, "floor", "--path", big)["seconds"])  # the raw read of the file
        for name in checkouts:
            for method in ("AUTO", "CUBIC"):
                run = end_to_end(big, pathlib.Path(folder) / f"out-{name}-{method}", packages[name], method)
                if run["code"]:
                    print(f"  {name} {method}: exit {run['code']} {run['stderr']}")
                runs.setdefault((name, method), []).append(run)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"  make-loop --range {' '.join(END_TO_END_RANGE)} --format bvh, best of {repeats} interleaved (load {load}):")
    best = {key: min(run["seconds"] for run in done) for key, done in runs.items()}
    for (name, method), done in runs.items():
        walls = " ".join(f"{run['seconds']:.1f}" for run in done)
        print(f"    {name:8s} {method:5s} {best[name, method]:5.1f} s (runs {walls}), CPU {min(run['cpu'] for run in done):4.1f} s, "
              f"peak {max(run['peak_mb'] for run in done):5.0f} MB")
    print(f"    the floor, reading the file's bytes: {min(floors):.2f} s")
    for name in checkouts:
        print(f"    {name}: Best Measured {best[name, 'AUTO'] / min(floors):.1f}x the floor; Best Measured / Cubic "
              f"{best[name, 'AUTO'] / best[name, 'CUBIC']:.2f}x (what ranking four methods adds)")
    if "against" in checkouts:
        print(f"    this / against: Best Measured {best['this', 'AUTO'] / best['against', 'AUTO']:.2f}x, "
              f"Cubic {best['this', 'CUBIC'] / best['against', 'CUBIC']:.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant")
    parser.add_argument("--path")
    parser.add_argument("--checkout", type=pathlib.Path, default=REPO, help="(a variant's) the checkout whose core it runs")
    parser.add_argument("--frames", type=int, default=200_000)
    parser.add_argument("--skip-end-to-end", action="store_true")
    parser.add_argument("--end-to-end-only", action="store_true")
    parser.add_argument("--against", type=pathlib.Path, help="another checkout to time end to end in the same rounds")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.variant:
        _variant(args.variant, args.path, args.checkout)
        return
    with tempfile.TemporaryDirectory(prefix="loopsmith-bench-bvh-") as folder:
        big, cut = pathlib.Path(folder) / "big.bvh", pathlib.Path(folder) / "cut.bvh"
        make_big(big, args.frames)
        megabytes = big.stat().st_size / 1e6
        print(f"{args.frames} frames, {megabytes:.0f} MB (tiled {SOURCE.name})")
        if not args.end_to_end_only:
            make_big(cut, BASELINE_FRAMES)
            results = {}
            for name in ("floor", "read", "convert", "write"):  # each step of the other checkout right after this one's
                results[name] = common.run_variant(__file__, name, "--path", big)
                if args.against and name != "floor":
                    results[f"{name} (against)"] = common.run_variant(__file__, name, "--path", big, "--checkout", args.against.resolve())
            baseline = common.run_variant(__file__, "blender", "--path", cut)
            results["blender importer (x10 from 20k)"] = {"seconds": baseline["seconds"] * args.frames / BASELINE_FRAMES,
                                                          "cpu": baseline["cpu"] * args.frames / BASELINE_FRAMES, "peak_mb": baseline["peak_mb"],
                                                          "extra_mb": baseline["extra_mb"] * args.frames / BASELINE_FRAMES}
            floor = results["floor"]["seconds"]
            for name, result in results.items():
                print(f"  {name:32s} {result['seconds']:8.2f} s (CPU {result['cpu']:6.2f} s) {result['seconds'] / floor:8.1f}x floor  "
                      f"peak {result['peak_mb']:7.0f} MB  (+{result['extra_mb']:.0f} MB)")
            print(f"  (load {', '.join(f'{value:.1f}' for value in os.getloadavg())})")
        if not args.skip_end_to_end:
            checkouts = {"this": REPO} | ({"against": args.against.resolve()} if args.against else {})
            _print_end_to_end(big, folder, checkouts, args.repeats)


if __name__ == "__main__":
    main()
