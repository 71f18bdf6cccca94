"""The default loop as Blender plays it: the seam no more visible than an ordinary frame.

Each walk and run is looped the way the product does it (Find Loop, then Make
Loop with the scene's defaults), played over two cycles past its range through
the Cycles modifiers, and the seam's visibility is read from Blender's own
evaluated pose: every wrap's acceleration over the joint's 95th percentile in
the raw take. The other seam is what a simple add-on makes: the last 5 frames
blended linearly toward the first frame's pose.
"""

import numpy as np
import pytest

from helpers import GAIT_CLIPS, evaluated_pose, import_bvh

pytestmark = pytest.mark.blender
bpy = pytest.importorskip("bpy")

#: Multi-cycle walks and runs outside bandai/, in ../shared/mocap/bandai-actions/.
ACTION_GAITS = ("dataset-1_walk_happy_001.bvh", "dataset-1_dash_happy_001.bvh", "dataset-2_walk-turn-right_normal_001.bvh")
PLAYED_CYCLES = 2
BLEND_FRAMES = 5


def gait_paths(mocap_dir):
    """Every multi-cycle walk and run clip: bandai/ then bandai-actions/."""
    return [mocap_dir / name for name in GAIT_CLIPS] + [mocap_dir.parent / "bandai-actions" / name for name in ACTION_GAITS]


def played_visibility(ext, obj, clip, frame_start, frame_end):
    """Seam visibility of the action on ``obj`` played from ``frame_start`` over PLAYED_CYCLES cycles past ``frame_end``.

    clip: the raw take as read before looping, whose joints' accelerations are the yardstick.
    """
    period = frame_end - frame_start
    frames = np.arange(frame_start - 1, frame_end + PLAYED_CYCLES * period + 2)
    pose = evaluated_pose(obj, frames)[:, [obj.pose.bones.find(name) for name in clip.bone_names]]
    world = np.array(obj.matrix_world)
    positions = pose[..., :3, 3] @ world[:3, :3].T + world[:3, 3]
    wraps = frame_end + period * np.arange(PLAYED_CYCLES + 1) - frames[0]
    reference = ext.core.measure.seam.clip_baseline(clip).acceleration
    return ext.core.measure.seam.played_visibility(positions, clip.dt, wraps, reference)


def linear_blend_loop(ext, clip, frame_start, frame_end, blend_frames=BLEND_FRAMES):
    """A simple add-on's loop of the range: its last frames blended linearly toward the first frame's pose.

    Every channel is blended (rotations by slerp); a travelling root keeps its
    travel (its target is the first frame moved by the range's horizontal
    displacement, which the Cycles modifier's offset then repeats) and is
    turned back to the first frame's heading. Returns a LoopResult for write_loop.
    """
    core = ext.core
    first = int(frame_start - clip.frames[0])
    segment = clip.slice_frames(first, first + frame_end - frame_start + 1)
    tail = slice(segment.num_frames - blend_frames, segment.num_frames)
    weight = np.arange(1, blend_frames + 1) / blend_frames
    w3 = weight[:, None, None]
    location = segment.location.copy()
    rotation = segment.rotation.copy()
    location[tail] = (1.0 - w3) * location[tail] + w3 * location[0]
    rotation[tail] = core.motion.quat.slerp(rotation[tail], np.broadcast_to(rotation[0], rotation[tail].shape), w3[..., 0])
    root = core.motion.root.find_moving_root(segment)
    if root is None:
        return core.loop.make.LoopResult(segment.with_channels(location=location, rotation=rotation), -1, "LOOP", None, None)
    location[:, root], rotation[:, root] = segment.location[:, root], segment.rotation[:, root]
    global_root, _ = core.motion.root.root_frames(segment, root)
    position, orientation = global_root[:, :3, 3].copy(), core.motion.quat.from_matrix(global_root[:, :3, :3])
    target = position[0].copy()
    target[:2] = position[-1, :2]
    position[tail] = (1.0 - weight[:, None]) * position[tail] + weight[:, None] * target
    orientation[tail] = core.motion.quat.slerp(orientation[tail], np.broadcast_to(orientation[0], orientation[tail].shape), weight)
    blended = core.motion.root.with_root_global(segment.with_channels(location=location, rotation=rotation), root, position, orientation)
    return core.loop.make.LoopResult(blended, root, "TRAVEL", None, None)


# Blender's playback through the Cycles modifiers can differ between versions: the first walk is played on every bpy.
@pytest.fixture(params=[pytest.param(k, id=name, marks=[pytest.mark.every_blender] if k == 0 else [])
                        for k, name in enumerate(list(GAIT_CLIPS) + list(ACTION_GAITS))])
