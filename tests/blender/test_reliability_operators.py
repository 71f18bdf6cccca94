"""Every Loopsmith operator on an action the armature cannot play: one line naming the action and why, nothing changed.

An action is unplayable on an armature when it animates none of its bones
(only the object's own curves, or no curves at all) or animates bones the
armature does not have. That holds for the active action and for any
second action an operator reads (a transition's target, the other action of
Splice and Blend, a Sequence entry, a motion graph's clip).
"""

import json

import numpy as np
import pytest

from helpers import fcurve_snapshot

bpy = pytest.importorskip("bpy")

FRAMES = np.arange(1, 41, dtype=np.float32)

#: Each case: the curves ``(data path, index)`` of the unplayable action, and what the one line says about it.
CASES = {
    "object curves only": ([("location", 1), ("rotation_euler", 2)], r"animates no bones of 'Walker' \(only object curves\)"),
    "a bone the rig lacks": ([('pose.bones["Nope"].location', 0), ('pose.bones["Hips"].location', 1)],
                             r"animates bones 'Walker' does not have: 'Nope'"),
    "no curves": ([], r"has no keys for 'Walker'"),
}


def _unplayable_action(loopsmith, obj, case, name="bad"):
    """A new action named ``name`` with the curves of ``case`` for ``obj`` (not assigned): ``(action, its slot for obj)``."""
    action_api = loopsmith.bridge.action_api
    action = bpy.data.actions.new(name)
    sink = action_api.CurveSink(action, obj)
    co = np.empty(2 * len(FRAMES), dtype=np.float32)
    co[0::2] = FRAMES
    co[1::2] = 0.05 * np.sin(FRAMES / 5.0)
    for path, index in CASES[case][0]:
        points = sink.new_fcurve(path, index).keyframe_points
        points.add(len(FRAMES))
        points.foreach_set("co", co)
    action.use_fake_user = True
    return action, sink.slot


@pytest.fixture
def walker(loopsmith, blank):
    """The demo walk as the armature 'Walker' playing the action 'walk', active; the Sequence list plays 'walk' twice."""
    clip = loopsmith.core.demo.walk_cycle().clip
    obj = loopsmith.bridge.armature.create_armature(blank, clip, "Walker")
    walk = loopsmith.bridge.clip_io.write_clip(obj, clip, "walk")
    walk.use_fake_user = True
    settings = blank.scene.loopsmith
    settings.sequence.clear()
    for _ in range(2):
        entry = settings.sequence.add()
        entry.action = walk
    settings.active_sequence_entry = 0
    return obj


def _state(loopsmith, obj):
    """What an operator that refuses must leave as it was."""
    scene, action = bpy.context.scene, obj.animation_data.action if obj.animation_data else None
    keys = fcurve_snapshot(loopsmith.bridge.action_api.fcurves_of(action, obj)) if action is not None else {}
    return (sorted(a.name for a in bpy.data.actions), action.name if action else None, {k: v.tolist() for k, v in keys.items()},
            scene.frame_start, scene.frame_end, scene.render.fps, sorted(bone.name for bone in obj.data.bones),
            [entry.action.name if entry.action else None for entry in scene.loopsmith.sequence], bpy.data.texts.keys())


def _refused(loopsmith, obj, call, message):
    """``call`` fails with one line matching ``message`` (the reason of a report or of poll), no traceback; nothing changes."""
    before = _state(loopsmith, obj)
    with pytest.raises(RuntimeError, match=message) as error:
        call()
    text = str(error.value)
    assert "Traceback" not in text and len(text.strip().splitlines()) == 1, text
    assert _state(loopsmith, obj) == before


def _operator(name, **arguments):
    """Loopsmith's operator ``name`` called as a script or a button calls it."""
    return lambda: getattr(bpy.ops.loopsmith, name)(**arguments)


