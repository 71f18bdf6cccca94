"""Motion graphs on synthetic walkers: the block scan, the threshold rule, pruning, bounded memory, JSON, walks and paths."""

import json
import tracemalloc

import numpy as np
import pytest

from core import demo
from core.errors import GraphError
from core.formats.graph_json import graph_from_json, graph_to_json
from core.graph import build, path_via, random_walk, render, scan
from core.transition import distance
from helpers import strongly_connected, walker_library

NAMES = ["walk_a", "walk_b", "walk_short"]


@pytest.fixture(scope="module")
def library():
    """Two walkers of 200 frames (other gait periods and noise) and one of 60: too short to leave once a transition lands in it."""
    return walker_library(60, 4)


@pytest.fixture(scope="module")
def graph(library):
    return build.build_graph(library, NAMES)


def test_scan_finds_exactly_the_local_minima_of_the_windowed_map():
    rng = np.random.default_rng(3)
    window, separation = 5, 3
    features = [np.cumsum(rng.normal(size=(frames, 7)), axis=0).astype(np.float32) for frames in (40, 23, 61)]
    left, right, starts = scan.padded_features(features, window - 1 + separation)
    i, j, costs = scan.scan(left, right, window, separation, 1e9, lambda *found: found, block=12)
    # The whole padded map by plain float64 products, and its local minima by brute force.
    product = left.astype(float) @ right.T.astype(float)
    size = len(left) - window + 1
    full = sum(product[k:k + size, k:k + size] for k in range(window))
    expected = {(a, b): full[a, b] for a in range(separation, size - separation) for b in range(a + 1, size - separation)
                if full[a, b] < 1e9 and full[a, b] <= full[a - separation:a + separation + 1, b - separation:b + separation + 1].min()}
    found = {(a, b): cost for a, b, cost in zip(i, j, costs) if a < b}
    assert set(found) == set(expected)
    assert max(abs(found[pair] - expected[pair]) for pair in found) < 1e-3 * max(expected.values())
    # A window never matches across a cut between clips.
    cut = starts[1] - 1
    assert not any(a <= cut < a + window - 1 or b <= cut < b + window - 1 for a, b in found)


def test_threshold_is_the_percentile_of_the_library_distances(library, graph):
    features, _ = build.library_features(library)
    window = graph.settings["window_frames"]
    left, right, starts = scan.padded_features(features, window - 1 + graph.settings["separation_frames"])
    layout = build._Layout([len(f) for f in features], starts, window, graph.settings["blend_frames"], graph.settings["hold_frames"],
                           graph.settings["min_jump_frames"], 30.0)
    # Fewer windows than SAMPLE_WINDOWS: the statistics cover every pair, so they can be checked against whole distance maps.
    everything = []
    for a, fa in enumerate(features):
        for b, fb in enumerate(features[a:], a):
            whole = distance.distance_map(fa, fb, window).astype(float)
            rows, cols = np.indices(whole.shape)
            keep = (rows < cols) & (cols - rows >= layout.min_jump) if a == b else np.ones(whole.shape, dtype=bool)
            everything.append(whole[keep])
    everything = np.concatenate(everything)
    sampled = build.distance_statistics(left, right, layout)
    assert len(sampled) == len(everything)
    assert np.allclose(np.sort(sampled), np.sort(everything), rtol=1e-4, atol=1e-3)
    assert graph.stats["threshold"] == pytest.approx(np.percentile(everything, build.THRESHOLD_PERCENTILE), rel=1e-4)
    assert graph.stats["rule"].startswith("per clip pair")
    # Each clip's threshold: the percentile of the distances with one window in it, never below the library's.
    values, clip_a, clip_b = build.distance_statistics(left, right, layout, with_clips=True)
    for clip, threshold in enumerate(graph.stats["clip_thresholds"]):
        own = values[(clip_a == clip) | (clip_b == clip)]
        assert threshold == pytest.approx(max(np.percentile(own, build.THRESHOLD_PERCENTILE), graph.stats["threshold"]), rel=1e-4)
    assert sum(graph.stats["histogram"]["counts"]) == len(everything)
    transitions = [edge["cost"] for edge in graph.edges if edge["kind"] == "transition"]
    assert transitions and 0.0 <= min(transitions) and max(transitions) <= 1.0
    # A given threshold is used as given, for every pair: at the median transition's distance, about half the candidates stay.
    median = float(np.median(transitions)) * graph.stats["threshold"]
    tight = build.build_graph(library, NAMES, threshold=median)
    assert tight.stats["rule"] == "given" and tight.stats["threshold"] == median and set(tight.stats["clip_thresholds"]) == {round(median, 6)}
    assert tight.stats["candidates"] < graph.stats["candidates"]
    with pytest.raises(GraphError, match="threshold"):
        build.build_graph(library, NAMES, threshold=-1.0)


