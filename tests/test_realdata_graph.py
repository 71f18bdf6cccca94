"""A motion graph over the real Bandai walks and runs: strongly connected, and 30 s synthesized from it hold up (issue 13, section 4).

Run with -s for the graph's and the renders' numbers.
"""

import importlib
import json

import numpy as np
import pytest

from helpers import import_bvh, strongly_connected

pytestmark = [pytest.mark.blender, pytest.mark.realdata]
bpy = pytest.importorskip("bpy")


def _graph_module(loopsmith):
    return importlib.import_module(f"{loopsmith.__name__}.core.graph")


@pytest.fixture(scope="module")
def library(loopsmith, mocap_dir):
    """Every walk and run clip of bandai/ (names and Clips), each imported once."""
    paths = sorted(path for path in mocap_dir.glob("*.bvh") if "walk" in path.stem or "run" in path.stem)
    clips = []
    for path in paths:
        bpy.ops.wm.read_homefile(use_empty=True)
        clips.append(loopsmith.bridge.clip_io.read_clip(import_bvh(path)))
    return [path.stem for path in paths], clips


@pytest.fixture(scope="module")
def graph(loopsmith, library):
    names, clips = library
    made = _graph_module(loopsmith).build_graph(clips, names)
    kept = sorted({names[node["clip"]] for node in made.nodes})
    print(f"\ngraph: {len(made.nodes)} nodes, {len(made.edges)} edges, threshold {made.stats['threshold']:.2f} ({made.stats['rule']}), "
          f"{made.stats['frames_in_graph']} of {made.stats['library_frames']} frames, {made.stats['seconds']:.2f} s; clips: {', '.join(kept)}")
    return made


def _clips_played(graph, path):
    """Clip indices in the order the path plays them (a clip repeated through a jump within it counts once)."""
    played = [graph.nodes[path[0]["from"]]["clip"]] + [graph.nodes[edge["to"]]["clip"] for edge in path if edge["kind"] == "transition"]
    return [clip for k, clip in enumerate(played) if not k or clip != played[k - 1]]


def test_graph_is_strongly_connected_and_keeps_walks_and_runs(graph):
    assert strongly_connected(len(graph.nodes), graph.edges)
    names = {graph.clips[node["clip"]]["name"] for node in graph.nodes}
    assert sum("run" in name for name in names) >= 1 and sum("walk" in name for name in names) >= 4, names
    # A quarter of all frames: the three one-cycle clips (24-31 frames) are too short for a 1 s blend and hold, the backward walks go.
    assert graph.stats["frames_in_graph"] >= 0.25 * graph.stats["library_frames"]
    # The backward walks are pruned: jumping into them would reverse the travel.
    assert not any("walk-back" in name for name in names)


def test_thirty_seconds_of_random_walk_render_seamlessly_and_reproducibly(loopsmith, library, graph):
    module = _graph_module(loopsmith)
    _, clips = library
    path = module.random_walk(graph, 30.0, seed=13)
    composed = module.render(graph, clips, path)
    visibility = [t.metrics.visibility for t in composed.transitions]
    print(f"\nrandom walk: {len(path)} edges, {len(visibility)} transitions, {composed.clip.duration:.2f} s, "
          f"visibility {min(visibility):.2f}-{max(visibility):.2f}")
    assert abs(composed.clip.duration - 30.0) <= 1.0
    assert len(visibility) >= 3 and max(visibility) <= 1.2
    again = module.render(graph, clips, module.random_walk(graph, 30.0, seed=13))
    assert module.random_walk(graph, 30.0, seed=13) == path  # the same edges, bit for bit
    assert [t.window for t in again.transitions] == [t.window for t in composed.transitions]
    for channel in ("location", "rotation", "scale"):
        # Equal to rounding: forward kinematics' sums change in the last bit with the arrays' memory alignment.
        assert np.allclose(getattr(again.clip, channel), getattr(composed.clip, channel), rtol=0.0, atol=1e-12)


def test_path_via_walk_run_walk_plays_them_in_order(loopsmith, library, graph):
    module = _graph_module(loopsmith)
    _, clips = library
    path = module.path_via(graph, ["walk", "run", "walk"])
    kinds = ["run" if "run" in graph.clips[clip]["name"] else "walk" for clip in _clips_played(graph, path)]
    collapsed = [kind for k, kind in enumerate(kinds) if not k or kind != kinds[k - 1]]
    assert collapsed == ["walk", "run", "walk"], kinds
    composed = module.render(graph, clips, path)
    visibility = [t.metrics.visibility for t in composed.transitions]
    print(f"\nwalk, run, walk: {len(visibility)} transitions, {composed.clip.duration:.2f} s, visibility {max(visibility):.2f} at worst")
    assert max(visibility) <= 1.2


def test_real_graph_survives_a_json_round_trip(loopsmith, graph):
    module = _graph_module(loopsmith)
    data = json.loads(json.dumps(module.graph_to_json(graph)))
    assert module.graph_to_json(module.graph_from_json(data)) == module.graph_to_json(graph)