#: Every operator, with the arguments it needs to run on the walker (Export for Engine gets a file path in the test).
ACTIVE_OPERATORS = {
    "find_loop": {}, "make_loop": {"range_mode": "ACTION"}, "make_transition": {"target_action": "walk"},
    "resample": {"resample_fps": 24.0, "set_scene_rate": True}, "retime": {}, "freeze_bone": {"freeze_bones": "Hips"},
    "splice": {"upper_action": "walk"}, "blend": {"blend_action": "walk"}, "mirror": {},
    "sequence_add": {}, "sequence_remove": {}, "sequence_move": {"direction": "DOWN"}, "junction_candidates": {},
    "junction_use_point": {}, "compose": {}, "build_graph": {}, "synthesize": {}, "extract_root_motion": {},
    "export_engine": {"engine": "GODOT"},
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("operator", ACTIVE_OPERATORS)
def test_every_operator_refuses_an_active_action_the_armature_cannot_play(loopsmith, walker, tmp_path, operator, case):
    action, slot = _unplayable_action(loopsmith, walker, case)
    loopsmith.bridge.action_api.assign_action(walker, action, slot)
    arguments = dict(ACTIVE_OPERATORS[operator], **({"filepath": str(tmp_path / "out.glb")} if operator == "export_engine" else {}))
    _refused(loopsmith, walker, _operator(operator, **arguments), rf"Action 'bad' {CASES[case][1]}")
    assert not (tmp_path / "out.glb").exists()


#: Every operator that reads a second action, and how it is told which: a property, the Sequence list or the motion graph.
SECOND_ACTIONS = {"make_transition": "target_action", "splice": "upper_action", "blend": "blend_action",
                  "compose": "sequence", "junction_candidates": "sequence", "synthesize": "graph"}


def _second_action(loopsmith, how, name):
    """Point an operator at the action ``name`` the way ``how`` says; the arguments to call it with."""
    if how == "sequence":
        bpy.context.scene.loopsmith.sequence[1].action = bpy.data.actions[name]
    elif how == "graph":  # the graph built over 'walk', its clip then named ``name``
        assert bpy.ops.loopsmith.build_graph() == {"FINISHED"}
        text = bpy.data.texts[loopsmith.properties.GRAPH_TEXT]
        text.from_string(text.as_string().replace('"name": "walk"', f'"name": "{name}"'))
    else:
        return {how: name}
    return {}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("operator", SECOND_ACTIONS)
def test_every_second_action_the_armature_cannot_play_is_named(loopsmith, walker, operator, case):
    _unplayable_action(loopsmith, walker, case)
    arguments = _second_action(loopsmith, SECOND_ACTIONS[operator], "bad")
    _refused(loopsmith, walker, _operator(operator, **arguments), rf"Action 'bad' {CASES[case][1]}")
    assert walker.animation_data.action.name == "walk"


def test_moving_in_an_empty_sequence_list_says_why(loopsmith, walker):
    settings = bpy.context.scene.loopsmith
    settings.sequence.clear()
    for direction in ("UP", "DOWN"):
        _refused(loopsmith, walker, _operator("sequence_move", direction=direction), "Sequence list is empty")


def test_export_of_an_action_that_moves_the_armature_object_writes_it_and_says_the_root_is_not_a_bone(loopsmith, walker, tmp_path, capfd):
    for frame in range(1, 107):  # the walk's own curves, plus the object travelling
        walker.location = (0.0, -0.02 * frame, 0.0)
        walker.keyframe_insert("location", index=1, frame=frame)
    before = _state(loopsmith, walker)
    assert bpy.ops.loopsmith.export_engine(engine="GODOT", filepath=str(tmp_path / "walk.glb")) == {"FINISHED"}
    loopsmith.bridge.export.verify(tmp_path / "walk.glb", ".glb")
    assert "the action moves the armature object, not a root bone: apply the object's motion to the bones first" in capfd.readouterr().out
    assert _state(loopsmith, walker) == before
    # The object's channels are no bone to give the engine's root name to.
    with pytest.raises(loopsmith.core.errors.ClipError, match="has no bone 'Object Transforms' to rename"):
        loopsmith.bridge.root_motion.rename_bone(walker, loopsmith.bridge.clip_io.OBJECT_CHANNELS, "root")


@pytest.mark.parametrize("content, message", [
    ("[" * 100_000 + "]" * 100_000, "nested too deep"),
    ("{not json", "is not JSON"),
    ('{"version": 1, "clips": 5}', "is not a motion graph"),
])
def test_synthesize_names_a_hostile_graph_text_in_one_line(loopsmith, walker, content, message):
    text = bpy.data.texts.new(loopsmith.properties.GRAPH_TEXT)
    text.from_string(content)
    actions = set(bpy.data.actions)
    with pytest.raises(RuntimeError, match=message):
        bpy.ops.loopsmith.synthesize(synth_seconds=5.0)
    assert set(bpy.data.actions) == actions


def test_synthesize_refuses_a_graph_without_checksums(loopsmith, walker):
    assert bpy.ops.loopsmith.build_graph() == {"FINISHED"}
    text = bpy.data.texts[loopsmith.properties.GRAPH_TEXT]
    document = json.loads(text.as_string())
    for clip in document["clips"]:
        del clip["sha256"]
    text.from_string(json.dumps(document))
    with pytest.raises(RuntimeError, match="holds no checksum of action 'walk'"):
        bpy.ops.loopsmith.synthesize(synth_seconds=5.0)
