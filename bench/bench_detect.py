"""Find Loop detection time on 1k, 10k and 100k frames x 60 bones, and how it grows.

A clip that repeats (a sum of periodic joint motions) so detection does its
whole work. Run: ``python bench/bench_detect.py`` (numpy only, no bpy needed).
"""

import pathlib
import sys
import time
import types

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import common  # noqa: E402
from core.motion import clip as clip_module, quat, rotation_modes
from core.loop import detect

CORE = types.SimpleNamespace(core=types.SimpleNamespace(motion=types.SimpleNamespace(clip=clip_module, quat=quat, rotation_modes=rotation_modes)))


def timed(frames, bones=60, repeats=3):
    clip = common.large_clip(CORE, bones, frames)
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        detection = detect.find_loops(clip)
        best = min(best, time.perf_counter() - start)
    return best, detection


def main():
    print("find-loop benchmark: 60 bones, periodic motion, best of 3")
    previous = None
    for frames in (1_000, 10_000, 100_000):
        seconds, detection = timed(frames)
        target = {10_000: " (target <= 0.3 s)", 100_000: " (target <= 3 s)"}.get(frames, "")
        growth = ""
        if previous is not None:
            n_log_n = (frames * np.log(frames)) / (previous[0] * np.log(previous[0]))
            growth = f", x{seconds / previous[1]:.1f} for x{frames // previous[0]} frames (n log n: x{n_log_n:.1f})"
        print(f"  {frames:>7,} frames: {seconds:.3f} s{target}{growth}; {len(detection.candidates)} candidates")
        previous = (frames, seconds)


if __name__ == "__main__":
    main()
