"""Make Transition as an animator meets it: the operator on real clips, the target picker, the list, the picture, undo."""

import numpy as np
import pytest

from helpers import RecordingLayout, evaluated_pose, extension_module, fcurve_snapshot, import_bvh

bpy = pytest.importorskip("bpy")

WALK, RUN = "dataset-1_walk_normal_001.bvh", "dataset-1_run_happy_001.bvh"


@pytest.fixture
def walk_and_run(loopsmith, blank, mocap_dir):
    """Two imported Bandai armatures with one action each; the walk is active."""
    run = import_bvh(mocap_dir / RUN)
    walk = import_bvh(mocap_dir / WALK)
    bpy.context.view_layer.objects.active = walk
    return walk, walk.animation_data.action, run.animation_data.action


class PictureLayout(RecordingLayout):
    def template_icon(self, icon_value=0, scale=1.0):
        self.log.append(("icon", icon_value))


def _picture(image):
    pixels = np.empty(len(image.pixels), dtype=np.float32)
    image.pixels.foreach_get(pixels)
    return pixels.reshape(image.size[1], image.size[0], 4)


@pytest.mark.smoke
@pytest.mark.realdata
def test_walk_into_run_writes_a_new_action_and_keeps_both(loopsmith, walk_and_run):
    walk, walk_action, run_action = walk_and_run
    before = {action.name: fcurve_snapshot(loopsmith.bridge.action_api.fcurves_of(action, walk)) for action in (walk_action, run_action)}
    assert bpy.ops.loopsmith.make_transition(target_action=run_action.name) == {"FINISHED"}
    written = walk.animation_data.action
    assert written.name == f"{walk_action.name}_to_{run_action.name}" and not written.use_cyclic
    for action in (walk_action, run_action):
        after = fcurve_snapshot(loopsmith.bridge.action_api.fcurves_of(action, walk))
        assert after.keys() == before[action.name].keys()
        assert all(np.array_equal(after[key], before[action.name][key]) for key in after)
    assert walk_action.use_fake_user
    # A up to the transition, the blend, then B: as long as both minus what the blend skips.
    settings = bpy.context.scene.loopsmith
    clip_a = loopsmith.bridge.clip_io.read_clip(walk, action=walk_action)
    clip_b = loopsmith.bridge.clip_io.read_clip(walk, action=run_action)
    result = loopsmith.bridge.clip_io.read_clip(walk)
    frame_a, frame_b = settings.frame_a, settings.frame_b
    assert result.frames[0] == clip_a.frames[0]
    assert result.num_frames > frame_a - clip_a.frames[0] + clip_b.frames[-1] - frame_b - 2 * clip_a.fps
    # Before the transition the result is the walk, frame for frame (the foot lock may reach back a step).
    head = int(frame_a - clip_a.frames[0])
    same = np.all(np.isclose(result.rotation[:head], clip_a.rotation[:head], atol=1e-4), axis=(1, 2))
    same &= np.all(np.isclose(result.location[:head], clip_a.location[:head], atol=1e-4), axis=(1, 2))
    assert same[:head - int(clip_a.fps)].all()
    # The run's bones after the blend (root aside: it is aligned) are the run's own.
    tail = slice(-20, None)
    assert np.allclose(np.abs(np.sum(result.rotation[tail, 2:] * clip_b.rotation[tail, 2:], axis=-1)), 1.0, atol=1e-3)


@pytest.mark.realdata
def test_automatic_point_fills_the_list_and_a_chosen_point_is_used(loopsmith, walk_and_run):
    walk, walk_action, run_action = walk_and_run
    settings = bpy.context.scene.loopsmith
    settings.target_action = run_action.name
    bpy.ops.loopsmith.make_transition()
    points = settings.transition_points
    assert len(points) >= 2 and settings.points_source == walk_action and settings.points_target == run_action
    chosen = points[settings.active_transition_point]
    assert (chosen.frame_a, chosen.frame_b) == (settings.frame_a, settings.frame_b)
    other = next(index for index, point in enumerate(points) if index != settings.active_transition_point)
    settings.active_transition_point = other
    settings.point_mode = "FOUND"
    first = walk.animation_data.action
    bpy.ops.loopsmith.make_transition()  # from the list's source, not the transition now playing
    assert (settings.frame_a, settings.frame_b) == (points[other].frame_a, points[other].frame_b)
    assert len(points) >= 2  # a run at a given point keeps the list
    second = walk.animation_data.action
    assert second != first and second.name.startswith(f"{walk_action.name}_to_{run_action.name}")
    assert loopsmith.bridge.clip_io.read_clip(walk).num_frames != loopsmith.bridge.clip_io.read_clip(walk, action=first).num_frames
    settings.target_action = walk_action.name
    with pytest.raises(RuntimeError, match="list is for"):
        bpy.ops.loopsmith.make_transition()


