"""The graph's scan (pruned by its coarse bound, each pass in reused buffers) gives the graph of a plain float64 map of every
block, on the shared clips (core only).

The plain map is made here, block by block as the exhaustive scan lays
them out: float64 products of the same operands, each window summed frame
by frame, each entry's neighbourhood minimum taken from a sliding view.
"""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from core.formats import bvh, bvh_clip
from core.graph import build, scan

SHARED = ("bandai/dataset-1_walk_normal_001.bvh", "bandai/dataset-2_walk_normal_020.bvh", "bandai/dataset-1_run_happy_001.bvh",
          "bandai/dataset-2_run_normal_040.bvh", "bandai/dataset-1_walk-left_normal_001.bvh", "bandai/dataset-1_walk-right_normal_001.bvh",
          "bandai/dataset-1_walk-back_masculinity_001.bvh", "bandai/dataset-2_walk-turn-left_normal_007.bvh",
          "bandai-actions/dataset-1_walk_happy_001.bvh", "bandai-actions/dataset-1_dash_happy_001.bvh",
          "bandai-actions/dataset-2_walk-turn-right_normal_001.bvh")


def _clip(path):
    info = bvh.read_bvh(path)
    up = bvh.up_axis(info)
    return bvh_clip.clip_from_bvh(info, bvh.suggest_scale(info, up)[0], up)


def _plain_block(left, right, rows, cols, window, separation, threshold):
    """:func:`..core.graph.scan.scan_block` the plain way: float64, a sum per window frame, a view per neighbourhood."""
    (r0, r1), (c0, c1) = rows, cols
    s = separation
    product = left[r0 - s:r1 + s + window - 1].astype(float) @ right[c0 - s:c1 + s + window - 1].T.astype(float)
    size = np.array(product.shape) - window + 1
    sums = sum(product[t:t + size[0], t:t + size[1]] for t in range(window))
    lowest = sliding_window_view(sums, (2 * s + 1, 2 * s + 1)).min(axis=(2, 3))[:r1 - r0, :c1 - c0]
    centre = sums[s:s + r1 - r0, s:s + c1 - c0]
    i, j = np.nonzero((centre <= lowest) & (centre <= threshold))
    return i + r0, j + c0, np.maximum(centre[i, j], 0.0).astype(np.float32)


def test_the_graph_of_the_block_scan_is_the_graph_of_the_plain_float64_map(mocap_dir, monkeypatch):
    clips = [_clip(mocap_dir.parent / name) for name in SHARED]
    names = [name.split("/")[-1] for name in SHARED]
    fast = build.build_graph(clips, names)
    monkeypatch.setattr(scan, "scan_block", _plain_block)
    plain = build.build_graph(clips, names, prune=False)
    assert fast.nodes == plain.nodes
    assert [{k: v for k, v in e.items() if k != "cost"} for e in fast.edges] == [{k: v for k, v in e.items() if k != "cost"} for e in plain.edges]
    worst = max(abs(a["cost"] - b["cost"]) for a, b in zip(fast.edges, plain.edges))
    print(f"{len(fast.edges)} edges, costs within {worst:.2g}")
    assert worst <= 1e-6
    assert len(fast.edges) > 100 and fast.stats["coverage"] == plain.stats["coverage"]
