"""The Dope Sheet header button and the Key menu entries."""

import bpy


class LOOPSMITH_MT_loop(bpy.types.Menu):
    bl_label = "Loopsmith"
    bl_idname = "LOOPSMITH_MT_loop"

    def draw(self, context):
        self.layout.operator("loopsmith.find_loop", icon="VIEWZOOM")
        self.layout.operator("loopsmith.make_loop", icon="FILE_REFRESH")
        self.layout.operator("loopsmith.make_transition", icon="ACTION_TWEAK")


def draw_key_menu(self, context):
    self.layout.separator()
    self.layout.menu(LOOPSMITH_MT_loop.bl_idname)


def draw_action_header(self, context):
    if context.space_data.mode == "ACTION":
        self.layout.operator("loopsmith.make_loop", icon="FILE_REFRESH")


classes = (LOOPSMITH_MT_loop,)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)
_HOOKS = (("DOPESHEET_MT_key", draw_key_menu), ("GRAPH_MT_key", draw_key_menu), ("DOPESHEET_HT_header", draw_action_header))


def register():
    _register_classes()
    for name, function in _HOOKS:
        getattr(bpy.types, name).append(function)


def unregister():
    for name, function in reversed(_HOOKS):
        getattr(bpy.types, name).remove(function)
    _unregister_classes()
