"""Scene settings (``scene.loopsmith``) and the operator properties they feed.

Each parameter is defined once here; the PropertyGroup and the operators
take fresh copies of the same definitions, and operators copy the scene's
values into every property the caller did not set when they run, so the
panel, the redo panel, hotkeys and scripts all run with the same settings.

Each tool's section ends in a mixin of its scene settings (``LoopSettings``,
``TransitionSettings``...); ``LoopsmithSettings`` combines them into the one
registered group, so every setting stays at ``scene.loopsmith.<name>``.
"""

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatProperty, IntProperty, PointerProperty, StringProperty

from .core.engine import profiles
from .core.loop import stitch
from .core.loop.stitch import StitchParameters


# Shared by the tools

# A mode and the frames that, given without it, mean MANUAL.
_MANUAL_FRAMES = {"range_mode": ("frame_start", "frame_end"), "point_mode": ("frame_a", "frame_b")}


def copy_scene_settings(operator: bpy.types.Operator, settings: "LoopsmithSettings", names: tuple[str, ...]) -> None:
    """Give the operator the scene's values for the properties its caller did not set.

    A caller that sets the frames (a range, a transition point) but not their mode gets those frames (MANUAL).
    """
    is_set = operator.properties.is_property_set
    manual = [mode for mode, frames in _MANUAL_FRAMES.items()
              if mode in names and not is_set(mode) and any(is_set(frame) for frame in frames)]
    for name in names:
        if not is_set(name):
            setattr(operator, name, getattr(settings, name))
    for mode in manual:
        setattr(operator, mode, "MANUAL")


def _matching_action_names(self, context, edit_text):
    """Names of the actions whose bones the active armature has (the target picker's list)."""
    from .bridge import clip_io

    obj = context.active_object
    if obj is None or obj.type != "ARMATURE":
        return []
    text = edit_text.lower()
    return [action.name for action in bpy.data.actions
            if text in action.name.lower() and clip_io.action_problem(action, obj) is None]


def _action_picker(name, description):
    """A text field that suggests the actions whose bones the active armature has."""
    return StringProperty(name=name, description=description, search=_matching_action_names, search_options={"SORT", "SUGGESTION"})


# Find Loop and Make Loop

# Each item keeps its number (saved files store it): the methods 0-6 as they always were, AUTO (listed first) after them.
METHOD_ITEMS = tuple((name, label, text[0].upper() + text[1:], "NONE", stitch.METHODS.index(name) if name in stitch.METHODS else len(stitch.METHODS))
                     for name, (label, text) in stitch.CHOICE_INFO.items())
SIDE_ITEMS = (
    ("BOTH", "Both", "Split the correction between start and end by the ratio"),
    ("START", "Start", "Correct only the start of the loop"),
    ("END", "End", "Correct only the end of the loop"),
)
ROOT_MODE_ITEMS = (
    ("AUTO", "Automatic", "Travel for clips that move, Loop for clips in place"),
    ("TRAVEL", "Travel", "Keep the root's displacement; remove only its velocity mismatch, in character space"),
    ("LOOP", "Loop", "Loop the root like any other bone (in-place clips)"),
    ("IN_PLACE", "In Place", "Remove the root's steady horizontal travel, then loop it"),
)
LOOP_MODE_ITEMS = (
    ("CLAMP", "Clamp", "The last frame repeats the first (Blender's cycles, most engines)"),
    ("WRAP", "Wrap", "Drop the repeated last frame, for engines that interpolate last to first"),
)
RANGE_MODE_ITEMS = (
    ("AUTO", "Automatic", "Find the best loop range first"),
    ("FOUND", "Found Loop", "The loop chosen in Find Loop's list"),
    ("ACTION", "Action Range", "Loop the action's whole frame range"),
    ("MANUAL", "Manual", "Loop the frames from Start to End"),
)
GRADE_ITEMS = (
    ("GOOD", "Good", "A raw cut would already be hard to see", "STRIP_COLOR_04", 0),
    ("FAIR", "Fair", "A visible cut that Make Loop can hide", "STRIP_COLOR_03", 1),
    ("POOR", "Poor", "The motion barely repeats here", "STRIP_COLOR_01", 2),
)


