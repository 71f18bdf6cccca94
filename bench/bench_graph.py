"""Motion graph build at library scale against a bare GEMM, and against the transition engine's pair-by-pair search.

Targets: one hour of 30 fps mocap (30 takes x 3,600
frames, 22 joints) to a graph in at most 90 s wall, and in at most 3x the
time of one bare float32 GEMM pass over the same frame features, measured
in the same run. The takes are made from the real Bandai clips (imported
once with Blender's BVH importer, then kept as arrays): each take strings
randomly chosen clips end to end, each resampled by a random speed factor
(0.85-1.15, nearest frame). "Reading" is building the Clips from those
arrays, timed with the build. The GEMM is ``(N, K + 2) @ (K + 2, N)`` in row
blocks written into one reused buffer (the N x N result cannot be held),
over the build's own padded features. The naive baseline runs
:func:`..transition.distance.best_pairs` on every pair of takes (10 minutes
only). Each variant runs in its own process (its peak memory read from the
kernel); BLAS threads are numpy's default (OPENBLAS_NUM_THREADS unset: 2 here).
Run: ``.venv/bpy-5.0.1/bin/python bench/bench_graph.py [--minutes 10 30 60]``.
"""

import argparse
import os
import pathlib
import pickle
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import common  # noqa: E402

TAKE_FRAMES = 3600
MOCAP = pathlib.Path(os.environ.get("LOOPSMITH_MOCAP", pathlib.Path(__file__).resolve().parents[2] / "shared" / "mocap"))
ARRAYS = pathlib.Path(tempfile.gettempdir()) / "loopsmith-bench-graph-clips.pkl"
_FIELDS = ("fps", "frames", "bone_names", "parents", "rest", "location", "rotation", "scale", "rotation_modes")


def _import_real_clips():
    """Every real clip of 60 frames or more as plain arrays, imported once through Blender (pickled for the variants)."""
    import bpy

    import dev_extension  # tools/, on the path through common

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
    from helpers import import_bvh

    ext, disable = dev_extension.enable(("core.motion.clip", "bridge.clip_io"))
    arrays = []
    for path in sorted(MOCAP.glob("bandai*/*.bvh")):
        bpy.ops.wm.read_homefile(use_empty=True)
        clip = ext.bridge.clip_io.read_clip(import_bvh(path))
        if clip.num_frames >= 60:
            arrays.append({name: getattr(clip, name) for name in _FIELDS})
    ARRAYS.write_bytes(pickle.dumps(arrays))
    disable()


def _takes(count, seed=0):
    """``count`` takes of TAKE_FRAMES frames as Clips, built from the pickled real clips."""
    import numpy as np

    from core.motion.clip import Clip

    sources = [Clip(**fields) for fields in pickle.loads(ARRAYS.read_bytes())]
    rng = np.random.default_rng(seed)
    takes = []
    for _ in range(count):
        parts, frames = [], 0
        while frames < TAKE_FRAMES:
            source = sources[int(rng.integers(len(sources)))]
            index = np.round(np.arange(0, source.num_frames - 1, rng.uniform(0.85, 1.15))).astype(int)
            parts.append(source.take_frames(index))
            frames += len(index)
        first = parts[0]
        takes.append(first.with_channels(frames=np.arange(1, TAKE_FRAMES + 1, dtype=float),
                                         location=np.concatenate([p.location for p in parts])[:TAKE_FRAMES],
                                         rotation=np.concatenate([p.rotation for p in parts])[:TAKE_FRAMES],
                                         scale=np.concatenate([p.scale for p in parts])[:TAKE_FRAMES]))
    return takes


