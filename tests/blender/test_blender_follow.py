"""Follow Path in Blender: the armature walks along a real curve object with motion from the file's motion graph (the follow
command and the targets: tests/realdata/test_realdata_follow.py)."""

import numpy as np
import pytest

from helpers import import_bvh

pytestmark = pytest.mark.realdata
bpy = pytest.importorskip("bpy")

GAITS = ("dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh")


def _curve(name, points, kind="POLY", location=(0.0, 0.0, 0.0)):
    data = bpy.data.curves.new(name, "CURVE")
    data.dimensions = "3D"
    spline = data.splines.new(kind)
    spline.points.add(len(points) - 1)
    spline.points.foreach_set("co", [value for x, y in points for value in (x, y, 0.0, 1.0)])
    obj = bpy.data.objects.new(name, data)
    obj.location = location
    bpy.context.collection.objects.link(obj)
    return obj


@pytest.mark.smoke
def test_follow_path_walks_the_armature_along_a_curve_object(loopsmith, blank, mocap_dir):
    import_bvh(mocap_dir / GAITS[1]).animation_data.action.use_fake_user = True
    obj = import_bvh(mocap_dir / GAITS[0])
    original = obj.animation_data.action
    assert bpy.ops.loopsmith.build_graph() == {"FINISHED"}
    # A bend of 4 m, moved 1 m along X by its object's transform: the walk follows it where it is in the world.
    curve = _curve("Path", [(0.0, 0.0), (2.0, 0.0), (3.5, 1.0)], location=(1.0, 0.0, 0.0))
    curve.select_set(True)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    bpy.context.view_layer.update()
    assert bpy.ops.loopsmith.follow_path(follow_name="walked") == {"FINISHED"}
    action = obj.animation_data.action
    assert action.name == "walked" and original.name in bpy.data.actions and original.use_fake_user
    clip = loopsmith.bridge.clip_io.read_clip(obj)
    follow = loopsmith.core.graph.follow
    root = loopsmith.core.motion.root.find_moving_root(clip)
    trace = loopsmith.core.motion.root.root_frames(clip, root)[0][:, :2, 3]
    deviation = follow.distance_to_polyline(trace, np.array([[1.0, 0.0], [3.0, 0.0], [4.5, 1.0]]))
    assert deviation.mean() <= 0.05 and deviation.max() <= 0.15
    # A curve of no length is one line, and the action stays as it was.
    curve.data.splines[0].points.foreach_set("co", [0.0, 0.0, 0.0, 1.0] * 3)
    curve.data.update_tag()  # foreach_set does not tag the curve for evaluation (Blender 4.2 keeps the old points otherwise)
    bpy.context.view_layer.update()
    with pytest.raises(RuntimeError, match="the path has no length"):
        bpy.ops.loopsmith.follow_path(follow_name="again")
    assert obj.animation_data.action.name == "walked"
