"""Game-engine operators: move the travel onto a root bone, and export the action as an engine reads it."""

import pathlib

import bpy
from bpy.props import StringProperty

from .. import properties
from ..bridge import engine_files, export, root_motion
from ..core.engine import profiles
from ..core.errors import ClipError
from ..core.formats.import_settings import ImportSettings
from ..ui.layout import draw_root_motion
from . import common


# Blender 4.5 takes (and 5.0 asks for) the flag that lets a path start with "//"; 4.2 drops a property that has it.
_FILE_PATH_OPTIONS = {"SKIP_SAVE", "PATH_SUPPORTS_BLEND_RELATIVE"} if bpy.app.version >= (4, 5, 0) else {"SKIP_SAVE"}


def _properties(*names):
    definitions = properties.engine_properties()
    return {name: definitions[name] for name in names}


class LOOPSMITH_OT_extract_root_motion(bpy.types.Operator):
    """Move the character's travel from the pelvis onto a root bone on the floor, as a new action (a root bone is added if needed)"""

    bl_idname = "loopsmith.extract_root_motion"
    bl_label = "Extract Root Motion"
    bl_options = {"REGISTER", "UNDO"}
    __annotations__ = _properties(*properties.ROOT_MOTION_NAMES)

    @classmethod
    def poll(cls, context):
        return common.poll_armature(cls, context)

    def draw(self, context):
        draw_root_motion(self.layout, self)

    @common.reports_errors
    def execute(self, context):
        properties.copy_scene_settings(self, context.scene.loopsmith, properties.ROOT_MOTION_NAMES)
        obj = context.active_object
        source = obj.animation_data.action
        action, result = root_motion.extract(obj, self.root_motion_mode, self.root_height, self.root_name, self.root_smoothing,
                                             self.root_in_place)
        source.use_fake_user = True  # the original stays in the file
        numbers = result.numbers
        self.report({"INFO"}, f"Extract Root Motion '{source.name}' into '{action.name}': {result.as_edit().notes[0]}; the root takes "
                              f"{numbers['root_share']:.0%} of the travel, the pelvis stays within {numbers['pelvis_offset']:.3f} m of it")
        return {"FINISHED"}


class LOOPSMITH_OT_export_engine(bpy.types.Operator):
    """Write the active action for a game engine: its format, units and names, one animation starting at 0"""

    bl_idname = "loopsmith.export_engine"
    bl_label = "Export for Engine"
    bl_options = {"REGISTER", "UNDO"}
    __annotations__ = {
        **_properties("engine"),
        "filepath": StringProperty(name="File", description="The file to write (its extension follows the engine)", subtype="FILE_PATH",
                                   options=_FILE_PATH_OPTIONS),
    }

    @classmethod
    def poll(cls, context):
        return common.poll_armature(cls, context)

    def _profile(self):
        return profiles.PROFILES[self.engine.lower()]

    def invoke(self, context, event):
        properties.copy_scene_settings(self, context.scene.loopsmith, ("engine",))
        if not self.filepath:
            action = context.active_object.animation_data.action
            folder = pathlib.Path(bpy.path.abspath("//")) if bpy.data.filepath else pathlib.Path.home()
            self.filepath = str(folder / f"{bpy.path.clean_name(action.name)}{self._profile().suffix}")
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def _target(self, profile):
        """The file to write: ``filepath`` made absolute, with the profile's extension added unless it has it. ClipError when
        it is a folder or relative to an unsaved .blend."""
        if not self.filepath or self.filepath.endswith(("/", "\\")):
            raise ClipError("choose a file name to write, not a folder")
        if self.filepath.startswith("//") and not bpy.data.filepath:
            raise ClipError(f"'{self.filepath}' is relative to the .blend file, which is not saved yet: save it or give a full path")
        path = pathlib.Path(bpy.path.abspath(self.filepath))
        if path.is_dir():
            raise ClipError(f"{path} is a folder: choose a file name to write")
        return path if path.suffix.lower() == profile.suffix else path.with_name(path.name + profile.suffix)

    @common.reports_errors
    def execute(self, context):
        properties.copy_scene_settings(self, context.scene.loopsmith, ("engine",))
        profile, obj = self._profile(), context.active_object
        action = obj.animation_data.action
        path = self._target(profile)
        first, last, note = engine_files.export_range(obj, action)
        root, problem = _bone_root(obj)
        # The action comes from the open .blend, not an imported file: no BVH units or layout to keep (scale 1).
        export.replace_outputs(obj, [path], first, last, ImportSettings(suffix=".blend"), None, profile, action.use_cyclic, root)
        written = f"Wrote {path} for {profile.label}, frames {first}-{last}{'; ' + note if note else ''}"
        if problem:
            self.report({"WARNING"}, f"{written}; {problem}")
        else:
            self.report({"INFO"}, written)
        return {"FINISHED"}


def _bone_root(obj):
    """``(name, problem)``: the bone an engine takes as its root (None if none), and what keeps the engine from moving the
    character with it ('' when nothing does), with the step that helps."""
    root, problem, remedy = engine_files.engine_root(obj)
    return root, f"{problem}: {remedy}" if problem else ""


classes = (LOOPSMITH_OT_extract_root_motion, LOOPSMITH_OT_export_engine)
register, unregister = bpy.utils.register_classes_factory(classes)
