"""Writing a looped armature as BVH, FBX, GLB or .blend, and checking a written file before it replaces anything.

bpy side. :func:`write` writes only the armature's active action (the loop)
over the frames it is given, with its NLA strips muted, and leaves the scene
as it found it; :func:`verify` checks a written file's structure and content.
"""

import contextlib
import os
import pathlib

import bpy

from ..core.engine import profiles
from ..core.errors import ClipError
from ..core.formats import bvh
from ..core.formats.import_settings import ImportSettings
from ..files import interrupts, outputs, write_motion
from ..files.write_motion import ExportError
from . import action_api, action_curves, read_action, root_motion, timeline
from .importers import reason, silenced

FORMATS = (".bvh", ".fbx", ".glb", ".blend")


@contextlib.contextmanager
def _only_the_loop(obj, frame_start, frame_end):
    """Select only ``obj``, make it active, set the scene's (and the action's) range and mute its NLA strips; all restored afterwards.

    The exporters sample what the scene evaluates over its frame range, and
    the glTF exporter writes every unmuted strip's action as an animation.
    """
    scene = bpy.context.scene
    view_layer = bpy.context.view_layer
    selected = [other for other in view_layer.objects if other.select_get()]
    active = view_layer.objects.active
    kept_range = scene.frame_start, scene.frame_end, scene.frame_current
    action = obj.animation_data.action
    action_range = action.use_frame_range, action.frame_start, action.frame_end
    strips = {strip: strip.mute for track in obj.animation_data.nla_tracks for strip in track.strips}
    try:
        for other in view_layer.objects:
            other.select_set(other == obj)
        view_layer.objects.active = obj
        # The start first: setting it past the end moves the end along, while an end before the start is clamped.
        scene.frame_start, scene.frame_end = frame_start, frame_end
        # The glTF exporter samples the action's own range, whole frames only: a WRAP loop's closing frame lies past it, and
        # keys imported a hair before the last frame (29.99997 from a GLB's single-precision times) would lose that frame.
        action.use_frame_range, action.frame_start, action.frame_end = True, frame_start, frame_end
        for strip in strips:
            strip.mute = True
        yield scene
    finally:
        action.use_frame_range, action.frame_start, action.frame_end = action_range
        for strip, mute in strips.items():
            strip.mute = mute
        scene.frame_start, scene.frame_end = kept_range[:2]
        scene.frame_set(kept_range[2])
        for other in view_layer.objects:
            other.select_set(other in selected)
        view_layer.objects.active = active


@contextlib.contextmanager
def _playing(scene, frame_start, frame_end):
    """The scene's frame range set to ``frame_start..frame_end`` and its current frame to the start meanwhile, so a saved
    .blend plays the result (the action's own range: a WRAP loop's n distinct frames); restored afterwards."""
    kept = scene.frame_start, scene.frame_end, scene.frame_current
    try:
        # The start first: setting it past the end moves the end along, while an end before the start is clamped.
        scene.frame_start, scene.frame_end = frame_start, frame_end
        scene.frame_current = frame_start
        yield scene
    finally:
        scene.frame_start, scene.frame_end = kept[:2]
        scene.frame_current = kept[2]


@contextlib.contextmanager
def _renamed(collection, item, name):
    """``item`` of ``collection`` (scenes, objects, actions) under ``name`` meanwhile; another holder of the name steps aside.

    The FBX exporter names its take after the scene, the glTF exporter its animation after the action.
    """
    kept, other = item.name, collection.get(name)
    if other is item:
        yield
        return
    for holder in (item, other):
        if holder is not None and holder.library is not None:
            raise ExportError(f"'{holder.name}' is linked from a library and cannot be renamed '{name}' for the export")
    try:
        if other is not None:
            other.name = f"{name}.loopsmith"  # a unique name is made from it if needed
        item.name = name
        yield
    finally:
        item.name = kept
        if other is not None:
            other.name = name


@contextlib.contextmanager
def _starting_at_zero(obj, frame_start, frame_end):
    """A copy of the active action moved to begin at frame 0 played meanwhile, and the scene's range ``0..end - start``.

    Blender's FBX exporter times an action's keys by their frame numbers; an
    engine expects a take to start at 0. The user's action is not touched.
    """
    anim = obj.animation_data
    action, slot = anim.action, action_api.assigned_slot(obj)
    moved = action.copy()
    scene = bpy.context.scene
    try:
        action_api.assign_action(obj, moved)  # first: the curves shifted are those of the slot it plays on
        for fcurve in action_api.fcurves_of(moved, obj):
            action_curves.shift_keys(fcurve, -frame_start)
        if moved.use_frame_range:
            moved.frame_start, moved.frame_end = action.frame_start - frame_start, action.frame_end - frame_start
        scene.frame_start, scene.frame_end = 0, frame_end - frame_start
        yield
    finally:
        action_api.assign_action(obj, action, slot)
        bpy.data.actions.remove(moved)