def make_loop_properties() -> dict:
    """Fresh definitions of Make Loop's parameters (times in seconds); the stitching defaults are the core's."""
    seconds = {"subtype": "TIME_ABSOLUTE", "unit": "TIME_ABSOLUTE", "min": 0.0, "soft_max": 2.0}
    core = StitchParameters()
    return {
        "range_mode": EnumProperty(name="Range", items=RANGE_MODE_ITEMS, default="AUTO"),
        "frame_start": IntProperty(name="Start", description="First frame of the loop", default=1),
        "frame_end": IntProperty(name="End", description="Frame where the loop wraps (equal to the start after looping)", default=61),
        "method": EnumProperty(name="Method", items=METHOD_ITEMS, default=core.method),
        "side": EnumProperty(name="Side", items=SIDE_ITEMS, default=core.side),
        "ratio": FloatProperty(name="Ratio", description="Share of the correction made at the start", default=core.ratio, min=0.0, max=1.0, subtype="FACTOR"),
        "halflife_start": FloatProperty(name="Half-life Start", default=core.halflife_start, **seconds),
        "halflife_end": FloatProperty(name="Half-life End", default=core.halflife_end, **seconds),
        "blend_start": FloatProperty(name="Blend Start", description="Blend time at the start", default=core.blend_start, **seconds),
        "blend_end": FloatProperty(name="Blend End", description="Blend time at the end", default=core.blend_end, **seconds),
        "softfade_start": FloatProperty(name="Fade Start", description="Softfade duration at the start", default=core.softfade_start, **seconds),
        "softfade_end": FloatProperty(name="Fade End", description="Softfade duration at the end", default=core.softfade_end, **seconds),
        "hardness_start": FloatProperty(name="Hardness Start", default=core.hardness_start, min=0.1, soft_max=50.0),
        "hardness_end": FloatProperty(name="Hardness End", default=core.hardness_end, min=0.1, soft_max=50.0),
        "crossfade": FloatProperty(name="Crossfade", description="Time blended before the seam", default=core.crossfade, **seconds),
        "crossfade_preroll": BoolProperty(name="Use Pre-roll", description="Blend towards the frames before the loop start, when there are any", default=core.crossfade_preroll),
        "root_mode": EnumProperty(name="Root", items=ROOT_MODE_ITEMS, default="AUTO"),
        "root_bone": StringProperty(name="Root Bone", description="The bone that carries the travel; empty finds it"),
        "root_blend": FloatProperty(name="Root Blend", description="Blend time of the root's velocity correction", default=0.5, **seconds),
        "lock_feet": BoolProperty(name="Lock Feet", description="Re-solve the legs so feet planted near the seam do not slide", default=True),
        "ground": BoolProperty(name="Ground", description="Move the character up or down so its feet stand on the floor", default=False),
        "loop_mode": EnumProperty(name="Loop Mode", items=LOOP_MODE_ITEMS, default="CLAMP"),
        "replace_action": BoolProperty(name="Replace Action", description="Replace the original action instead of writing a new one", default=False),
    }


def find_loop_properties() -> dict:
    """Fresh definitions of Find Loop's parameters (times in seconds)."""
    seconds = {"subtype": "TIME_ABSOLUTE", "unit": "TIME_ABSOLUTE", "min": 0.0}
    return {
        "min_length": FloatProperty(name="Shortest", description="Shortest loop to consider", default=0.4, soft_max=10.0, **seconds),
        "max_length": FloatProperty(name="Longest", description="Longest loop to consider", default=4.0, soft_max=20.0, **seconds),
        "cycles": IntProperty(name="Cycles", description="Loop this many periods (0: any)", default=0, min=0, soft_max=8),
        "skip_edges": FloatProperty(name="Skip Edges", description="Ignore this much at each end of the take (T-poses, settling)", default=0.0, soft_max=2.0, **seconds),
        "add_markers": BoolProperty(name="Add Markers", description="Place timeline markers at the best range", default=False),
    }


