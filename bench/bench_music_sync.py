"""compose with and without --music, in-process core calls on shared clips: the composition's time, the same plus the
sync (keyposes, warp, warped clip, the report's numbers), and the ratio (target: the sync adds at most 20%).

The song's beats are a synthesized 120 BPM grid (beat tracking has its own benchmark, bench_beats.py). Run:
``python bench/bench_music_sync.py [--repeat N]`` (numpy only; the shared mocap folder beside the checkout, or LOOPSMITH_MOCAP).
"""

import argparse
import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.compose import sequence  # noqa: E402
from core.formats import bvh, bvh_clip  # noqa: E402
from core.music import keyposes, perform  # noqa: E402

MOCAP = pathlib.Path(os.environ.get("LOOPSMITH_MOCAP", ROOT.parent / "shared" / "mocap"))
COMPOSITIONS = {"walk+walk": ("dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh"),
                "walk+run+walk": ("dataset-1_walk_normal_001.bvh", "dataset-1_run_happy_001.bvh", "dataset-2_walk_normal_020.bvh")}
BEATS = 0.25 + np.arange(240) * 0.5  # 120 BPM for two minutes


def _clip(name):
    info = bvh.read_bvh(MOCAP / "bandai" / name)
    up = bvh.up_axis(info)
    return bvh_clip.clip_from_bvh(info, bvh.suggest_scale(info, up)[0], up)


def _best(function, repeat):
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return min(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, the fastest kept (default 3)")
    repeat = parser.parse_args().repeat
    print(f"{'composition':<16}{'compose (s)':>13}{'+ sync (s)':>12}{'sync alone (s)':>16}{'ratio':>8}  on the beat")
    for name, files in COMPOSITIONS.items():
        pieces = [sequence.Piece(_clip(file), name=file) for file in files]
        plain, composed = _best(lambda: sequence.compose(pieces), repeat)

        def synced():
            found, windows = keyposes.find_keyposes(composed.clip), [t.window for t in composed.transitions]
            warped, result = perform.sync_performance(composed.clip, BEATS, seconds=None, name=name, found=found, windows=windows)
            return perform.measure_sync(composed.clip, warped, result, windows, found)

        sync_seconds, numbers = _best(synced, repeat)
        print(f"{name:<16}{plain:>13.2f}{plain + sync_seconds:>12.2f}{sync_seconds:>16.3f}{(plain + sync_seconds) / plain:>8.2f}  "
              f"{numbers['on_beat_before']:.0%} -> {numbers['on_beat_after']:.0%}")


if __name__ == "__main__":
    main()
