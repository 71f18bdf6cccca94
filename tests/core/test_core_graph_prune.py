"""The pruned scan: its coarse bound never exceeds a windowed distance, and the graph it builds is the exhaustive scan's."""

import numpy as np

from core.graph import build, prune, scan
from helpers import walker_library


def test_the_coarse_bound_is_below_every_windowed_distance_outliers_and_padding_included():
    rng = np.random.default_rng(5)
    window, separation = 9, 6
    features = [np.cumsum(rng.normal(size=(frames, 30)), axis=0).astype(np.float32) * 0.1 for frames in (80, 57, 120)]
    features[1][20] += 40.0  # a glitch: one frame far from everything (its window's rounding allowance is large)
    left, right, _ = scan.padded_features(features, window - 1 + separation)
    bound_left, bound_right = prune.window_operands(right, window, dims=3)
    bound = bound_left.astype(float) @ bound_right.T.astype(float)
    product = left.astype(float) @ right.T.astype(float)
    size = len(left) - window + 1
    distance = sum(product[t:t + size, t:t + size] for t in range(window))
    inside = distance < scan.PAD_NORM / 2  # windows wholly inside a clip
    assert (bound[inside] <= distance[inside]).all()
    assert (bound[~inside] >= scan.PAD_NORM / 2).all()  # a window reaching into padding is never a candidate
    assert np.median(bound[inside] / np.maximum(distance[inside], 1e-9)) > 0.5  # and the bound is not a trivial one


def test_the_pruned_graph_is_the_exhaustive_one_with_most_tiles_skipped(monkeypatch):
    clips = walker_library(200, 3)  # two walks and a third like the first: pairs with matches far below their ceiling
    names = ["walk_a", "walk_b", "walk_c"]
    exhaustive = build.build_graph(clips, names, prune=False)
    scanned, scan_pair = [], scan.scan_pair
    monkeypatch.setattr(prune, "TILE", 12)
    monkeypatch.setattr(prune, "BATCH", 2)  # few tiles ahead of the limits: a small library is all ahead otherwise
    monkeypatch.setattr(scan, "scan_pair", lambda shared, pair: scanned.append(pair) or scan_pair(shared, pair))
    pruned = build.build_graph(clips, names)
    # The same edges; costs within float32's rounding (a tile's product and a block's may take other BLAS kernels).
    assert pruned.nodes == exhaustive.nodes
    assert [dict(e, cost=0) for e in pruned.edges] == [dict(e, cost=0) for e in exhaustive.edges]
    assert max(abs(a["cost"] - b["cost"]) for a, b in zip(pruned.edges, exhaustive.edges)) <= 1e-6
    assert pruned.stats["left_out"] == exhaustive.stats["left_out"]
    rows = -(-(sum(clip.num_frames for clip in clips) + 4 * 20) // 12)  # tiles along the padded library's side
    tiles = rows * (rows + 1) // 2
    print(f"{len(scanned)} of {tiles} tiles scanned")
    assert 0 < len(scanned) < tiles / 3


def test_a_map_of_the_callers_gets_the_tiles_in_bigger_batches_and_the_same_graph(monkeypatch):
    """Each call of a cluster's map is a task, which costs its scheduler and client a few ms: the tiles go to it
    :data:`prune.CLUSTER_BATCH` at a time (a local map takes :data:`prune.BATCH`), and the graph is the local one."""
    clips = walker_library(200, 3)
    names = ["walk_a", "walk_b", "walk_c"]
    monkeypatch.setattr(prune, "TILE", 12)
    local = build.build_graph(clips, names)
    monkeypatch.setattr(prune, "CLUSTER_BATCH", 8)
    sizes = {}

    def sequential(function, shared, batches):
        for batch in batches:
            sizes.setdefault(shared[0].__name__, []).append(len(batch))
            yield function(shared, batch)

    mapped = build.build_graph(clips, names, map_blocks=sequential)
    assert (mapped.nodes, mapped.edges, mapped.stats["left_out"]) == (local.nodes, local.edges, local.stats["left_out"])
    assert max(sizes["tile_minima"]) <= 2 and max(sizes["scan_pair"]) == 8 and len(sizes["scan_pair"]) > 1  # coarse blocks: a quarter
