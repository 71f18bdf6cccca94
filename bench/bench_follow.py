"""Following paths with the real Bandai walks, runs and turns: per path, the root's distance to it, the end, the feet and the
junctions, and how long planning takes.

Targets: the root at most 5 cm from the path on average and 15 cm at most, the end within 20 cm facing along it, toe skating
at most 1.1x the clips' own over the frames played, every junction no more visible than its clips (1.0), 60 s of motion
planned in at most 2 s. Libraries: five clips (two walks, a run, a walk turning left, one turning right), two walks alone
(for a path longer than the library's travel) and walks with clips that stand (a wave, a bow: lines of 4, 5 and 6 m, a bend and
a curve each end standing). Clips are read by the numpy BVH reader. Planning is timed alone (best of
three), the whole run (planning, rendering through the composition engine, the root laid along the path, feet re-planted)
once. Run: ``.venv/core/bin/python bench/bench_follow.py``.
"""

import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from core.formats import bvh, bvh_clip  # noqa: E402
from core.graph import build_graph, follow  # noqa: E402

MOCAP = pathlib.Path(__file__).resolve().parents[2] / "shared" / "mocap"
LIBRARY = ("bandai/dataset-1_walk_normal_001", "bandai/dataset-2_walk_normal_020", "bandai/dataset-1_run_happy_001",
           "bandai/dataset-2_walk-turn-left_normal_007", "bandai-actions/dataset-2_walk-turn-right_normal_001")
STANDING = LIBRARY[:2] + ("bandai/dataset-2_wave-right-hand_normal_021", "bandai-actions/dataset-1_bow_normal_001",
                          "bandai-actions/dataset-1_walk_happy_001")  # walks and clips that stand: a standing end


def _graph(names):
    clips = [bvh_clip.clip_from_bvh(bvh.read_bvh(MOCAP / f"{name}.bvh"), 0.01, "Y") for name in names]
    return build_graph(clips, [name.split("/")[1] for name in names]), clips


def _paths():
    arc = np.radians(np.linspace(0.0, 70.0, 40))
    eight = np.linspace(0.0, 2 * np.pi, 120)
    return {
        "straight 5 m": np.array([[0.0, 0.0], [5.0, 1.0]]),
        "curve r 5 m, 70 deg": np.stack([5 * np.sin(arc), 5 - 5 * np.cos(arc)], axis=1),
        "S 8 m": np.stack([np.linspace(0.0, 8.0, 60), 1.2 * np.sin(np.linspace(0.0, 2 * np.pi, 60))], axis=1),
        "square 2.5 m": np.array([[0.0, 0.0], [2.5, 0.0], [2.5, 2.5], [0.0, 2.5], [0.0, 0.2]]),
        "figure eight 5 x 3 m": np.stack([2.5 * np.sin(eight), 1.5 * np.sin(2 * eight)], axis=1),
    }


def _row(name, made):
    n = made.numbers
    print(f"{name:24s} {n['deviation_mean_m'] * 100:5.1f} {n['deviation_max_m'] * 100:5.1f} {n['end_error_m'] * 100:5.1f} "
          f"{n['end_facing_error_deg']:5.1f} {n['toe_skating_m_s'] / n['clips_toe_skating_m_s']:6.2f} "
          f"{n['toe_skating_m_s'] / n['rendered_toe_skating_m_s']:6.2f} {n['worst_junction_visibility']:6.3f} "
          f"{n['planning_s']:6.3f} {n['seconds']:6.1f} {n['duration_s']:5.1f}  {'stand' if n['ends_standing'] else 'walk ':5s} "
          f"{len(made.corners)} corners named")


def main():
    print("path                     mean   max   end  face  skate  x rend  junct   plan s  all s  dur s  ends   (cm, deg, ratios)")
    graph, clips = _graph(LIBRARY)
    for name, points in _paths().items():
        _row(name, follow.follow(graph, clips, points))
    walks, walk_clips = _graph(LIBRARY[:2])
    _row("19 m on two walks", follow.follow(walks, walk_clips, np.array([[0.0, 0.0], [10.0, 0.0], [19.0, 2.5]])))
    standing, standing_clips = _graph(STANDING)
    stops = {"straight 5 m": _paths()["straight 5 m"], "line 4 m": np.array([[0.0, 0.0], [4.0, 0.0]]),
             "line 6 m": np.array([[0.0, 0.0], [6.0, 0.0]]), "bend 45 deg": np.array([[0.0, 0.0], [3.0, 0.0], [5.0, 2.0]]),
             "curve r 5 m": _paths()["curve r 5 m, 70 deg"]}
    for name, points in stops.items():
        _row(f"{name}, to stand", follow.follow(standing, standing_clips, points))
    minute = np.array([[0.0, 0.0], [40.0, 0.0], [40.0, 30.0]])
    for label, (g, c) in (("five clips", (graph, clips)), ("two walks", (walks, walk_clips)), ("standing end", (standing, standing_clips))):
        timings, seconds = [], 0.0
        for _ in range(3):
            started = time.perf_counter()
            _, walk, *_ = follow.plan(g, c, minute)
            timings.append(time.perf_counter() - started)
            seconds = sum(edge["frames"] for edge in walk) / g.settings["fps"]
        print(f"planning 70 m ({label}): {seconds:.1f} s of motion in {min(timings):.3f} s (best of 3); "
              f"{min(timings) / seconds * 60:.3f} s per minute")


if __name__ == "__main__":
    main()
