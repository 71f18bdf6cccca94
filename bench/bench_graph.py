"""Motion graph build at library scale against a bare GEMM, and against the transition engine's pair-by-pair search.

Targets: one hour of 30 fps mocap (30 takes x 3,600 frames, 22 joints) to
a graph in at most 25 s wall and 1.2x the time of one bare float32 GEMM
pass over the same frame features, measured in the same run; ten hours
with the distance blocks on a two-worker Dask cluster on localhost in at
most 12x the hour. The takes are made from the real Bandai clips (imported
once with Blender's BVH importer, then kept as arrays): each take strings
randomly chosen clips end to end, each resampled by a random speed factor
(0.85-1.15, nearest frame). "Reading" is building the Clips from those
arrays, timed with the build. The build runs twice: the pruned scan (the
default) and every block scanned (``prune=False``). The GEMM is
``(N, K + 2) @ (K + 2, N)`` in row blocks written into one reused buffer
(the N x N result cannot be held), over the build's own padded features.
The naive baseline runs :func:`..transition.distance.best_pairs` on every
pair of takes (10 minutes only). Each variant runs in its own process (its
peak memory read from the kernel, its CPU seconds from the process: on a
machine others load they say what wall time cannot); ``--rounds N``
interleaves GEMM and builds N times. ``--dask-minutes`` builds those sizes
with the blocks on ``LocalCluster(n_workers=2, threads_per_worker=1)``
through the ``--scheduler`` path, printing each worker's peak memory and
this process's (the client's and the scheduler's, which LocalCluster runs
here). BLAS threads are numpy's default (OPENBLAS_NUM_THREADS unset: 2 here).
Run: ``.venv/bpy-5.0.1/bin/python bench/bench_graph.py [--minutes 10 30 60] [--rounds 2] [--dask-minutes 600]``.
"""

import argparse
import os
import pathlib
import pickle
import sys
import tempfile
import time

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


def _takes(count, seed=0, clip_class=None):
    """``count`` takes of TAKE_FRAMES frames as Clips (``clip_class``, default the top-level core's), built from the pickled
    real clips."""
    import numpy as np

    from core.motion.clip import Clip

    Clip = clip_class or Clip
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


def _measured(run, repeats):
    """``common.measure``'s (best seconds, peak MB) and the least CPU seconds (all threads) a run took: on a machine others
    load, the CPU seconds say what the wall time cannot."""
    cpu = []

    def timed():
        started = time.process_time()
        run()
        cpu.append(time.process_time() - started)

    seconds, memory = common.measure(timed, repeats=repeats)
    return {"seconds": seconds, "memory_mb": memory, "cpu_seconds": min(cpu)}


def _worker_peak_mb():
    """This process's peak resident memory (MB): run in each Dask worker and in the scheduler's process."""
    return common.rss_mb()[1]


def dask_variant(takes):
    """The graph with its distance blocks on LocalCluster(n_workers=2, threads_per_worker=1) on 127.0.0.1, through the
    ``--scheduler`` path (:func:`pipeline.cluster.block_map`); peak memory of each worker and of this process (the scheduler's)."""
    import distributed

    package = pathlib.Path(tempfile.mkdtemp(prefix="loopsmith-bench-pkg-"))
    (package / "loopsmith").symlink_to(pathlib.Path(__file__).resolve().parents[1])
    sys.path.insert(0, str(package))  # the workers import the blocks' function from the package, as for --scheduler
    from loopsmith.core.graph import build
    from loopsmith.core.motion.clip import Clip
    from loopsmith.pipeline import cluster

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None,
                                  processes=True) as local, distributed.Client(local) as client:
        client.run(common.reset_peak)
        before = client.run(_worker_peak_mb)
        sizes = {}

        def run():
            clips = _takes(takes, clip_class=Clip)
            with cluster.block_map(local.scheduler_address) as map_blocks:
                graph = build.build_graph(clips, [f"take_{k:02d}" for k in range(takes)], map_blocks=map_blocks)
            sizes.update(nodes=len(graph.nodes), edges=len(graph.edges), transitions=graph.stats["transitions_after_pruning"])

        measured = _measured(run, 1)
        workers = {address: round(peak - before[address]) for address, peak in client.run(_worker_peak_mb).items()}
    common.finish({**measured, "scheduler_peak_mb": common.rss_mb()[1], "worker_peak_mb": workers, **sizes})


