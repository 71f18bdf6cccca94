"""Make Loop and Find Loop as an animator meets them: operators, settings, panels."""

import os
import pathlib
import types

import numpy as np
import pytest

from helpers import RecordingLayout, evaluated_pose, fcurve_snapshot

bpy = pytest.importorskip("bpy")


@pytest.fixture
def walker(loopsmith, blank):
    """The demo walk as an armature with its action, active and selected."""
    generated = loopsmith.core.demo.walk_cycle()
    obj = loopsmith.bridge.armature.create_armature(blank, generated.clip, "Walker")
    loopsmith.bridge.clip_io.write_clip(obj, generated.clip, "walk")
    return obj, generated


def _actions():
    return {action.name for action in bpy.data.actions}


def test_operators_register_with_undo_and_redo(loopsmith):
    for name in ("LOOPSMITH_OT_make_loop", "LOOPSMITH_OT_find_loop"):
        cls = getattr(bpy.types, name)
        assert {"REGISTER", "UNDO"} <= set(cls.bl_options)


def test_poll_explains_why_the_button_is_grey(loopsmith, blank):
    problem = loopsmith.operators.common.armature_problem
    assert problem(bpy.context) == "Select an armature with an action"
    mesh = bpy.data.objects.new("Mesh", bpy.data.meshes.new("Mesh"))
    blank.scene.collection.objects.link(mesh)
    blank.view_layer.objects.active = mesh
    assert "is not an armature" in problem(bpy.context)
    assert not bpy.ops.loopsmith.make_loop.poll()
    with pytest.raises(RuntimeError, match="not an armature"):
        bpy.ops.loopsmith.make_loop()
    armature = bpy.data.objects.new("Rig", bpy.data.armatures.new("Rig"))
    blank.scene.collection.objects.link(armature)
    blank.view_layer.objects.active = armature
    assert "has no action" in problem(bpy.context)


@pytest.mark.smoke
def test_make_loop_writes_a_cyclic_action_and_keeps_the_source(loopsmith, walker):
    obj, generated = walker
    source = obj.animation_data.action
    before = fcurve_snapshot(loopsmith.bridge.action_api.fcurves_of(source, obj))
    assert bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74) == {"FINISHED"}
    action = obj.animation_data.action
    assert action.name == "walk_loop" and source.use_fake_user
    after = fcurve_snapshot(loopsmith.bridge.action_api.fcurves_of(source, obj))
    assert all(np.array_equal(before[key], after[key]) for key in before)
    assert action.use_cyclic and action.use_frame_range and tuple(action.frame_range) == (10.0, 74.0)
    curves = loopsmith.bridge.action_api.fcurves_of(action, obj)
    modes = {(fc.data_path, fc.modifiers[0].mode_after) for fc in curves}
    assert ('pose.bones["Hips"].location', "REPEAT_OFFSET") in modes
    assert all(mode == "REPEAT" for path, mode in modes if "Hips" not in path or "location" not in path)
    assert all(len(fc.keyframe_points) == 65 for fc in curves)
    result = bpy.context.scene.loopsmith.result
    assert result.valid and result.root_mode == "TRAVEL" and result.root_bone == "Hips"
    assert result.step_after < 1e-4 < result.step_before and result.visibility_after < result.visibility_before


def test_blender_plays_the_loop_seamlessly_past_its_end(loopsmith, walker):
    obj, _ = walker
    bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74)
    names = [pb.name for pb in obj.pose.bones]
    hips, head = names.index("Hips"), names.index("Head")
    pose = evaluated_pose(obj, range(66, 84))  # crosses the wrap at frame 74 into the Cycles repeat
    relative = pose[:, head, :3, 3] - pose[:, hips, :3, 3]
    steps = np.linalg.norm(np.diff(relative, axis=0), axis=-1)
    assert steps.max() < 3.0 * np.median(steps) + 1e-4  # no jump at the wrap
    travel = np.diff(pose[:, hips, :3, 3], axis=0)
    assert (travel[:, 1] < 0).all()  # keeps walking forward (-Y) through the wrap
    speeds = np.linalg.norm(travel, axis=-1)
    assert speeds.max() < 1.5 * speeds.min()


