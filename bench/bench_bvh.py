"""Big BVH files: the numpy reader, converter and writer against the raw file read and Blender's importer.

A 200,000-frame BVH (about 246 MB) is made in a temporary folder by tiling a
real Bandai clip. Each step runs in a fresh process, so its peak memory is its
own: the raw read (the floor), ``bvh.read_bvh``, ``bvh_clip.clip_from_bvh``,
``bvh.write_bvh`` of the whole clip, and Blender's importer on a 20,000-frame
cut (the naive baseline, scaled by 10). ``end_to_end`` times the command line
on the big file as a subprocess. Run: ``.venv/bpy-5.0.1/bin/python bench/bench_bvh.py [--frames N]``.
"""

import argparse
import dataclasses
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

import common

import numpy as np  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[1]
SOURCE = REPO.parent / "shared" / "mocap" / "bandai" / "dataset-1_dance-short_normal_001.bvh"
BASELINE_FRAMES = 20_000


def _modules():
    sys.path.insert(0, str(REPO))
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


def _variant(name, path):
    if name == "end-to-end":
        common.finish(end_to_end(path, pathlib.Path(path).parent / "out"))
    bvh, bvh_clip = _modules()
    common.reset_peak()
    before, _ = common.rss_mb()
    start = time.perf_counter()
    if name == "floor":
        pathlib.Path(path).read_bytes()
    elif name == "read":
        bvh.read_bvh(path)
    else:
        info = bvh.read_bvh(path)
        up = bvh.up_axis(info)
        scale = bvh.suggest_scale(info, up)[0]
        if name == "convert":
            start = time.perf_counter()
            common.reset_peak()
            before, _ = common.rss_mb()
            bvh_clip.clip_from_bvh(info, scale, up)
        elif name == "write":
            start = time.perf_counter()
            common.reset_peak()
            before, _ = common.rss_mb()
            bvh.write_bvh(pathlib.Path(path).with_suffix(".out.bvh"), info)
        elif name == "blender":
            import bpy

            bpy.ops.wm.read_homefile(use_empty=True)
            start = time.perf_counter()
            common.reset_peak()
            before, _ = common.rss_mb()
            bpy.ops.import_anim.bvh(filepath=str(path), global_scale=scale, update_scene_fps=True, **bvh.IMPORT_AXES[up])
    seconds = time.perf_counter() - start
    _, peak = common.rss_mb()
    common.finish({"seconds": seconds, "peak_mb": peak, "extra_mb": peak - before})


def end_to_end(path, out):
    """``python -m loopsmith make-loop BIG --range 1000 1100 --format bvh`` as a subprocess: wall seconds, its peak RSS (MB), exit code.

    Run it from a fresh process (``--variant end-to-end``), whose only child it is, so the peak is the command's own.
    """
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "loopsmith", "make-loop", str(path), "--range", "1000", "1100", "--format", "bvh", "--quiet",
                             "-o", str(out)], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    return {"seconds": seconds, "peak_mb": peak, "code": result.returncode, "stderr": result.stderr.strip()[-300:]}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant")
    parser.add_argument("--path")
    parser.add_argument("--frames", type=int, default=200_000)
    parser.add_argument("--skip-end-to-end", action="store_true")
    args = parser.parse_args()
    if args.variant:
        _variant(args.variant, args.path)
        return
    with tempfile.TemporaryDirectory(prefix="loopsmith-bench-bvh-") as folder:
        big, cut = pathlib.Path(folder) / "big.bvh", pathlib.Path(folder) / "cut.bvh"
        make_big(big, args.frames)
        make_big(cut, BASELINE_FRAMES)
        megabytes = big.stat().st_size / 1e6
        print(f"{args.frames} frames, {megabytes:.0f} MB (tiled {SOURCE.name})")
        results = {name: common.run_variant(__file__, name, "--path", big) for name in ("floor", "read", "convert", "write")}
        baseline = common.run_variant(__file__, "blender", "--path", cut)
        results["blender importer (x10 from 20k)"] = {"seconds": baseline["seconds"] * args.frames / BASELINE_FRAMES, "peak_mb": baseline["peak_mb"],
                                                      "extra_mb": baseline["extra_mb"] * args.frames / BASELINE_FRAMES}
        floor = results["floor"]["seconds"]
        for name, result in results.items():
            print(f"  {name:32s} {result['seconds']:8.2f} s  {result['seconds'] / floor:8.1f}x floor  peak {result['peak_mb']:7.0f} MB  "
                  f"(+{result['extra_mb']:.0f} MB)")
        if not args.skip_end_to_end:
            run = common.run_variant(__file__, "end-to-end", "--path", big)
            print(f"  make-loop --range 1000 1100 --format bvh: {run['seconds']:.1f} s, peak RSS {run['peak_mb']:.0f} MB, exit {run['code']} "
                  f"{run['stderr']}")


if __name__ == "__main__":
    main()