def variant(name, takes):
    import numpy as np

    from core.graph import build, scan
    from core.transition import distance

    if name == "graph":
        def run():
            clips = _takes(takes)  # "reading": the clips built from arrays
            graph = build.build_graph(clips, [f"take_{k:02d}" for k in range(takes)])
            run.stats = graph.stats
            run.sizes = (len(graph.nodes), len(graph.edges))

        seconds, memory = common.measure(run, repeats=1)
        common.finish({"seconds": seconds, "memory_mb": memory, "nodes": run.sizes[0], "edges": run.sizes[1],
                       "threshold": run.stats["threshold"], "transitions": run.stats["transitions_after_pruning"],
                       "frames_in_graph": run.stats["frames_in_graph"], "library_frames": run.stats["library_frames"],
                       "pairs": run.stats["pairs_compared"], "coverage": run.stats["coverage"]})
    clips = _takes(takes)
    features, _ = build.library_features(clips)
    if name == "gemm":
        window, separation = 9, 6
        left, right, _ = scan.padded_features(features, window - 1 + separation)
        rows = scan.BLOCK
        out = np.empty((rows, len(right)), dtype=np.float32)

        def run():
            for r0 in range(0, len(left), rows):
                block = left[r0:r0 + rows]
                np.matmul(block, right.T, out=out[:len(block)])

        seconds, memory = common.measure(run, repeats=2)
        common.finish({"seconds": seconds, "memory_mb": memory, "frames": len(left), "width": left.shape[1]})
    # naive: the transition engine's block-wise best pairs on every pair of takes (both halves of the map)
    def run():
        for a in range(takes):
            for b in range(a, takes):
                distance.best_pairs(features[a], features[b], build.MIN_PER_PAIR, 9, 6)

    seconds, memory = common.measure(run, repeats=1)
    common.finish({"seconds": seconds, "memory_mb": memory})


def main(minutes):
    if not ARRAYS.exists():
        result = __import__("subprocess").run([sys.executable, __file__, "--import-clips"], capture_output=True, text=True)
        if result.returncode != 0 or not ARRAYS.exists():
            raise SystemExit(f"could not import the real clips from {MOCAP}:\n{result.stderr[-2000:]}")
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "unset (numpy's default)")
    print(f"motion graph benchmark: takes of {TAKE_FRAMES:,} frames made from the real clips, 22 joints; BLAS threads: {threads}")
    ratios = []
    for minute in minutes:
        takes = max(1, round(minute * 60 * 30 / TAKE_FRAMES))
        gemm = common.run_variant(__file__, "gemm", "--takes", takes)
        graph = common.run_variant(__file__, "graph", "--takes", takes)
        print(f"  {minute:3d} min ({takes} takes, {takes * TAKE_FRAMES:,} frames, {graph['pairs']:.3g} window pairs):")
        print(f"      bare float32 GEMM pass ({gemm['frames']:,} x {gemm['width']}) @ ({gemm['width']} x {gemm['frames']:,}) "
              f"{gemm['seconds']:7.2f} s  peak +{gemm['memory_mb']:5.0f} MB")
        print(f"      build_graph (clips from arrays, features, scan, graph) {graph['seconds']:7.2f} s  x{graph['seconds'] / gemm['seconds']:4.2f} GEMM"
              f"  peak +{graph['memory_mb']:5.0f} MB  (targets at 60 min: <= 90 s, <= x3.00)")
        coverage = graph["coverage"]
        print(f"      graph: {graph['nodes']:,} nodes, {graph['edges']:,} edges, {graph['transitions']:,} transitions, threshold {graph['threshold']:.2f}, "
              f"covers {coverage['clips_kept']}/{coverage['clips']} takes, {coverage['frames_kept'] / coverage['frames']:.0%} of the frames")
        ratio = f"{minute} min: build {graph['seconds']:.1f} s = x{graph['seconds'] / gemm['seconds']:.2f} GEMM"
        if minute <= 10:
            naive = common.run_variant(__file__, "naive", "--takes", takes)
            print(f"      naive: transition.distance.best_pairs on every pair of takes {naive['seconds']:7.2f} s "
                  f"x{naive['seconds'] / graph['seconds']:4.2f} the build  peak +{naive['memory_mb']:5.0f} MB")
            ratio += f", naive x{naive['seconds'] / graph['seconds']:.2f} the build"
        ratios.append(ratio)
    print("ratios: " + "; ".join(ratios))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant")
    parser.add_argument("--takes", type=int)
    parser.add_argument("--minutes", type=int, nargs="+", default=[10, 30, 60])
    parser.add_argument("--import-clips", action="store_true")
    args = parser.parse_args()
    if args.import_clips:
        _import_real_clips()
        common.finish({})
    elif args.variant:
        variant(args.variant, args.takes)
    else:
        main(args.minutes)
