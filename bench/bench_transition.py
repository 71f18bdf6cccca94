"""Transition matching: the distance map against a bare GEMM, the block-wise best pairs, the time warp.

Targets: the distance map of 10,000 x 10,000 frames x
22 joints in at most 2x the time of a bare float32 GEMM of the same shape,
measured in the same run; the time warp over a 600 x 600 region in at most
0.2 s. Features are real pose features of the demo walker (22 joints:
positions and velocities, 132 numbers per frame). Each variant runs in its
own process so its peak memory can be read.
Run: ``python bench/bench_transition.py`` (numpy only, no bpy needed).
"""

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import common  # noqa: E402
from core import demo  # noqa: E402
from core.transition import distance, timewarp
from core.motion import features

FRAMES = 10_000
WINDOW = 9  # 0.3 s at 30 fps, the transition points' default


def _features():
    """Pose features ``(FRAMES, 132)`` float32 of two different walks."""
    walk = demo.walk_cycle(num_frames=FRAMES, seed=1).clip
    run = demo.walk_cycle(num_frames=FRAMES, period_seconds=0.77, speed=2.0, seed=2).clip
    return features.pose_features(walk), features.pose_features(run)


def variant(name):
    fa, fb = _features()
    if name == "gemm":
        seconds, memory = common.measure(lambda: fa @ fb.T)
    elif name == "map":
        seconds, memory = common.measure(lambda: distance.distance_map(fa, fb))
    elif name == "map_windowed":
        seconds, memory = common.measure(lambda: distance.distance_map(fa, fb, WINDOW), repeats=2)
    elif name == "best_pairs":
        seconds, memory = common.measure(lambda: distance.best_pairs(fa, fb, 8, WINDOW, 6), repeats=2)
    else:
        d = distance.distance_map(fa[:600], fb[:600], WINDOW)[:600, :600]
        seconds, memory = common.measure(lambda: timewarp.time_warp(d))
    common.finish({"seconds": seconds, "memory_mb": memory})


def main():
    print(f"transition matching benchmark: {FRAMES:,} x {FRAMES:,} frames, 22 joints (132 features), best of 3 (2 for the windowed runs)")
    results = {name: common.run_variant(__file__, name) for name in ("gemm", "map", "map_windowed", "best_pairs", "warp")}
    gemm = results["gemm"]["seconds"]

    def line(name, label, target=""):
        r = results[name]
        print(f"  {label:<40} {r['seconds']:7.3f} s  x{r['seconds'] / gemm:4.2f} GEMM  peak +{r['memory_mb']:6.0f} MB{target}")

    line("gemm", "bare float32 GEMM (10k x 132) @ (132 x 10k)")
    line("map", "distance_map, window 1", " (target <= x2.00 GEMM)")
    line("map_windowed", f"distance_map, window {WINDOW}")
    line("best_pairs", f"best_pairs, window {WINDOW}, 8 minima")
    print(f"  {'time_warp over 600 x 600':<40} {results['warp']['seconds']:7.3f} s  (target <= 0.2 s)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant")
    args = parser.parse_args()
    if args.variant:
        variant(args.variant)
    else:
        main()