def test_replace_action_puts_the_loop_in_place_of_the_source(loopsmith, walker):
    obj, _ = walker
    assert bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74, replace_action=True) == {"FINISHED"}
    assert obj.animation_data.action.name == "walk" and "walk_loop" not in _actions()
    assert obj.animation_data.action.use_cyclic


def test_bad_input_changes_nothing(loopsmith, walker):
    obj, _ = walker
    actions, source = _actions(), obj.animation_data.action
    # Scripts see the operator's error report as an exception with its message.
    for arguments, message in (
        ({"frame_start": 10, "frame_end": 12}, "at least 4 frames"),
        ({"frame_start": 10, "frame_end": 30, "method": "CUBIC", "blend_start": 3.0}, "blend start 3 s must be"),
        ({"frame_start": 10, "frame_end": 74, "root_mode": "TRAVEL", "root_bone": "Head"}, "no bone travels"),
        ({"frame_start": 10, "frame_end": 74, "root_bone": "Tail"}, "no bone named 'Tail'"),
        ({"frame_start": -5, "frame_end": 74}, "not inside"),
    ):
        with pytest.raises(RuntimeError, match=message):
            bpy.ops.loopsmith.make_loop(range_mode="MANUAL", **arguments)
    with pytest.raises(RuntimeError, match="run Find Loop first"):
        bpy.ops.loopsmith.make_loop(range_mode="FOUND")
    assert _actions() == actions and obj.animation_data.action == source


def test_scene_settings_reach_the_operator(loopsmith, walker):
    obj, _ = walker
    settings = bpy.context.scene.loopsmith
    settings.range_mode, settings.frame_start, settings.frame_end = "MANUAL", 12, 60
    settings.root_mode, settings.method = "IN_PLACE", "SOFTFADE"
    assert bpy.ops.loopsmith.make_loop("INVOKE_DEFAULT") == {"FINISHED"}
    result = settings.result
    assert (result.frame_start, result.frame_end, result.root_mode) == (12, 60, "IN_PLACE")
    # Explicit arguments win over the scene's settings.
    assert bpy.ops.loopsmith.make_loop("INVOKE_DEFAULT", root_mode="LOOP", frame_start=20) == {"FINISHED"}
    assert (result.frame_start, result.root_mode) == (20, "LOOP")


def test_methods_give_different_results_and_none_trims_only(loopsmith, walker):
    obj, _ = walker
    numbers = {}
    for method in ("NONE", "CUBIC", "SPRING", "CROSSFADE"):
        bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74, method=method)
        result = bpy.context.scene.loopsmith.result
        numbers[method] = (result.step_after, result.visibility_after)
        obj.animation_data.action = bpy.data.actions["walk"]
    assert numbers["NONE"][0] > 0.01 and numbers["CUBIC"][0] < 1e-6 and numbers["CROSSFADE"][0] < 1e-6
    assert numbers["SPRING"][0] < numbers["NONE"][0]


@pytest.mark.smoke
def test_find_loop_fills_candidates_and_make_loop_uses_the_chosen_one(loopsmith, walker):
    obj, generated = walker
    scene = bpy.context.scene
    assert bpy.ops.loopsmith.find_loop(add_markers=True) == {"FINISHED"}
    settings = scene.loopsmith
    assert len(settings.candidates) >= 2 and settings.active_candidate == 0 and settings.range_mode == "FOUND"
    best = settings.candidates[0]
    assert (settings.frame_start, settings.frame_end) == (best.frame_start, best.frame_end)
    period = generated.period_frames
    assert abs((best.frame_end - best.frame_start) - best.cycles * period) <= 1.0
    assert best.grade in ("GOOD", "FAIR")
    assert {m.name: m.frame for m in scene.timeline_markers} == {"Loop Start": best.frame_start, "Loop End": best.frame_end}
    settings.active_candidate = 1
    chosen = settings.candidates[1]
    assert bpy.ops.loopsmith.make_loop("INVOKE_DEFAULT") == {"FINISHED"}
    assert (settings.result.frame_start, settings.result.frame_end) == (chosen.frame_start, chosen.frame_end)