class LoopsmithCandidate(bpy.types.PropertyGroup):
    """One loop range found by Find Loop."""

    __annotations__ = {
        "frame_start": IntProperty(name="Start"),
        "frame_end": IntProperty(name="End"),
        "cycles": IntProperty(name="Cycles"),
        "score": FloatProperty(name="Score", description="Predicted seam visibility of a raw cut (lower is better)"),
        "grade": EnumProperty(name="Grade", items=GRADE_ITEMS),
        "correlation": FloatProperty(name="Correlation", default=1.0,
                                     description="How alike the motion is one loop later (1: it repeats exactly; under 0.5 it does not repeat)"),
    }


class LoopsmithResult(bpy.types.PropertyGroup):
    """The last Make Loop's numbers, for the panel."""

    __annotations__ = {
        "valid": BoolProperty(),
        "action": StringProperty(name="Action"),
        "frame_start": IntProperty(name="Start"),
        "frame_end": IntProperty(name="End"),
        "root_mode": StringProperty(name="Root"),
        "root_bone": StringProperty(name="Root Bone"),
        "visibility_before": FloatProperty(name="Visibility Before"),
        "visibility_after": FloatProperty(name="Visibility After"),
        "step_before": FloatProperty(name="Step Before", subtype="DISTANCE", unit="LENGTH"),
        "step_after": FloatProperty(name="Step After", subtype="DISTANCE", unit="LENGTH"),
        "jump_before": FloatProperty(name="Velocity Jump Before", unit="VELOCITY"),
        "jump_after": FloatProperty(name="Velocity Jump After", unit="VELOCITY"),
        "curves_stitched": IntProperty(name="Curves Stitched", description="Other curves (custom properties...) looped like the bones"),
        "curves_stepped": IntProperty(name="Stepped Curves", description="Constant-interpolation curves that repeat as keyed"),
        "method": StringProperty(name="Method", description="The method the loop was made with (Best Measured: the one kept)"),
        "methods_tried": StringProperty(name="Methods Tried", description="Best Measured: each method's seam visibility as played"),
    }


def chosen_candidate(settings: "LoopsmithSettings") -> "LoopsmithCandidate | None":
    """The candidate selected in Find Loop's list, or None."""
    if 0 <= settings.active_candidate < len(settings.candidates):
        return settings.candidates[settings.active_candidate]
    return None


def stale_candidates(settings: "LoopsmithSettings", obj: bpy.types.Object | None) -> str | None:
    """Why Find Loop's candidates do not belong to ``obj``'s current action, or None when they do."""
    owner, action = settings.candidates_object, settings.candidates_action
    current = obj.animation_data.action if obj is not None and obj.animation_data else None
    if owner is None or action is None:
        return "Find Loop's list is out of date: run Find Loop again"
    if owner != obj or action != current:
        return f"Find Loop's list is for '{action.name}' on '{owner.name}', not this action: run Find Loop again"
    return None


class LoopSettings:
    """Find Loop's and Make Loop's settings, the candidates Find Loop found and the last Make Loop's numbers."""

    __annotations__ = {
        **make_loop_properties(),
        **find_loop_properties(),
        "candidates": CollectionProperty(type=LoopsmithCandidate),
        # No update callback: bpy 4.2 crashes at exit after one was registered.
        "active_candidate": IntProperty(name="Candidate", default=-1),
        # What the candidates were found on: frames of another action mean nothing.
        "candidates_object": PointerProperty(type=bpy.types.Object),
        "candidates_action": PointerProperty(type=bpy.types.Action),
        "result": PointerProperty(type=LoopsmithResult),
    }


MAKE_LOOP_NAMES = tuple(make_loop_properties())
FIND_LOOP_NAMES = tuple(find_loop_properties())


# Make Transition