@pytest.mark.realdata
def test_given_frames_method_and_length_reach_the_core(loopsmith, walk_and_run):
    walk, walk_action, run_action = walk_and_run
    bpy.ops.loopsmith.make_transition(target_action=run_action.name, frame_a=150, frame_b=20, transition_method="CROSSFADE",
                                      auto_length=False, blend_length=0.6, use_timewarp=False)
    settings = bpy.context.scene.loopsmith
    assert (settings.frame_a, settings.frame_b) == (150, 20)
    result = loopsmith.bridge.clip_io.read_clip(walk)
    clip_a = loopsmith.bridge.clip_io.read_clip(walk, action=walk_action)
    clip_b = loopsmith.bridge.clip_io.read_clip(walk, action=run_action)
    # A up to frame 150, 0.6 s of blend (18 frames), then the run from frame 20 + 18 on.
    assert result.num_frames == (150 - clip_a.frames[0] + 1) + 17 + (clip_b.frames[-1] - (20 + 18) + 1)


@pytest.mark.realdata
def test_distance_picture_shows_the_point_and_is_reused(loopsmith, walk_and_run):
    walk, walk_action, run_action = walk_and_run
    bpy.ops.loopsmith.make_transition(target_action=run_action.name, transition_method="CROSSFADE")
    settings = bpy.context.scene.loopsmith
    image = settings.distance_image
    name = f"{walk_action.name}_to_{run_action.name} distance"
    assert image is not None and image.name == name and max(image.size) <= 256 and min(image.size) > 1
    pixels = _picture(image)
    red = (pixels[..., 0] > 0.9) & (pixels[..., 1] < 0.2)
    green = (pixels[..., 1] > 0.9) & (pixels[..., 0] < 0.2)
    grey = np.isclose(pixels[..., 0], pixels[..., 1], atol=0.01) & np.isclose(pixels[..., 1], pixels[..., 2], atol=0.01)
    assert red.sum() >= 5 and green.any() and grey.mean() > 0.8 and np.ptp(pixels[grey, 0]) > 0.5
    loopsmith.bridge.action_api.assign_action(walk, walk_action)
    bpy.ops.loopsmith.make_transition(target_action=run_action.name)
    assert [i.name for i in bpy.data.images] == [name] and settings.distance_image == image  # refilled, not a second image


def test_distance_picture_places_the_point_and_path_on_frame_axes(loopsmith):
    images = extension_module(loopsmith, "bridge.images")
    distance = np.arange(40 * 30, dtype=np.float32).reshape(40, 30)
    path = np.array([[110, 210], [111, 211], [113, 212]])
    pixels = images.distance_picture(distance, ((100, 139), (200, 229)), (110, 210), path)
    assert pixels.shape == (40, 30, 4)
    assert np.allclose(pixels[10, 10], images.POINT_COLOUR)  # A frame 110 is row 10, B frame 210 column 10
    assert np.allclose(pixels[13, 12], images.PATH_COLOUR)
    assert pixels[0, 29, 0] < pixels[39, 0, 0]  # dark where the distance is small


def _run_with_undo(**props):
    """The operator between the undo steps a window manager would push (headless Blender starts its stack only when asked)."""
    bpy.ops.ed.undo_push(message="before")
    assert bpy.ops.loopsmith.make_transition(**props) == {"FINISHED"}
    bpy.ops.ed.undo_push(message="Make Transition")


@pytest.mark.realdata
def test_undo_restores_the_walk(loopsmith, walk_and_run):
    walk, walk_action, run_action = walk_and_run
    names, walk_name, walk_action_name = {action.name for action in bpy.data.actions}, walk.name, walk_action.name
    _run_with_undo(target_action=run_action.name)
    assert len(bpy.data.actions) == len(names) + 1 and len(bpy.data.images) == 1
    bpy.ops.ed.undo()
    assert {action.name for action in bpy.data.actions} == names and not bpy.data.images
    assert bpy.data.objects[walk_name].animation_data.action.name == walk_action_name


