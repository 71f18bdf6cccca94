"""Big AMC files: the Acclaim reader against the numpy BVH reader, per value read.

A 100,000-frame AMC is made in a temporary folder by tiling CMU's ``05_02.amc``
(its text, frames renumbered), and a BVH of as many frames by tiling the
reference conversion of ``05_01``. Each step runs in a fresh process, so its
peak memory is its own: the raw read of each file (the floor),
``acclaim.read_amc`` (with ``read_asf``), the AMC read plus
``clip_from_acclaim``, and ``bvh.read_bvh``. Run:
``.venv/core/bin/python bench/bench_acclaim.py [--frames N]``.
"""

import argparse
import dataclasses
import pathlib
import sys
import tempfile
import time

import common

REPO = pathlib.Path(__file__).resolve().parents[1]
CMU = REPO.parent / "shared" / "mocap" / "cmu-dance"


def _modules():
    sys.path.insert(0, str(REPO))
    from core.formats import acclaim, bvh

    return acclaim, bvh


def make_amc(path, frames):
    """An AMC of ``frames`` frames: 05_02's frames one after another, numbered 1 to ``frames``."""
    lines = (CMU / "05_02.amc").read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if line.strip().isdigit())
    blocks, block = [], []
    for line in lines[first + 1:]:
        if line.strip().isdigit():
            blocks.append("\n".join(block) + "\n")
            block = []
        else:
            block.append(line)
    blocks.append("\n".join(block) + "\n")
    with open(path, "w") as file:
        file.write("\n".join(lines[:first]) + "\n")
        for start in range(0, frames, 10_000):  # a piece at a time: the text never sits whole in memory
            file.write("".join(f"{number + 1}\n{blocks[number % len(blocks)]}" for number in range(start, min(frames, start + 10_000))))


def make_bvh(path, frames):
    """A BVH of ``frames`` frames: the reference conversion of 05_01 tiled."""
    import numpy as np

    _, bvh = _modules()
    info = bvh.read_bvh(CMU / "reference_05_01.bvh")
    motion = np.tile(info.motion, (-(-frames // info.frame_count), 1))[:frames]
    bvh.write_bvh(path, dataclasses.replace(info, motion=motion))


def _variant(name, path):
    acclaim, bvh = _modules()
    common.reset_peak()
    before, _ = common.rss_mb()
    start = time.perf_counter()
    if name.startswith("floor"):
        pathlib.Path(path).read_bytes()
        values = 0
    elif name == "amc":
        values = acclaim.read_amc(path, acclaim.read_asf(CMU / "05.asf")).values.size
    elif name == "amc+clip":
        skeleton = acclaim.read_asf(CMU / "05.asf")
        motion = acclaim.read_amc(path, skeleton)
        acclaim.clip_from_acclaim(skeleton, motion)
        values = motion.values.size
    else:
        values = bvh.read_bvh(path).motion.size
    seconds = time.perf_counter() - start
    _, peak = common.rss_mb()
    common.finish({"seconds": seconds, "values": values, "peak_mb": peak, "extra_mb": peak - before})


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant")
    parser.add_argument("--path")
    parser.add_argument("--frames", type=int, default=100_000)
    args = parser.parse_args()
    if args.variant:
        _variant(args.variant, args.path)
        return
    with tempfile.TemporaryDirectory(prefix="loopsmith-bench-acclaim-") as folder:
        amc, bvh_path = pathlib.Path(folder) / "big.amc", pathlib.Path(folder) / "big.bvh"
        make_amc(amc, args.frames)
        make_bvh(bvh_path, args.frames)
        print(f"{args.frames} frames: AMC {amc.stat().st_size / 1e6:.0f} MB (tiled 05_02.amc), BVH {bvh_path.stat().st_size / 1e6:.0f} MB "
              f"(tiled reference_05_01.bvh)")
        runs = [("floor (raw AMC bytes)", "floor", amc), ("acclaim.read_amc", "amc", amc), ("read_amc + clip_from_acclaim", "amc+clip", amc),
                ("floor (raw BVH bytes)", "floor", bvh_path), ("bvh.read_bvh", "bvh", bvh_path)]
        results = {label: common.run_variant(__file__, variant, "--path", path) for label, variant, path in runs}
        for label, result in results.items():
            per_value = f"{1e9 * result['seconds'] / result['values']:7.1f} ns/value" if result["values"] else " " * 16
            print(f"  {label:30s} {result['seconds']:7.2f} s  {per_value}  peak {result['peak_mb']:6.0f} MB (+{result['extra_mb']:.0f} MB)")
        amc_rate = results["acclaim.read_amc"]["seconds"] / results["acclaim.read_amc"]["values"]
        bvh_rate = results["bvh.read_bvh"]["seconds"] / results["bvh.read_bvh"]["values"]
        print(f"  per value, AMC reader / BVH reader: {amc_rate / bvh_rate:.2f} (below 1: the AMC reader is faster)")
        print(f"  peak extra memory / file size: AMC {results['acclaim.read_amc']['extra_mb'] * 1e6 / amc.stat().st_size:.2f}, "
              f"BVH {results['bvh.read_bvh']['extra_mb'] * 1e6 / bvh_path.stat().st_size:.2f}")


if __name__ == "__main__":
    main()