TRANSITION_METHOD_ITEMS = (
    ("AUTO", "Automatic", "Try both blends and a few lengths; keep the least visible"),
    ("INERTIALIZE", "Inertialize", "Switch to the target at once and let the difference die away over the blend"),
    ("CROSSFADE", "Crossfade", "Fade from the source, played on, to the target over the blend"),
)
POINT_MODE_ITEMS = (
    ("AUTO", "Automatic", "Find the best transition point near the source's end and the target's start"),
    ("FOUND", "Found Point", "The point chosen in the Transition list"),
    ("MANUAL", "Manual", "Blend from the source's frame A into the target's frame B"),
)
JOINT_SET_ITEMS = (
    ("ALL", "All", "Match the whole body"),
    ("LOWER", "Lower Body", "Match the hips, legs and feet (gaits)"),
    ("UPPER", "Upper Body", "Match the spine, arms and head"),
)
JOINT_WEIGHT_ITEMS = (
    ("LENGTH", "Bone Length", "Weigh each joint by the length of its bone"),
    ("UNIFORM", "Uniform", "Weigh every joint alike"),
)


def transition_properties() -> dict:
    """Fresh definitions of Make Transition's parameters (frames are frame numbers, times seconds)."""
    return {
        "target_action": _action_picker("Target", "The action to blend into (any action whose bones this armature has)"),
        "point_mode": EnumProperty(name="Point", items=POINT_MODE_ITEMS, default="AUTO"),
        "frame_a": IntProperty(name="Frame A", description="Source frame where the blend starts", default=1),
        "frame_b": IntProperty(name="Frame B", description="Target frame where the blend starts", default=1),
        "transition_method": EnumProperty(name="Method", items=TRANSITION_METHOD_ITEMS, default="AUTO"),
        "auto_length": BoolProperty(name="Automatic Length", description="Choose the blend length from how much the two motions differ", default=True),
        "blend_length": FloatProperty(name="Blend Length", description="Duration of the blend", default=0.5, min=0.1, soft_max=2.0,
                                      subtype="TIME_ABSOLUTE", unit="TIME_ABSOLUTE"),
        "use_timewarp": BoolProperty(name="Time Warp", description="Pair the crossfaded frames along the best time warp, not one to one", default=True),
        "use_align": BoolProperty(name="Align Target", description="Turn and move the target on the floor so it continues the source", default=True),
        "joint_set": EnumProperty(name="Joints", description="Joints compared to find the point", items=JOINT_SET_ITEMS, default="ALL"),
        "joint_weights": EnumProperty(name="Weights", description="How the compared joints count", items=JOINT_WEIGHT_ITEMS, default="LENGTH"),
        "transition_lock_feet": BoolProperty(name="Lock Feet", description="Keep feet planted through the blend", default=True),
    }


class LoopsmithTransitionPoint(bpy.types.PropertyGroup):
    """One transition point found by Make Transition (frame numbers)."""

    __annotations__ = {
        "frame_a": IntProperty(name="Frame A"),
        "frame_b": IntProperty(name="Frame B"),
        "cost": FloatProperty(name="Cost", description="Pose distance over the matching window plus the foot-contact penalty (lower is better)"),
        "contact_match": BoolProperty(name="Feet Match", description="The same feet are planted in both clips"),
    }


def chosen_transition_point(settings: "LoopsmithSettings") -> "LoopsmithTransitionPoint | None":
    """The point selected in the Transition list, or None."""
    if 0 <= settings.active_transition_point < len(settings.transition_points):
        return settings.transition_points[settings.active_transition_point]
    return None


def stale_transition_points(settings: "LoopsmithSettings", target: bpy.types.Action | None) -> str | None:
    """Why the Transition list does not belong to blending into ``target``, or None when it does (it names its own source)."""
    if settings.points_source is None or settings.points_target is None:
        return "The Transition list is out of date: run Make Transition with an automatic point"
    if settings.points_target != target:
        return f"The Transition list is for '{settings.points_source.name}' to '{settings.points_target.name}': run Make Transition again"
    return None


class TransitionSettings:
    """Make Transition's settings, its ranked points and the last distance map."""

    __annotations__ = {
        **transition_properties(),
        "transition_points": CollectionProperty(type=LoopsmithTransitionPoint),
        "active_transition_point": IntProperty(name="Transition Point", default=-1),
        # What the points were found between.
        "points_source": PointerProperty(type=bpy.types.Action),
        "points_target": PointerProperty(type=bpy.types.Action),
        "distance_image": PointerProperty(type=bpy.types.Image, description="The last transition's distance map"),
    }