def test_graph_is_strongly_connected_and_the_dead_end_clip_is_pruned(graph):
    assert strongly_connected(len(graph.nodes), graph.edges)
    clips = {node["clip"] for node in graph.nodes}
    assert clips == {0, 1}  # walk_short: a transition lands in it too late to leave it again
    # Coverage, and what is left out named with its reason and what would bring it in.
    coverage = graph.stats["coverage"]
    assert coverage["clips_kept"] == 2 and coverage["clips"] == 3 and coverage["frames"] == 460
    assert graph.stats["frames_in_graph"] <= coverage["frames_kept"] <= 400
    (left_out,) = graph.stats["left_out"]
    assert left_out["name"] == "walk_short" and left_out["reason"].startswith("too short: 60 frames")
    assert left_out["include"] == "a take of at least 64 frames (2.1 s)"
    # Clip edges play consecutive nodes of one clip; transitions land a blend and a hold after their frame in the other clip:
    # the graph's blend, or where a clip's end leaves no room for it one of the engine's shorter lengths.
    blend, hold = graph.settings["blend_frames"], graph.settings["hold_frames"]
    for edge in graph.edges:
        a, b = graph.nodes[edge["from"]], graph.nodes[edge["to"]]
        if edge["kind"] == "clip":
            assert a["clip"] == b["clip"] and b["frame"] - a["frame"] == edge["frames"] > 0 and edge["cost"] == 0.0
        else:
            assert edge["frames"] == edge.get("blend", blend) + hold and 0.0 <= edge["cost"] <= 1.0
            assert edge.get("blend", blend) in (9, 15, 21, 30)


def test_a_clip_left_out_is_named_with_its_reason_and_what_would_include_it(library):
    faster = demo.walk_cycle(num_frames=200, seed=3, speed=1.5).clip  # its travel differs from the others' more than any tolerance bridges
    graph = build.build_graph(library[:2] + [faster], ["walk_a", "walk_b", "faster"])
    assert graph.stats["coverage"]["clips_kept"] == 2
    (left_out,) = graph.stats["left_out"]
    assert left_out["name"] == "faster" and left_out["reason"].startswith("no ")
    assert left_out["include"].startswith("a take that bridges it to the others")
    with pytest.raises(GraphError, match="tolerance"):
        build.build_graph(library[:2], ["walk_a", "walk_b"], tolerance=0.0)


def test_identical_windows_never_cost_below_zero_and_the_graph_reads_back(library):
    # The same take twice: identical windows sum to a few float32 roundings either side of 0.
    rng = np.random.default_rng(0)
    take = (np.cumsum(rng.normal(size=(200, 66)), axis=0) * 0.1 + rng.normal(size=66) * 3).astype(np.float32)
    other = (np.cumsum(rng.normal(size=(150, 66)), axis=0) * 0.1).astype(np.float32)
    left, right, _ = scan.padded_features([take, other, take], 14)
    i, j, costs = scan.scan(left, right, 9, 6, 1e9, lambda *found: found, block=60)
    assert len(costs) and costs.min() >= 0.0
    twice = build.build_graph([library[0], library[0], library[1]], ["a/walk_a", "b/walk_a", "walk_b"])
    assert min(edge["cost"] for edge in twice.edges) >= 0.0 and twice.stats["coverage"]["clips_kept"] == 3
    data = json.loads(json.dumps(graph_to_json(twice)))
    assert graph_to_json(graph_from_json(data)) == graph_to_json(twice)
    # A file written with such a rounding still reads, the cost as 0; a cost truly below 0 does not.
    transition = next(k for k, edge in enumerate(data["edges"]) if edge["kind"] == "transition")
    data["edges"][transition]["cost"] = -2e-8
    assert graph_from_json(data).edges[transition]["cost"] == 0.0
    data["edges"][transition]["cost"] = -0.1
    with pytest.raises(GraphError, match=f"edge {transition}"):
        graph_from_json(data)


def test_strongly_connected_components_of_a_long_chain_need_no_recursion():
    count = 200_000
    sources = np.r_[np.arange(count - 1), count - 1, count - 1]
    targets = np.r_[np.arange(1, count), 0, count]  # a cycle through every node, and one edge out to a dead end
    label = build.strongly_connected(count + 1, sources, np.minimum(targets, count))
    assert len(set(label[:count].tolist())) == 1 and label[count] != label[0]