@pytest.mark.realdata
def test_redo_with_other_settings_replaces_the_last_result(loopsmith, walk_and_run):
    walk, walk_action, run_action = walk_and_run
    walk_name, walk_action_name = walk.name, walk_action.name
    settings = dict(target_action=run_action.name, frame_a=150, frame_b=20, transition_method="INERTIALIZE", auto_length=False)
    _run_with_undo(blend_length=0.5, **settings)
    first = loopsmith.bridge.clip_io.read_clip(walk)
    bpy.ops.ed.undo()  # what the redo panel does before running again
    bpy.ops.loopsmith.make_transition(blend_length=1.0, **settings)
    second = loopsmith.bridge.clip_io.read_clip(bpy.data.objects[walk_name])
    # Frame 150 + 20 is still blending with 1 s, B alone after 0.5 s: the runs differ there, not before 150.
    index = int(150 - first.frames[0])
    assert np.allclose(second.rotation[:index - 30], first.rotation[:index - 30], atol=1e-5)
    assert not np.allclose(second.rotation[index + 20], first.rotation[index + 20], atol=1e-2)
    assert [a.name for a in bpy.data.actions if a.name.startswith(f"{walk_action_name}_to_")] == [f"{walk_action_name}_to_{settings['target_action']}"]


@pytest.mark.realdata
def test_bad_targets_are_one_line_reports_and_change_nothing(loopsmith, walk_and_run, blank):
    walk, walk_action, run_action = walk_and_run
    stranger = bpy.data.actions.new("camera_move")
    fcurve = loopsmith.bridge.action_api.CurveSink(stranger, walk).new_fcurve('pose.bones["Tail"].location', 0)
    fcurve.keyframe_points.insert(1, 0.0)
    names = {action.name for action in bpy.data.actions}
    for target, message in (("", "choose the target action"), ("nothing", "no action named 'nothing'"),
                            ("camera_move", "does not have: 'Tail'")):
        with pytest.raises(RuntimeError, match=message):
            bpy.ops.loopsmith.make_transition(target_action=target)
        assert {action.name for action in bpy.data.actions} == names and walk.animation_data.action == walk_action
    with pytest.raises(RuntimeError, match="frame 5000 is not|must lie within|not a frame"):
        bpy.ops.loopsmith.make_transition(target_action=run_action.name, frame_a=5000, frame_b=1)
    assert {action.name for action in bpy.data.actions} == names


@pytest.mark.realdata
def test_the_picker_lists_only_actions_whose_bones_match(loopsmith, walk_and_run):
    walk, walk_action, run_action = walk_and_run
    bpy.data.actions.new("empty")
    search = bpy.context.scene.loopsmith.bl_rna.properties["target_action"]
    names = loopsmith.properties._matching_action_names(None, bpy.context, "")
    assert set(names) == {walk_action.name, run_action.name} and search.type == "STRING"
    assert loopsmith.properties._matching_action_names(None, bpy.context, "RUN") == [run_action.name]


@pytest.mark.realdata
@pytest.mark.parametrize("space", ["view", "dopesheet", "graph"])
def test_transition_panel_draws_every_method_and_point_mode(loopsmith, walk_and_run, space):
    walk, walk_action, run_action = walk_and_run
    settings = bpy.context.scene.loopsmith
    panel = getattr(bpy.types, f"LOOPSMITH_PT_transition_{space}")
    settings.target_action = run_action.name
    bpy.ops.loopsmith.make_transition()
    drawn = {}
    for point_mode in ("AUTO", "FOUND", "MANUAL"):
        for method in ("AUTO", "INERTIALIZE", "CROSSFADE"):
            for auto_length in (True, False):
                settings.point_mode, settings.transition_method, settings.auto_length = point_mode, method, auto_length
                layout = PictureLayout()
                panel.draw(type("Panel", (), {"layout": layout})(), bpy.context)
                drawn[point_mode, method, auto_length] = layout.log
    props = {key: {name for kind, name in log if kind == "prop"} for key, log in drawn.items()}
    assert "use_timewarp" in props["AUTO", "CROSSFADE", True] and "use_timewarp" not in props["AUTO", "INERTIALIZE", True]
    assert "blend_length" in props["AUTO", "INERTIALIZE", False] and "blend_length" not in props["AUTO", "INERTIALIZE", True]
    assert {"frame_a", "frame_b"} <= props["MANUAL", "AUTO", True] and "joint_set" in props["AUTO", "AUTO", True]
    log = drawn["FOUND", "AUTO", True]
    assert ("list", "transition_points") in log and any(kind == "icon" for kind, _ in log)
    assert any(kind == "label" and text.startswith("A ") for kind, text in log)
    settings.target_action = "nothing"
    layout = PictureLayout()
    panel.draw(type("Panel", (), {"layout": layout})(), bpy.context)
    assert ("label", "there is no action named 'nothing'") in layout.log