TRANSITION_NAMES = tuple(transition_properties())


# The editing operators

INTERPOLATION_ITEMS = (
    ("CUBIC", "Cubic", "A smooth curve through the frames: speeds do not jump at every original frame"),
    ("LINEAR", "Linear", "Straight between frames (locations lerped, rotations slerped)"),
)
RETIME_ITEMS = (
    ("SPEED", "Speed", "Play this many times as fast"),
    ("DURATION", "Duration", "Stretch or squeeze the action to last this long"),
)
HOLD_ITEMS = (
    ("CURRENT", "Current Frame", "Hold the pose at the current frame"),
    ("FRAME", "Frame", "Hold the pose at a chosen frame"),
    ("REST", "Rest Pose", "Hold the rest pose"),
)
SPLICE_TIMING_ITEMS = (
    ("AUTO", "Automatic", "Line up the lower bodies' steps when both clips step"),
    ("WARP", "Time Warp", "Line up the lower bodies' steps first"),
    ("NONE", "None", "Play the upper body at its own speed"),
)
BLEND_TIMING_ITEMS = (
    ("CONTACTS", "Foot Contacts", "The same foot lands at the same moment in both"),
    ("FRACTION", "Fraction", "Both sampled at the same fraction of their length"),
    ("WARP", "Time Warp", "Follow the time warp of the two lower bodies"),
)
SHORTER_ITEMS = (
    ("CLAMP", "Clamp", "End with the shorter motion (splice: hold its last pose)"),
    ("LOOP", "Loop", "Play the shorter motion again"),
)


def edit_properties() -> dict:
    """Fresh definitions of the editing operators' parameters (frames are frame numbers, times seconds)."""
    seconds = {"subtype": "TIME_ABSOLUTE", "unit": "TIME_ABSOLUTE"}
    return {
        "resample_fps": FloatProperty(name="Frame Rate", description="The new frame rate, frames per second", default=60.0, min=1.0, max=1000.0,
                                      soft_max=240.0),
        "resample_interpolation": EnumProperty(name="Interpolation", items=INTERPOLATION_ITEMS, default="CUBIC"),
        "set_scene_rate": BoolProperty(name="Set Scene Frame Rate", description="Play the scene at the new rate, so the action keeps its timing",
                                       default=True),
        "retime_by": EnumProperty(name="Retime By", items=RETIME_ITEMS, default="SPEED"),
        "speed": FloatProperty(name="Speed", description="How many times as fast (0.5: half speed, twice as long)", default=0.5, min=0.01,
                               max=100.0, soft_max=4.0),
        "duration": FloatProperty(name="Duration", description="The new length", default=2.0, min=0.01, soft_max=60.0, **seconds),
        "retime_interpolation": EnumProperty(name="Interpolation", items=INTERPOLATION_ITEMS, default="CUBIC"),
        "freeze_bones": StringProperty(name="Bones", description="Bones to hold still, separated by commas; empty: the selected pose bones"),
        "freeze_hold": EnumProperty(name="Hold", items=HOLD_ITEMS, default="CURRENT"),
        "freeze_frame": IntProperty(name="Frame", description="The frame whose pose is held", default=1),
        "freeze_use_range": BoolProperty(name="Only a Range", description="Freeze only some frames, easing in and out around them", default=False),
        "freeze_start": IntProperty(name="Start", description="First frozen frame", default=1),
        "freeze_end": IntProperty(name="End", description="Last frozen frame", default=30),
        "freeze_blend": FloatProperty(name="Ease", description="Easing in before and out after the range", default=0.5, min=0.0, soft_max=2.0,
                                      **seconds),
        "freeze_location": BoolProperty(name="Location Too", description="Hold the bones' location as well as their rotation", default=False),
        "upper_action": _action_picker("Upper Body", "The action whose upper body is carried over onto this one's legs"),
        "upper_root": StringProperty(name="Upper Body From", description="The first bone of the upper body; empty finds the spine above the pelvis"),
        "splice_timing": EnumProperty(name="Timing", items=SPLICE_TIMING_ITEMS, default="AUTO"),
        "splice_shorter": EnumProperty(name="Shorter", items=SHORTER_ITEMS, default="CLAMP"),
        "blend_action": _action_picker("Blend With", "The action blended with this one (B)"),
        "blend_weight": FloatProperty(name="Weight", description="How much of the other action: 0 is this one, 1 the other", default=0.5,
                                      min=0.0, max=1.0, subtype="FACTOR"),
        "use_weight_ramp": BoolProperty(name="Ramp", description="Change the weight evenly from Weight at the start to Weight End at the end",
                                        default=False),
        "blend_weight_end": FloatProperty(name="Weight End", description="The other action's weight at the end of the blend", default=1.0,
                                          min=0.0, max=1.0, subtype="FACTOR"),
        "blend_timing": EnumProperty(name="Timing", items=BLEND_TIMING_ITEMS, default="CONTACTS"),
        "blend_shorter": EnumProperty(name="Shorter", items=SHORTER_ITEMS, default="CLAMP"),
    }


