"""Acclaim ASF/AMC import and export: File > Import > Acclaim (.asf/.amc) and File > Export > Acclaim AMC (.amc)."""

import pathlib

import bpy
from bpy.props import FloatProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from ..bridge import acclaim
from ..core.errors import AcclaimError, SkeletonNotFound
from ..core.formats.acclaim import DEFAULT_FPS
from . import common

# Blender 4.5 takes (and 5.0 asks for) the flag that lets a path start with "//"; 4.2 drops a property that has it.
_PATH_OPTIONS = {"SKIP_SAVE", "PATH_SUPPORTS_BLEND_RELATIVE"} if bpy.app.version >= (4, 5, 0) else {"SKIP_SAVE"}


def _absolute(path):
    return pathlib.Path(bpy.path.abspath(path))


class LOOPSMITH_OT_import_acclaim(bpy.types.Operator, ImportHelper):
    """Import an Acclaim motion (AMC) on its skeleton (ASF) as an armature with its action; an ASF alone gives the skeleton at rest"""

    bl_idname = "loopsmith.import_acclaim"
    bl_label = "Import Acclaim"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ".amc"
    filter_glob: StringProperty(default="*.amc;*.asf", options={"HIDDEN"})
    asf_path: StringProperty(name="Skeleton", description="The ASF of the motion; empty: the one beside it (<subject>.asf for "
                             "<subject>_<trial>.amc, or the only .asf in the folder)", subtype="FILE_PATH", options=_PATH_OPTIONS)
    fps: FloatProperty(name="Frame Rate", description="Frames per second the AMC is played at: AMC files carry none (CMU captured at 120)",
                       default=DEFAULT_FPS, min=0.01, soft_max=1000.0)
    scale: FloatProperty(name="Scale", description="Metres per file unit; 0: from the ASF's :units length (CMU's 0.45 is 1/0.45 inch)",
                         default=0.0, min=0.0, precision=6)

    def draw(self, context):
        layout = common.split_layout(self.layout)
        layout.prop(self, "asf_path")
        layout.prop(self, "fps")
        layout.prop(self, "scale")

    @common.reports_errors
    def execute(self, context):
        path = _absolute(self.filepath)
        skeleton = _absolute(self.asf_path) if self.asf_path else None
        scale = self.scale or None
        if path.suffix.lower() == ".asf":
            obj = acclaim.import_acclaim(None, path, self.fps, scale, context)
            self.report({"INFO"}, f"Imported the skeleton of {path.name} at rest: {len(obj.data.bones)} bones")
            return {"FINISHED"}
        if path.suffix.lower() != ".amc":
            raise AcclaimError("choose an .amc motion or an .asf skeleton", path)
        try:
            obj = acclaim.import_acclaim(path, skeleton, self.fps, scale, context)
        except SkeletonNotFound as error:
            self.report({"ERROR"}, f"{error}; choose its ASF in the file browser's side panel")
            return {"CANCELLED"}
        frames = context.scene.frame_end - context.scene.frame_start + 1
        self.report({"INFO"}, f"Imported {path.name} on {obj.data[acclaim.ASF_NAME]}: {len(obj.data.bones)} bones, {frames} frames at "
                              f"{self.fps:g} fps (AMC files carry no rate)")
        return {"FINISHED"}


class LOOPSMITH_OT_export_acclaim(bpy.types.Operator, ExportHelper):
    """Write the active armature's action as an Acclaim motion (AMC), with its skeleton (ASF) beside it unless already there"""

    bl_idname = "loopsmith.export_acclaim"
    bl_label = "Export Acclaim AMC"
    bl_options = {"REGISTER"}

    filename_ext = ".amc"
    filter_glob: StringProperty(default="*.amc", options={"HIDDEN"})

    @classmethod
    def poll(cls, context):
        return common.poll_armature(cls, context)

    def invoke(self, context, event):
        if not self.filepath:
            action = context.active_object.animation_data.action
            folder = pathlib.Path(bpy.path.abspath("//")) if bpy.data.filepath else pathlib.Path.home()
            self.filepath = str(folder / f"{bpy.path.clean_name(action.name)}{self.filename_ext}")
        return ExportHelper.invoke(self, context, event)

    @common.reports_errors
    def execute(self, context):
        if self.filepath.startswith("//") and not bpy.data.filepath:
            raise AcclaimError(f"'{self.filepath}' is relative to the .blend file, which is not saved yet: give a full path")
        path = _absolute(self.filepath)
        if not self.filepath or path.is_dir():
            raise AcclaimError("choose a file name to write, not a folder")
        if path.suffix.lower() != ".amc":
            path = path.with_name(path.name + ".amc")
        amc, asf, wrote_asf, clip = acclaim.export_acclaim(context.active_object, path)
        skeleton = f"wrote its skeleton {asf.name}" if wrote_asf else f"its skeleton {asf.name} was already there"
        self.report({"INFO"}, f"Wrote {amc.name}: frames {clip.frames[0]:g}-{clip.frames[-1]:g} ({clip.fps:g} fps, which an AMC does not "
                              f"hold); {skeleton}")
        return {"FINISHED"}


def draw_import(self, context):
    self.layout.operator(LOOPSMITH_OT_import_acclaim.bl_idname, text="Acclaim (.asf/.amc)")


def draw_export(self, context):
    self.layout.operator(LOOPSMITH_OT_export_acclaim.bl_idname, text="Acclaim AMC (.amc)")


classes = (LOOPSMITH_OT_import_acclaim, LOOPSMITH_OT_export_acclaim)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)
MENUS = (("TOPBAR_MT_file_import", draw_import), ("TOPBAR_MT_file_export", draw_export))


def register():
    _register_classes()
    for name, function in MENUS:
        getattr(bpy.types, name).append(function)


def unregister():
    for name, function in reversed(MENUS):
        getattr(bpy.types, name).remove(function)
    _unregister_classes()