def test_scan_memory_stays_bounded_whatever_the_library_size():
    rng = np.random.default_rng(0)
    peaks = []
    for frames in (6_000, 12_000):
        features = [np.cumsum(rng.normal(size=(frames // 4, 64)), axis=0).astype(np.float32) * 0.05 for _ in range(4)]
        left, right, _ = scan.padded_features(features, 14)
        tracemalloc.start()
        scan.scan(left, right, 9, 6, 1.0, lambda i, j, costs: (i[:8], j[:8], costs[:8]), block=510)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    whole_map = 12_000 ** 2 * 4  # bytes of the 12,000 x 12,000 float32 map, never made
    assert peaks[1] < whole_map / 20, peaks
    assert peaks[1] < 2 * peaks[0], peaks  # four times the pairs, not four times the memory


def test_json_round_trip_and_bad_files(graph):
    data = json.loads(json.dumps(graph_to_json(graph)))
    assert data["version"] == 1
    again = graph_from_json(data)
    assert graph_to_json(again) == graph_to_json(graph)
    broken = json.loads(json.dumps(data))
    broken["edges"][0]["to"] = len(broken["nodes"])
    with pytest.raises(GraphError, match="edge 0"):
        graph_from_json(broken)
    with pytest.raises(GraphError, match="version"):
        graph_from_json(dict(data, version=99))
    for key, value in (("first_frame", "1"), ("frames", None), ("fps", "30")):  # hand-edited types: one line, not a TypeError
        edited = json.loads(json.dumps(data))
        edited["clips"][0][key] = value
        with pytest.raises(GraphError, match="clip 0 of the motion graph needs"):
            graph_from_json(edited)


def test_random_walk_is_reproducible_and_renders_as_long_as_asked(library, graph):
    walk = random_walk(graph, 10.0, seed=5)
    assert walk == random_walk(graph, 10.0, seed=5)
    assert walk != random_walk(graph, 10.0, seed=6)
    for before, after in zip(walk, walk[1:]):
        assert after["from"] == before["to"]
    planned = sum(edge["frames"] for edge in walk) / graph.settings["fps"]
    assert abs(planned - 10.0) <= 0.5 * graph.settings["blend_frames"] / graph.settings["fps"]
    composed = render(graph, library, walk)
    assert composed.clip.duration == pytest.approx(planned, abs=2 / 30)
    assert len(composed.transitions) == sum(edge["kind"] == "transition" for edge in walk) > 0
    assert max(t.metrics.visibility for t in composed.transitions) <= 1.2


def test_path_via_visits_the_targets_in_order(library, graph):
    path = path_via(graph, ["walk_a", "walk_b", "walk_a"])
    visited = [graph.nodes[path[0]["from"]]["clip"]] + [graph.nodes[edge["to"]]["clip"] for edge in path if edge["kind"] == "transition"]
    order = [clip for k, clip in enumerate(visited) if not k or clip != visited[k - 1]]
    assert order[0] == 0 and order[-1] == 0 and 1 in order[1:-1]
    with pytest.raises(GraphError, match="bow"):
        path_via(graph, ["walk", "bow"])
    # With a duration the path lasts it: the last target cut, or the walk going on from it; too short a time is refused.
    fps = graph.settings["fps"]
    for seconds in (10.0, 30.0):
        timed = path_via(graph, ["walk_a", "walk_b", "walk_a"], seconds)
        assert sum(edge["frames"] for edge in timed) == pytest.approx(seconds * fps, abs=graph.settings["blend_frames"] / 2)
    with pytest.raises(GraphError, match="more than the 2 s asked"):
        path_via(graph, ["walk_a", "walk_b", "walk_a"], 2.0)


def _kept_by_definition(layout, i, j, costs):
    """The candidates :meth:`build._Layout.keep` keeps, worked out plainly: each rule on located rows, then a lexsort."""
    (clip_a, index_a), (clip_b, index_b) = layout.locate(i), layout.locate(j)
    short = layout.blends[-1]
    fine = (i < j) & ((layout.leaves(clip_a, index_a, short) & layout.enters(clip_b, index_b, short))
                      | (layout.leaves(clip_b, index_b, short) & layout.enters(clip_a, index_a, short)))
    fine &= (clip_a != clip_b) | (np.abs(index_a - index_b) >= layout.min_jump)
    fine &= costs <= layout.ceiling[np.maximum(clip_a, 0), np.maximum(clip_b, 0)]
    i, j, costs, clip_a, clip_b = i[fine], j[fine], costs[fine], clip_a[fine], clip_b[fine]
    order = np.lexsort((j, i, costs, clip_b, clip_a))
    kept, counts = [], {}
    for k in order:
        pair = (clip_a[k], clip_b[k])
        counts[pair] = counts.get(pair, 0) + 1
        if counts[pair] <= layout.per_pair[pair]:
            kept.append(k)
    return i[kept], j[kept], costs[kept]


def test_the_candidate_rule_keeps_what_its_definition_keeps_in_the_same_order():
    rng = np.random.default_rng(11)
    window, _, blend, hold, min_jump = build._frame_counts(30.0, None, build.BLEND_SECONDS)
    lengths = np.array([400, 90, 25, 700])
    starts = 30 + np.cumsum(np.r_[0, lengths[:-1] + 30])
    layout = build._Layout(lengths, starts, window, blend, hold, min_jump, 30.0)
    layout.ceiling[:] = rng.uniform(0.5, 2.0, layout.ceiling.shape).astype(np.float32)
    rows = int(starts[-1] + lengths[-1] + 60)  # padding before, between and after the clips
    for _ in range(20):
        count = 3000
        i, j = rng.integers(0, rows, count), rng.integers(0, rows, count)
        tied = rng.choice(np.float32([0.0, -0.0, 0.25, 0.5, 1.0]), count)  # equal costs, and 0 of either sign (one to the rule)
        costs = np.where(rng.random(count) < 0.5, tied, rng.uniform(0, 2, count).astype(np.float32))
        expected = _kept_by_definition(layout, i, j, costs)
        found = layout.keep(i, j, costs)
        assert len(expected[0]) > 20  # several pairs, each up to its share
        for a, b in zip(found, expected):
            assert np.array_equal(a, b)