def variant(name, takes):
    import numpy as np

    from core.graph import build, scan
    from core.transition import distance

    if name == "dask":
        dask_variant(takes)
    if name in ("graph", "exhaustive"):
        def run():
            clips = _takes(takes)  # "reading": the clips built from arrays
            graph = build.build_graph(clips, [f"take_{k:02d}" for k in range(takes)], prune=name == "graph")
            run.stats = graph.stats
            run.sizes = (len(graph.nodes), len(graph.edges))

        common.finish({**_measured(run, 1), "nodes": run.sizes[0], "edges": run.sizes[1],
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

        common.finish({**_measured(run, 2), "frames": len(left), "width": left.shape[1]})
    # naive: the transition engine's block-wise best pairs on every pair of takes (both halves of the map)
    def run():
        for a in range(takes):
            for b in range(a, takes):
                distance.best_pairs(features[a], features[b], build.MIN_PER_PAIR, 9, 6)

    seconds, memory = common.measure(run, repeats=1)
    common.finish({"seconds": seconds, "memory_mb": memory})


def _load():
    return "load " + " ".join(f"{value:.1f}" for value in os.getloadavg())


def _one_size(minute, rounds):
    """GEMM and graph at ``minute`` minutes, interleaved ``rounds`` times; the best time of each and the run's line."""
    takes = max(1, round(minute * 60 * 30 / TAKE_FRAMES))
    runs = {"gemm": [], "graph": [], "exhaustive": []}
    loads = []
    for _ in range(rounds):
        loads.append(_load())
        for name, results in runs.items():
            results.append(common.run_variant(__file__, name, "--takes", takes))
    gemm, graph, exhaustive = (min(results, key=lambda r: r["seconds"]) for results in runs.values())
    print(f"  {minute:3d} min ({takes} takes, {takes * TAKE_FRAMES:,} frames, {graph['pairs']:.3g} window pairs):")
    print(f"      bare float32 GEMM pass ({gemm['frames']:,} x {gemm['width']}) @ ({gemm['width']} x {gemm['frames']:,}) "
          f"{gemm['seconds']:7.2f} s  peak +{gemm['memory_mb']:5.0f} MB")
    for name, made, what in (("graph", graph, "the pruned scan, the default"), ("exhaustive", exhaustive, "every block scanned")):
        each = ", ".join(f"x{b['seconds'] / a['seconds']:.2f}, CPU x{b['cpu_seconds'] / a['cpu_seconds']:.2f} ({load})"
                         for a, b, load in zip(runs["gemm"], runs[name], loads))
        print(f"      build_graph, {what} (clips from arrays, features, scan, graph) {made['seconds']:7.2f} s  "
              f"x{made['seconds'] / gemm['seconds']:4.2f} GEMM  peak +{made['memory_mb']:5.0f} MB  (each round: {each})")
    sizes = [tuple(made[key] for key in ("nodes", "edges", "transitions")) for made in (graph, exhaustive)]
    same = "both graphs of that size" if sizes[0] == sizes[1] else (
        "the exhaustive scan's graph {:,} nodes, {:,} edges, {:,} transitions: these takes repeat the same clips, whose equal "
        "windows float32 products of another shape rank apart (core/graph/prune.py); on takes that do not repeat, a difference "
        "would be a fault (tests/realdata/test_realdata_graph_scan.py)".format(*sizes[1]))
    print(f"      (targets at 60 min: <= 25 s, <= x1.20 GEMM; {same})")
    coverage = graph["coverage"]
    print(f"      graph: {graph['nodes']:,} nodes, {graph['edges']:,} edges, {graph['transitions']:,} transitions, threshold {graph['threshold']:.2f}, "
          f"covers {coverage['clips_kept']}/{coverage['clips']} takes, {coverage['frames_kept'] / coverage['frames']:.0%} of the frames")
    ratio = (f"{minute} min: build {graph['seconds']:.1f} s = x{graph['seconds'] / gemm['seconds']:.2f} GEMM, exhaustive "
             f"{exhaustive['seconds']:.1f} s = x{exhaustive['seconds'] / gemm['seconds']:.2f}")
    if minute <= 10:
        naive = common.run_variant(__file__, "naive", "--takes", takes)
        print(f"      naive: transition.distance.best_pairs on every pair of takes {naive['seconds']:7.2f} s "
              f"x{naive['seconds'] / graph['seconds']:4.2f} the build  peak +{naive['memory_mb']:5.0f} MB")
        ratio += f", naive x{naive['seconds'] / graph['seconds']:.2f} the build"
    return {"graph": graph, "exhaustive": exhaustive}, ratio


def _on_dask(minute, local):
    """The graph at ``minute`` minutes with its blocks on two local Dask workers; its line, against ``{minutes: local graph}``."""
    takes = max(1, round(minute * 60 * 30 / TAKE_FRAMES))
    load = _load()
    done = common.run_variant(__file__, "dask", "--takes", takes)
    workers = ", ".join(f"+{peak:,} MB" for peak in done["worker_peak_mb"].values())
    print(f"  {minute:3d} min on Dask (LocalCluster, 2 workers x 1 thread, 127.0.0.1; {takes} takes, {load}): {done['seconds']:7.2f} s, "
          f"{done['transitions']:,} transitions; peak per worker {workers}; this process (client and scheduler) "
          f"+{done['memory_mb']:,.0f} MB, {done['scheduler_peak_mb']:,.0f} MB in all")
    ratio = f"{minute} min on Dask {done['seconds']:.1f} s"
    for size, built in sorted(local.items()):
        for name, graph in built.items():
            ratio += f" = x{done['seconds'] / graph['seconds']:.1f} the {size} min {name} build"
            print(f"      x{done['seconds'] / graph['seconds']:.2f} the {size} min {name} build of this run (target at 600 min: <= x12 the 60 min one)")
    return ratio


def main(minutes, rounds, dask_minutes):
    if not ARRAYS.exists():
        result = __import__("subprocess").run([sys.executable, __file__, "--import-clips"], capture_output=True, text=True)
        if result.returncode != 0 or not ARRAYS.exists():
            raise SystemExit(f"could not import the real clips from {MOCAP}:\n{result.stderr[-2000:]}")
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "unset (numpy's default)")
    print(f"motion graph benchmark: takes of {TAKE_FRAMES:,} frames made from the real clips, 22 joints; BLAS threads: {threads}")
    ratios, local = [], {}
    for minute in minutes:
        local[minute], ratio = _one_size(minute, rounds)
        ratios.append(ratio)
    ratios += [_on_dask(minute, local) for minute in dask_minutes]
    print("ratios: " + "; ".join(ratios))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant")
    parser.add_argument("--takes", type=int)
    parser.add_argument("--minutes", type=int, nargs="+", default=[10, 30, 60])
    parser.add_argument("--rounds", type=int, default=1, help="GEMM and graph interleaved this many times per size (best of each)")
    parser.add_argument("--dask-minutes", type=int, nargs="*", default=[], help="sizes also built with the blocks on 2 local Dask workers")
    parser.add_argument("--import-clips", action="store_true")
    args = parser.parse_args()
    if args.import_clips:
        _import_real_clips()
        common.finish({})
    elif args.variant:
        variant(args.variant, args.takes)
    else:
        main(args.minutes, args.rounds, args.dask_minutes)