@contextlib.contextmanager
def _root_named(obj, old, name):
    """Bone ``old`` (the floor bone an engine takes as its root; None: none) renamed ``name`` meanwhile.

    Blender renames the paths of the object's action along, and back afterwards.
    """
    if old is None or old == name:
        yield
        return
    try:
        root_motion.rename_bone(obj, old, name)
    except ClipError as error:
        raise ExportError(str(error)) from None
    try:
        yield
    finally:
        root_motion.rename_bone(obj, name, old)


@contextlib.contextmanager
def _engine_conventions(obj, profile, looping, root):
    """Meanwhile the names ``profile`` wants: the action's (a loop's animation name), the armature object's and the root bone's."""
    action = obj.animation_data.action
    with contextlib.ExitStack() as stack:
        stack.enter_context(_renamed(bpy.data.actions, action, profiles.animation_name(profile, action.name, looping)))
        if profile.armature_node:
            stack.enter_context(_renamed(bpy.data.objects, obj, profile.armature_node))
        stack.enter_context(_root_named(obj, root, profile.root_name))
        yield action.name


def write(obj, path, suffix, frame_start, frame_end, bvh_scale, bvh_source=None, profile=None, looping=False, root=None):
    """Write armature ``obj``'s active action (the loop) over frames ``frame_start..frame_end`` (inclusive) to ``path``.

    suffix: the format, one of :data:`FORMATS` (``path`` may be a temporary
    name). bvh_scale: metres per unit the clip was read at (0.01 for
    centimetres); a BVH is written back in those units. bvh_source: the
    input BVH's ``(BvhInfo, up axis)`` when it was one; a BVH output then
    keeps its axes and channel layout (otherwise it is Y up). Only the active
    action is written: a GLB holds one animation, named after the action,
    starting at 0 s; an FBX one take named after it, starting at 0 s.
    profile: an :class:`~..core.engine.profiles.EngineProfile`; an FBX or GLB
    is then written with its units, armature node name, (for a ``looping``
    action) animation name and root bone name: bone ``root`` (the floor bone
    on top, see :func:`.engine_files.engine_root`) is called
    ``profile.root_name`` in the file. A .blend is a copy of
    the whole file, its scene playing the action's frame range. Selection,
    active object, the scene's frame range and current frame are left as they were. Raises ExportError with a one-line
    reason (which does not name ``path``: the caller names its target).
    """
    if suffix not in FORMATS:
        raise ExportError(f"cannot write '{suffix}' files (only {', '.join(FORMATS)})")
    try:
        action = action_curves.require_action(obj)
        playing = read_action.resolve_range(action, pose=True) if suffix == ".blend" else None
    except ClipError as error:
        raise ExportError(str(error)) from None
    path = pathlib.Path(path)
    try:
        with silenced():
            if suffix == ".blend":
                with _playing(bpy.context.scene, *playing):
                    # An absolute path: Blender 4.5 saves a relative one beside its own module, not the working folder.
                    bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(path), copy=True)
            else:
                _export(obj, action, path, suffix, frame_start, frame_end, bvh_scale, bvh_source, profile, looping, root)
    except (RuntimeError, OSError, bvh.BvhError) as error:
        interrupts.check()  # an interrupt inside an exporter arrives wrapped in RuntimeError
        why = reason(error)
        if "RecursionError" in why:  # the exporters walk the bones recursively
            why = f"the bone hierarchy ({_depth(obj)} bones deep) is too deep for Blender's {suffix} exporter"
        # Blender's message may name the temporary file: the caller names the target.
        raise ExportError(f"cannot be written as {suffix}: {why.replace(str(path), 'the file')}") from None
    interrupts.check()  # one raised in a handler Blender runs itself (save_pre, an add-on's) was printed and swallowed by it


