"""Follow Path in Blender: the armature walks along a real curve object with motion from the file's motion graph (the follow
command and the targets: tests/realdata/test_realdata_follow.py)."""

import re

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


def _evaluated(curve):
    """The curve's points as Blender evaluates them, world space ``(P, 2)``."""
    evaluated = curve.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    points = np.array([tuple(curve.matrix_world @ vertex.co) for vertex in mesh.vertices])[:, :2]
    evaluated.to_mesh_clear()
    return points


def _smooth_curve(name, points, kind):
    """A Bezier (automatic handles) or NURBS (order 3, through its ends) curve object on ``points``."""
    data = bpy.data.curves.new(name, "CURVE")
    data.dimensions = "3D"
    spline = data.splines.new(kind)
    if kind == "BEZIER":
        spline.bezier_points.add(len(points) - 1)
        for point, (x, y) in zip(spline.bezier_points, points):
            point.co = (x, y, 0.0)
            point.handle_left_type = point.handle_right_type = "AUTO"
    else:
        spline.points.add(len(points) - 1)
        spline.points.foreach_set("co", [value for x, y in points for value in (x, y, 0.0, 1.0)])
        spline.order_u, spline.use_endpoint_u = 3, True
    obj = bpy.data.objects.new(name, data)
    bpy.context.collection.objects.link(obj)
    return obj


def test_follow_path_takes_bezier_nurbs_and_poly_curves_in_the_scenes_unit(loopsmith, blank, mocap_dir, capfd):
    """Clips imported in centimetres (1 Blender unit a centimetre: unit scale 0.01) follow curves of every kind drawn in them."""
    bpy.context.scene.unit_settings.scale_length = 0.01
    for name in reversed(GAITS):
        bpy.ops.import_anim.bvh(filepath=str(mocap_dir / name), global_scale=1.0, update_scene_fps=True)
        bpy.context.object.animation_data.action.use_fake_user = True
    obj = bpy.context.object
    assert bpy.ops.loopsmith.build_graph() == {"FINISHED"}
    follow, root_motion = loopsmith.core.graph.follow, loopsmith.core.motion.root
    drawn = [(0.0, 0.0), (200.0, 0.0), (350.0, 100.0)]  # centimetres
    # A speed in Blender units per second (the redo panel shows 1.2 m/s), the search looking 0.5-2 s ahead; two walks have no
    # standing pose to end in, and the report says so when one is asked.
    for kind, horizon, speed, end in (("POLY", 1.0, 120.0, "STAND"), ("NURBS", 2.0, 0.0, "WALK"), ("BEZIER", 0.5, 0.0, "STAND")):
        curve = _curve("Path", drawn) if kind == "POLY" else _smooth_curve("Path", drawn, kind)
        for other in bpy.context.selected_objects:
            other.select_set(False)
        curve.select_set(True)
        obj.select_set(True)
        bpy.context.view_layer.objects.active = obj
        bpy.context.view_layer.update()
        assert bpy.ops.loopsmith.follow_path(follow_name=kind, follow_horizon=horizon, follow_speed=speed,
                                            follow_end=end) == {"FINISHED"}
        clip = loopsmith.bridge.clip_io.read_clip(obj)
        trace = root_motion.root_frames(clip, root_motion.find_moving_root(clip))[0][:, :2, 3]
        deviation = follow.distance_to_polyline(trace, _evaluated(curve))
        # Centimetres: the targets (5 cm on average, 15 at most), and the walk reaches the curve's end at a walk's pace.
        assert deviation.mean() <= 5.0 and deviation.max() <= 15.0, kind
        assert np.linalg.norm(trace[-1] - _evaluated(curve)[-1]) <= 20.0, kind
        length = np.linalg.norm(np.diff(_evaluated(curve), axis=0), axis=1).sum() / 100.0  # metres
        assert 0.9 <= length / clip.duration <= 1.5, kind  # a walk's pace, metres per second
        # The operator's report is in metres: the curve's length as the scene's unit makes it.
        out = capfd.readouterr().out
        reported = re.search(r"Followed 'Path' \(([\d.]+) m\)", out)
        assert reported and abs(float(reported.group(1)) - length) <= 0.05, kind
        assert ("the library has no standing pose" in out) == (end == "STAND"), kind
        bpy.data.objects.remove(curve)