class EditSettings:
    """The editing operators' settings."""

    __annotations__ = edit_properties()


# Root motion and the game-engine export

ROOT_MOTION_ITEMS = (
    ("HEADING", "Position and Heading", "The root follows the pelvis over the floor and turns with it"),
    ("POSITION", "Position Only", "The root follows the pelvis over the floor and keeps the first frame's heading"),
)
ROOT_HEIGHT_ITEMS = (
    ("PELVIS", "Pelvis", "The root stays on the floor; the pelvis keeps its height"),
    ("ROOT", "Root", "The root rises and falls with the pelvis's smoothed height (stairs, jumps)"),
)
ENGINE_ITEMS = tuple((name.upper(), profile.label, f"{profile.suffix[1:].upper()}: {profile.shows}")
                     for name, profile in profiles.PROFILES.items())


def engine_properties() -> dict:
    """Fresh definitions of root motion's and the engine export's parameters."""
    return {
        "root_motion_mode": EnumProperty(name="Root Motion", items=ROOT_MOTION_ITEMS, default="HEADING"),
        "root_height": EnumProperty(name="Height On", items=ROOT_HEIGHT_ITEMS, default="PELVIS"),
        "root_in_place": BoolProperty(name="In Place", description="Remove the travel instead: the root stays at the origin "
                                                                  "(engines that bake the motion into the pose)", default=False),
        "root_name": StringProperty(name="Root Name", description="The name of the root bone, when one is added", default="root"),
        "root_smoothing": FloatProperty(name="Smoothing", description="The root's path and heading are smoothed over this long",
                                        default=0.25, min=0.0, soft_max=2.0, subtype="TIME_ABSOLUTE", unit="TIME_ABSOLUTE"),
        "engine": EnumProperty(name="Engine", items=ENGINE_ITEMS, default="UNREAL"),
    }


class EngineSettings:
    """Extract Root Motion's and Export for Engine's settings."""

    __annotations__ = engine_properties()


ROOT_MOTION_NAMES = ("root_motion_mode", "root_height", "root_in_place", "root_name", "root_smoothing")


# Compose

def compose_properties() -> dict:
    """Fresh definitions of Compose's parameters."""
    return {
        "compose_name": StringProperty(name="Name", description="The new action's name", default="composition"),
        "compose_loop": BoolProperty(name="Loop", description="The last action hands over to the first and the whole plays as a seamless cycle",
                                     default=False),
        "compose_trim": BoolProperty(name="Trim Idle", description="Cut idle frames (little motion) at each action's start and end first",
                                     default=False),
        "compose_nla": BoolProperty(name="NLA Strips", description="Also lay the composition out as an NLA track, one strip per segment, "
                                                                   "to keep editing it", default=False),
    }


class ComposeSettings:
    """Compose's settings."""

    __annotations__ = compose_properties()


COMPOSE_NAMES = tuple(compose_properties())


# The motion graph and Synthesize

def graph_properties() -> dict:
    """Fresh definitions of Build Graph's parameters (pose distances, as the graph measures them)."""
    return {
        "graph_threshold": FloatProperty(name="Threshold", description="Largest pose distance a transition may bridge (0: chosen from "
                                                                       "the library's own distances)", default=0.0, min=0.0, soft_max=10.0),
    }