def gait_path(mocap_dir, request):
    return gait_paths(mocap_dir)[request.param]


def test_default_loop_plays_no_more_visible_than_an_ordinary_frame(loopsmith, blank, gait_path):
    obj = import_bvh(gait_path)
    source = obj.animation_data.action
    clip = loopsmith.bridge.clip_io.read_clip(obj)
    assert bpy.ops.loopsmith.find_loop() == {"FINISHED"}
    assert bpy.ops.loopsmith.make_loop() == {"FINISHED"}
    result = bpy.context.scene.loopsmith.result
    start, end = result.frame_start, result.frame_end
    default = played_visibility(loopsmith, obj, clip, start, end)
    assert default <= 1.0, f"{gait_path.name} {start}-{end}: played seam visibility {default:.2f}"

    loopsmith.bridge.action_api.assign_action(obj, source)
    loopsmith.bridge.clip_io.write_loop(obj, linear_blend_loop(loopsmith, clip, start, end), source)
    blended = played_visibility(loopsmith, obj, clip, start, end)
    assert default < blended, f"{gait_path.name}: default {default:.2f}, {BLEND_FRAMES}-frame linear blend {blended:.2f}"


#: Played numbers this close are equal: the core ranks on its own forward kinematics, Blender plays its evaluated pose.
ROUNDING = 0.01


@pytest.mark.parametrize("cycles", (0, 2), ids=("best", "two-cycle"))
def test_default_loop_plays_as_the_least_visible_method(loopsmith, blank, gait_path, cycles):
    """Make Loop's default (AUTO) against every method it tries, each loop played by Blender over two cycles.

    The yardstick is the one Make Loop reports with: the accelerations of the range's own raw frames.
    """
    obj = import_bvh(gait_path)
    source = obj.animation_data.action
    clip = loopsmith.bridge.clip_io.read_clip(obj)
    assert bpy.ops.loopsmith.make_loop(cycles=cycles) == {"FINISHED"}  # every setting at its default: Find Loop, then AUTO
    stored = bpy.context.scene.loopsmith.result
    start, end = stored.frame_start, stored.frame_end
    cut = clip.slice_frames(int(start - clip.frames[0]), int(end - clip.frames[0]) + 1)
    default = played_visibility(loopsmith, obj, cut, start, end)
    # AUTO makes each method with the feet locked and without, and keeps among those its own verdict passes best (a
    # crossfade whose leg pops gives way): those are played.
    made = {(method, lock): loopsmith.core.loop.make.make_loop(clip, start, end, loopsmith.core.loop.stitch.StitchParameters(method=method),
                                                               lock_feet=lock)
            for method in loopsmith.core.loop.stitch.AUTO_METHODS for lock in (True, False)}
    words = {key: own_verdict(loopsmith, loop) for key, loop in made.items()}
    single = {}
    for key in (key for key, word in words.items() if word == min(words.values())):
        loopsmith.bridge.action_api.assign_action(obj, source)
        loopsmith.bridge.clip_io.write_loop(obj, made[key], source)
        single[key] = played_visibility(loopsmith, obj, cut, start, end)
    numbers = ", ".join(f"{method}{'' if lock else ' unlocked'} {value:.3f}" for (method, lock), value in single.items())
    # A near tie goes to the simpler method, and one as good to the eye whose feet do not slide may be kept.
    margin = ROUNDING + max(loopsmith.core.loop.make.AUTO_TIE, loopsmith.core.loop.make.SKATING_MARGIN)
    assert default <= min(single.values()) + margin, f"{gait_path.name} {start}-{end}: default {default:.3f} ({stored.method}); {numbers}"
    if min(single.values()) <= 1.0:
        assert default <= 1.0, f"{gait_path.name} {start}-{end}: default {default:.3f}; {numbers}"
    assert stored.method in stored.methods_tried and stored.methods_tried.count(",") == len(loopsmith.core.loop.stitch.AUTO_METHODS) - 2


def own_verdict(loopsmith, made):
    """The loop's verdict on its seam, pops, floor and the raw cut, as AUTO ranks it: its word's rank (0 GOOD)."""
    verdict = loopsmith.core.measure.verdict
    judged = verdict.of_seam(made.after.visibility, made.after.velocity_jump_ratio, made.body.floor_offset, made.body.pelvis_offset,
                             step_ratio=loopsmith.core.loop.make.largest_step_ratio(made), raw_visibility=made.before.visibility)
    return verdict.WORDS.index(judged.word)
