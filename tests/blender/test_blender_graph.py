"""The motion graph in Blender: Build Graph and Synthesize (the graph and synth commands: tests/cli/test_graph_cli.py)."""

import json

import pytest

from helpers import import_bvh

pytestmark = pytest.mark.realdata
bpy = pytest.importorskip("bpy")

GAITS = ("dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh", "dataset-1_run_happy_001.bvh", "dataset-2_run_normal_040.bvh")


@pytest.mark.smoke
def test_build_graph_and_synthesize_in_blender(loopsmith, blank, mocap_dir):
    for name in GAITS[1:4]:
        import_bvh(mocap_dir / name).animation_data.action.use_fake_user = True
    obj = import_bvh(mocap_dir / GAITS[0])
    assert bpy.ops.loopsmith.build_graph() == {"FINISHED"}
    text = bpy.data.texts[loopsmith.properties.GRAPH_TEXT]
    document = json.loads(text.as_string())
    assert {clip["name"] for clip in document["clips"]} <= {action.name for action in bpy.data.actions}
    assert bpy.ops.loopsmith.synthesize(synth_seconds=12.0, synth_seed=1) == {"FINISHED"}
    action = obj.animation_data.action
    first, last = action.frame_range
    assert action.name == "synthesis" and abs((last - first) / 30.0 - 12.0) <= 1.0
    # An action changed since the graph was built is named.
    source = bpy.data.actions[document["clips"][0]["name"]]
    fcurve = loopsmith.bridge.action_api.fcurves_of(source, obj)[0]
    fcurve.keyframe_points[3].co[1] += 0.5
    with pytest.raises(RuntimeError, match="has changed since the motion graph was built"):
        bpy.ops.loopsmith.synthesize()