def synth_properties() -> dict:
    """Fresh definitions of Synthesize's parameters (times in seconds)."""
    return {
        "synth_seconds": FloatProperty(name="Duration", description="How long the synthesized motion lasts", default=30.0, min=1.0,
                                       soft_max=600.0, subtype="TIME_ABSOLUTE", unit="TIME_ABSOLUTE"),
        "synth_seed": IntProperty(name="Seed", description="The same seed gives the same motion", default=0, min=0),
        "synth_name": StringProperty(name="Name", description="The new action's name", default="synthesis"),
        "synth_via": StringProperty(name="Via", description="Actions (or words in their names) to pass through in order, separated by "
                                                            "commas; empty: a random walk"),
    }


class GraphSettings:
    """Build Graph's and Synthesize's settings."""

    __annotations__ = {**graph_properties(), **synth_properties()}


GRAPH_TEXT = "loopsmith_graph.json"  # the Text data-block that holds the file's motion graph
SYNTH_NAMES = tuple(synth_properties())


# Sync to Music (its settings live with the Sequence's, in whose panel it is)

MUSIC_SOURCE_ITEMS = (
    ("STRIP", "Sound Strip", "A sound strip in the scene's sequencer: the action is synced to the song where the strip plays it"),
    ("FILE", "File", "A song file: added to the sequencer as a sound strip from the action's first frame"),
)


def _sound_strip_names(self, context, edit_text):
    """Names of the sound strips in the scene's sequencer (the Strip field's suggestions)."""
    editor = context.scene.sequence_editor if context.scene else None
    if editor is None:
        return []
    strips = editor.strips if hasattr(editor, "strips") else editor.sequences  # 5.0, else 4.2 / 4.5
    text = edit_text.lower()
    return [strip.name for strip in strips if strip.type == "SOUND" and text in strip.name.lower()]


def music_properties() -> dict:
    """Fresh definitions of Sync to Music's parameters (times in seconds, stretches as speeds: 1 plays as captured)."""
    return {
        "music_source": EnumProperty(name="Song", description="Where the song comes from", items=MUSIC_SOURCE_ITEMS, default="STRIP"),
        "music_strip": StringProperty(name="Strip", description="The sound strip to sync to; empty: the first sound strip in the sequencer",
                                      search=_sound_strip_names, search_options={"SORT"}),
        "music_file": StringProperty(name="File", description="The song to sync to: any audio Blender plays (WAV, FLAC, OGG, MP3...)",
                                     subtype="FILE_PATH"),
        "music_start": FloatProperty(name="Music Start", description="Seconds into the song that play on the action's first frame "
                                     "(a file; a strip's place in the sequencer sets its own)", default=0.0, min=0.0, soft_max=600.0,
                                     subtype="TIME_ABSOLUTE", unit="TIME_ABSOLUTE"),
        "max_stretch_low": FloatProperty(name="Slowest", description="The slowest the action may play anywhere (1: as captured)",
                                         default=0.8, min=0.25, max=1.0),
        "max_stretch_high": FloatProperty(name="Fastest", description="The fastest the action may play anywhere (1: as captured)",
                                          default=1.25, min=1.0, max=4.0),
        "loop_bars": IntProperty(name="Loop Bar Beats", description="Make a loop of whole bars of this many beats (of a looping action); "
                                 "0: no loop", default=0, min=0, max=16),
    }