def test_make_loop_finds_the_range_itself_in_automatic_mode(loopsmith, walker):
    obj, generated = walker
    assert bpy.ops.loopsmith.make_loop(range_mode="AUTO") == {"FINISHED"}
    result = bpy.context.scene.loopsmith.result
    length = result.frame_end - result.frame_start
    assert min(abs(length - k * generated.period_frames) for k in (1, 2, 3)) <= 1.0
    assert result.visibility_after <= 1.0


@pytest.mark.parametrize("space", ["view", "dopesheet", "graph"])
def test_panels_draw_every_method_and_range_mode(loopsmith, walker, space):
    settings = bpy.context.scene.loopsmith
    panels = [getattr(bpy.types, f"LOOPSMITH_PT_{part}_{space}") for part in ("main", "find", "make", "result")]
    bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74)
    bpy.ops.loopsmith.find_loop()
    drawn = set()
    for range_mode in ("AUTO", "FOUND", "ACTION", "MANUAL"):
        for method in ("SPRING", "CUBIC", "LINEAR", "LINEAR_INERTIALIZE", "SOFTFADE", "CROSSFADE", "NONE"):
            for side in ("BOTH", "START"):
                settings.range_mode, settings.method, settings.side = range_mode, method, side
                for panel in panels:
                    layout = RecordingLayout()
                    panel.draw(type("Panel", (), {"layout": layout})(), bpy.context)
                    drawn |= {name for kind, name in layout.log if kind == "prop"}
    assert {"method", "blend_start", "halflife_end", "softfade_start", "crossfade", "root_mode", "min_length", "lock_feet"} <= drawn


def test_redo_panel_shows_only_the_method_parameters(loopsmith, walker):
    assert "draw" in vars(bpy.types.LOOPSMITH_OT_make_loop)
    shown = {}
    for method in ("SPRING", "CROSSFADE", "NONE"):
        settings = bpy.context.scene.loopsmith
        settings.method, settings.range_mode = method, "MANUAL"
        layout = RecordingLayout()
        loopsmith.ui.layout.draw_make_loop(layout, settings)  # what LOOPSMITH_OT_make_loop.draw shows
        shown[method] = {name for kind, name in layout.log if kind == "prop"}
    assert "halflife_start" in shown["SPRING"] and "halflife_start" not in shown["CROSSFADE"]
    assert "crossfade" in shown["CROSSFADE"] and not ({"ratio", "blend_start", "crossfade"} & shown["NONE"])


class _RedoPanel:
    """What Blender hands the operator's draw in the redo panel: its last properties and a layout."""

    def __init__(self, properties, layout):
        self._properties, self.layout = properties, layout

    def __getattr__(self, name):
        return getattr(self._properties, name)


def _redo_labels():
    layout = RecordingLayout()
    last = bpy.context.window_manager.operator_properties_last("loopsmith.make_loop")
    bpy.types.LOOPSMITH_OT_make_loop.draw(_RedoPanel(last, layout), bpy.context)
    return [text for kind, text in layout.log if kind == "label"], {name for kind, name in layout.log if kind == "prop"}