def _export(obj, action, path, suffix, frame_start, frame_end, bvh_scale, bvh_source, profile, looping, root):
    """:func:`write` of a BVH, FBX or GLB by Blender's exporter, with only the loop in the scene (see :func:`write`)."""
    with contextlib.ExitStack() as stack:
        scene = stack.enter_context(_only_the_loop(obj, frame_start, frame_end))
        name = action.name
        if profile is not None and suffix != ".bvh":
            name = stack.enter_context(_engine_conventions(obj, profile, looping, root))
        if suffix == ".bvh":
            bpy.ops.export_anim.bvh(filepath=str(path), frame_start=frame_start, frame_end=frame_end,
                                    global_scale=1.0 / bvh_scale)
            # Blender writes Z up, its own channels and a Frame Time to 6 decimals; give the file the
            # input's axes and layout and the scene's exact rate.
            text, frame_time = path.read_text(), 1.0 / timeline.scene_fps(scene)
            path.write_text(bvh.match_layout(text, *bvh_source, frame_time=frame_time) if bvh_source
                            else bvh.change_axes(text, frame_time=frame_time))
        elif suffix == ".fbx":
            # Every frame keyed: the default key reduction moves joints by millimetres. FBX_SCALE_NONE writes
            # centimetres (unit scale 1), FBX_SCALE_ALL metres (unit scale 100): the engine's metres at scale 1.
            fbx_options = {} if profile is None else {"add_leaf_bones": False,
                                                      "apply_scale_options": "FBX_SCALE_NONE" if profile.centimetres else "FBX_SCALE_ALL"}
            with _renamed(bpy.data.scenes, scene, name), _starting_at_zero(obj, frame_start, frame_end):
                bpy.ops.export_scene.fbx(filepath=str(path), use_selection=True, object_types={"ARMATURE"},
                                         bake_anim_use_all_actions=False, bake_anim_use_nla_strips=False,
                                         bake_anim_simplify_factor=0.0, **fbx_options)
        else:
            # By default every action the armature could play is written, the original first;
            # 'ACTIVE_ACTIONS' would still merge them in 4.2.
            with timeline.gltf_rate(scene):
                bpy.ops.export_scene.gltf(filepath=str(path), export_format="GLB", use_selection=True,
                                          export_animation_mode="ACTIONS", export_anim_single_armature=False,
                                          export_frame_range=True, export_anim_slide_to_zero=True)


def _depth(obj):
    """How many bones the longest chain from a root of ``obj``'s armature holds."""
    depths = {}
    for bone in obj.data.bones:
        chain = []
        while bone is not None and bone.name not in depths:  # up to a bone already counted: each bone is walked once
            chain.append(bone.name)
            bone = bone.parent
        depth = depths[bone.name] if bone is not None else 0
        for name in reversed(chain):
            depth += 1
            depths[name] = depth
    return max(depths.values(), default=0)


def verify(path, suffix, frames=None, fps=None):
    """:func:`..files.write_motion.verify`, a .blend also read by Blender as a library (the open file is kept): it must hold
    an object and an action. ExportError naming what is wrong."""
    write_motion.verify(path, suffix, frames, fps)
    problem = _blend_read_problem(path) if suffix == ".blend" else None
    if problem:
        raise write_motion.failed(suffix, problem)


def _blend_read_problem(path):
    """Why Blender cannot read a .blend as a library (nothing is linked: the open file is unchanged), or None."""
    try:
        with silenced(), bpy.data.libraries.load(str(path)) as (contents, _):
            actions, objects = list(contents.actions), list(contents.objects)
    except OSError as error:
        return f"Blender cannot read it: {reason(error)}"
    return None if actions and objects else "it holds no object or no action"


def replace_outputs(obj, targets, frame_start, frame_end, settings: ImportSettings, header, profile=None, looping=False, root=None):
    """Write ``obj``'s active action over ``frame_start..frame_end`` to every path of ``targets``, verify each, then move them all into place.

    settings, header: what :func:`.importers.load` returned for the input
    (a BVH output keeps a BVH input's units, axes and layout, while the
    skeleton keeps its joints; a BVH read by the numpy reader is written by
    its writer from the action's keys, else Blender's exporter writes it).
    profile, looping, root: as :func:`write`. All formats or none: a failure
    leaves every earlier output as it was.
    """
    scale = 1.0 if settings.bvh_scale is None else settings.bvh_scale
    same_joints = header is not None and set(header.names) == set(obj.data.bones.keys())
    bvh_source = (header, settings.up_axis) if same_joints else None
    frames, fps = frame_end - frame_start + 1, timeline.scene_fps(bpy.context.scene)

    def writer(target):
        if target.suffix == ".bvh" and same_joints and settings.reader == "numpy":
            return write_motion.bvh_writer(write_motion.file_bvh(read_action.read_clip(obj, frame_start, frame_end, pose=True), settings, header), target)
        return lambda path: write(obj, path, target.suffix, frame_start, frame_end, scale, bvh_source, profile, looping, root)

    outputs.replace_all([(target, writer(target), lambda path, suffix=target.suffix: verify(path, suffix, frames, fps)) for target in targets])