class LoopsmithMusicSync(bpy.types.PropertyGroup):
    """The last Sync to Music: the song's tempo and how the new action's keyposes meet its beats."""

    __annotations__ = {
        "valid": BoolProperty(default=False),
        "action": StringProperty(name="Action", description="The synced action"),
        "song": StringProperty(name="Song", description="The strip or file it was synced to"),
        "tempo_bpm": FloatProperty(name="Tempo", description="The song's tempo, beats per minute"),
        "ratio": FloatProperty(name="Keyposes per Beat", description="Keyposes put on each beat (1, 0.5: one per two beats, 2: on beats "
                               "and half beats)"),
        "speed": FloatProperty(name="Speed", description="The overall speed the tempos asked (1: as captured)"),
        "stretch_low": FloatProperty(name="Slowest", description="The slowest the synced action plays"),
        "stretch_high": FloatProperty(name="Fastest", description="The fastest the synced action plays"),
        "on_beat_before": FloatProperty(name="On the Beat Before", description="Share of the keyposes within a frame of a beat before the sync"),
        "on_beat_after": FloatProperty(name="On the Beat", description="Share of the keyposes within a frame of a beat after the sync"),
        "on_beat_chance": FloatProperty(name="Chance", description="The share a motion would reach by chance"),
        "song_start": FloatProperty(name="Song Start", description="Seconds into the song on the synced action's first frame"),
        "verdict": StringProperty(name="Verdict"),
    }


MUSIC_NAMES = tuple(music_properties())


# The Sequence list that Compose strings together

class LoopsmithSequenceEntry(bpy.types.PropertyGroup):
    """One action of the Sequence, its range, the heading it starts with and how it hands over to the next."""

    __annotations__ = {
        "action": PointerProperty(name="Action", type=bpy.types.Action),
        "use_range": BoolProperty(name="Range", description="Use only some of the action's frames", default=False),
        "frame_start": IntProperty(name="Start", description="First frame used", default=1),
        "frame_end": IntProperty(name="End", description="Last frame used", default=100),
        "junction_method": EnumProperty(name="Method", description="How this action blends into the next", items=TRANSITION_METHOD_ITEMS,
                                        default="AUTO"),
        "junction_auto_length": BoolProperty(name="Automatic Length", description="Choose the blend length at this junction", default=True),
        "junction_length": FloatProperty(name="Blend Length", description="How long this action blends into the next", default=0.5, min=0.1, soft_max=2.0, subtype="TIME_ABSOLUTE", unit="TIME_ABSOLUTE"),
        "junction_point": EnumProperty(name="Point", items=POINT_MODE_ITEMS[0:1] + POINT_MODE_ITEMS[2:], default="AUTO",
                                       description="Where this action blends into the next"),
        "junction_frame_a": IntProperty(name="Frame A", description="This action's frame where the blend starts", default=1),
        "junction_frame_b": IntProperty(name="Frame B", description="The next action's frame where the blend starts", default=1),
        "heading": FloatProperty(name="Heading", description="Turn this action by this angle (positive to the left) from where the "
                                 "action before leaves the character, over the blend into it; 0 continues its heading. The first "
                                 "action keeps its own", default=0.0, min=-3.141592653589793, max=3.141592653589793, subtype="ANGLE"),
    }


class SequenceSettings:
    """The Sequence list and the candidate points of one of its junctions."""

    __annotations__ = {
        "sequence": CollectionProperty(type=LoopsmithSequenceEntry),
        "active_sequence_entry": IntProperty(name="Sequence Entry", default=-1),
        # Candidate points of one junction (junction_points_entry: the entry it starts from), as the Transition list's.
        "junction_points": CollectionProperty(type=LoopsmithTransitionPoint),
        "active_junction_point": IntProperty(name="Junction Point", default=-1),
        "junction_points_entry": IntProperty(default=-1),
        # Sync to Music: its parameters and its last result.
        **music_properties(),
        "music_sync": PointerProperty(type=LoopsmithMusicSync),
    }


# Blender registers a group's mixins last base first: listed in reverse, the settings keep the order of the sections above.
class LoopsmithSettings(SequenceSettings, GraphSettings, ComposeSettings, EngineSettings, EditSettings, TransitionSettings, LoopSettings,
                        bpy.types.PropertyGroup):
    """Loopsmith's per-scene settings."""


classes = (LoopsmithCandidate, LoopsmithTransitionPoint, LoopsmithResult, LoopsmithSequenceEntry, LoopsmithMusicSync,
           LoopsmithSettings)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


def register():
    _register_classes()
    bpy.types.Scene.loopsmith = PointerProperty(type=LoopsmithSettings)


def unregister():
    del bpy.types.Scene.loopsmith
    _unregister_classes()