def test_default_method_is_best_measured_and_the_redo_panel_shows_the_choice(loopsmith, walker):
    for rna in (bpy.ops.loopsmith.make_loop.get_rna_type(), bpy.context.scene.loopsmith.bl_rna):
        method = rna.properties["method"]
        assert method.default == "AUTO" and method.enum_items["AUTO"].name == "Best Measured"
        # Saved files store an enum's number: every method keeps its own, AUTO takes a new one.
        assert [method.enum_items[name].value for name in loopsmith.core.loop.stitch.METHODS] == list(range(7))
    assert bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74) == {"FINISHED"}
    result = bpy.context.scene.loopsmith.result
    labels, shown = _redo_labels()
    kept = loopsmith.core.loop.stitch.CHOICE_INFO
    assert result.method in {kept[name][0] for name in loopsmith.core.loop.stitch.AUTO_METHODS}
    assert f"Kept {result.method}" in labels and f"Seam as played: {result.methods_tried}" in labels
    assert result.methods_tried.startswith(f"{result.method} {result.visibility_after:.2f} (")
    assert {"side", "ratio", "blend_start"} <= shown and not {"crossfade", "halflife_start", "softfade_start"} & shown

    assert bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74, method="SPRING") == {"FINISHED"}
    assert (result.method, result.methods_tried) == ("Spring", "")
    labels, _ = _redo_labels()
    assert not any(text.startswith("Kept") for text in labels)


def test_candidate_list_and_menus_draw(loopsmith, walker):
    bpy.ops.loopsmith.find_loop()
    settings = bpy.context.scene.loopsmith
    layout = RecordingLayout()
    ui_list = bpy.types.LOOPSMITH_UL_candidates
    ui_list.draw_item(None, bpy.context, layout, settings, settings.candidates[0], 0, settings, "active_candidate", 0)
    assert any(kind == "label" and "-" in text for kind, text in layout.log)
    menu_layout = RecordingLayout()
    bpy.types.LOOPSMITH_MT_loop.draw(type("Menu", (), {"layout": menu_layout})(), bpy.context)
    assert ("operator", "loopsmith.make_loop") in menu_layout.log and ("operator", "loopsmith.find_loop") in menu_layout.log


def test_shipped_presets_are_installed_and_valid(loopsmith):
    folder = pathlib.Path(bpy.utils.user_resource("SCRIPTS", path="presets/operator/loopsmith.make_loop"))
    assert folder.is_relative_to(pathlib.Path(os.environ["BLENDER_USER_RESOURCES"]))  # never the user's home
    presets = sorted(p.name for p in folder.glob("*.py"))
    assert presets == ["idle.py", "short_loop.py", "walk_run_cycle.py"]
    properties = bpy.ops.loopsmith.make_loop.get_rna_type().properties
    for name in presets:
        recorder = types.SimpleNamespace()
        code = (folder / name).read_text().replace("bpy.context.active_operator", "recorder")
        exec(compile(code, name, "exec"), {"bpy": bpy, "recorder": recorder})
        for key, value in vars(recorder).items():
            prop = properties[key]
            if prop.type == "ENUM":
                assert value in prop.enum_items.keys(), (name, key, value)
    (folder / "idle.py").write_text("# the user's own edit\n")
    assert loopsmith.presets.install() == []  # an existing preset is never overwritten


def test_a_linked_action_is_read_but_never_replaced(loopsmith, walker, tmp_path):
    obj, _ = walker
    library = tmp_path / "library.blend"
    bpy.data.libraries.write(str(library), {bpy.data.actions["walk"]})
    with bpy.data.libraries.load(str(library), link=True) as (data_from, data_to):
        data_to.actions = ["walk"]
    linked = data_to.actions[0]
    assert linked.library is not None
    loopsmith.bridge.action_api.assign_action(obj, linked)
    assert loopsmith.bridge.clip_io.read_clip(obj).num_frames == 106  # reading a linked action is fine
    actions = _actions()
    with pytest.raises(RuntimeError, match="linked from a library"):
        bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74, replace_action=True)
    assert _actions() == actions and obj.animation_data.action == linked
    assert bpy.ops.loopsmith.make_loop(range_mode="MANUAL", frame_start=10, frame_end=74) == {"FINISHED"}  # a new action is fine