@pytest.mark.realdata
def test_redo_panel_and_list_draw(loopsmith, walk_and_run):
    walk, walk_action, run_action = walk_and_run
    bpy.ops.loopsmith.make_transition(target_action=run_action.name)
    settings = bpy.context.scene.loopsmith
    assert "draw" in vars(bpy.types.LOOPSMITH_OT_make_transition)
    layout = RecordingLayout()
    loopsmith.ui.layout.draw_transition(layout, settings)  # what the redo panel shows
    assert ("prop", "target_action") in layout.log
    layout = RecordingLayout()
    bpy.types.LOOPSMITH_UL_transition_points.draw_item(None, bpy.context, layout, settings, settings.transition_points[0], 0,
                                                       settings, "active_transition_point", 0)
    assert any(kind == "label" and "B " in text for kind, text in layout.log)


def test_poll_explains_why_the_button_is_grey(loopsmith, blank):
    assert not bpy.ops.loopsmith.make_transition.poll()
    with pytest.raises(RuntimeError, match="Select an armature"):
        bpy.ops.loopsmith.make_transition(target_action="walk")
    assert {"REGISTER", "UNDO"} <= set(bpy.types.LOOPSMITH_OT_make_transition.bl_options)


def test_another_armatures_action_is_read_from_its_slot_with_keys(loopsmith, blank):
    action_api, clip_io = loopsmith.bridge.action_api, loopsmith.bridge.clip_io
    if not action_api.HAS_SLOTS:
        pytest.skip("actions have no slots before Blender 4.4")
    clip = loopsmith.core.demo.walk_cycle(num_frames=20).clip
    walker = loopsmith.bridge.armature.create_armature(blank, clip, "Walker")
    clip_io.write_clip(walker, clip, "walk")
    other = bpy.data.actions.new("shared")
    other.slots.new(id_type="OBJECT", name="Prop")  # an empty slot first, as when a prop was keyed and cleared
    sink = action_api.CurveSink(other, walker)
    for fcurve in action_api.fcurves_of(bpy.data.actions["walk"], walker):
        co = np.empty(2 * len(fcurve.keyframe_points), dtype=np.float32)
        fcurve.keyframe_points.foreach_get("co", co)
        target = sink.new_fcurve(fcurve.data_path, fcurve.array_index)
        target.keyframe_points.add(len(co) // 2)
        target.keyframe_points.foreach_set("co", co)
    read = clip_io.read_clip(walker, action=other)
    assert np.allclose(read.rotation, clip_io.read_clip(walker).rotation, atol=1e-5)


@pytest.mark.realdata
def test_the_picture_is_saved_with_the_file(loopsmith, walk_and_run, tmp_path):
    walk, walk_action, run_action = walk_and_run
    bpy.ops.loopsmith.make_transition(target_action=run_action.name)
    name, size = bpy.context.scene.loopsmith.distance_image.name, tuple(bpy.context.scene.loopsmith.distance_image.size)
    path = str(tmp_path / "transition.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    image = bpy.data.images[name]
    assert tuple(image.size) == size and _picture(image)[..., 0].max() > 0.9


@pytest.mark.realdata
@pytest.mark.parametrize("source, target", [("dataset-1_walk-back_masculinity_001.bvh", "../bandai-actions/dataset-1_walk_happy_001.bvh"),
                                            ("../bandai-actions/dataset-1_walk_happy_001.bvh", "dataset-1_walk-back_masculinity_001.bvh")])
def test_a_transition_into_another_takes_rest_keeps_the_body_on_the_floor(loopsmith, blank, mocap_dir, source, target):
    """The target's action is read on its own armature (its pelvis's rest offset holds where the take starts) and the
    result, played by Blender, stands on the floor at the pelvis's height on every frame."""
    other = import_bvh(mocap_dir / target)
    obj = import_bvh(mocap_dir / source)
    bpy.context.view_layer.objects.active = obj
    assert bpy.ops.loopsmith.make_transition(target_action=other.animation_data.action.name) == {"FINISHED"}
    start, end = (int(frame) for frame in obj.animation_data.action.frame_range)
    pose = evaluated_pose(obj, range(start, end + 1, 3))
    names = [bone.name for bone in obj.pose.bones]
    lowest = pose[:, [names.index("Toes_L"), names.index("Toes_R")], 2, 3].min(axis=1)  # metres, Z up
    hips = pose[:, names.index("Hips"), 2, 3]
    assert lowest.max() < 0.2 and lowest.min() > -0.05, (lowest.min(), lowest.max())
    assert 0.7 < hips.min() and hips.max() < 1.1, (hips.min(), hips.max())
