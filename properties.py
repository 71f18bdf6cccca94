"""Scene settings: one PropertyGroup, ``scene.loopsmith``."""

import bpy


class LoopsmithSettings(bpy.types.PropertyGroup):
    """Loopsmith's per-scene settings, copied into operator properties when they run."""


classes = (LoopsmithSettings,)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


def register():
    _register_classes()
    bpy.types.Scene.loopsmith = bpy.props.PointerProperty(type=LoopsmithSettings)


def unregister():
    del bpy.types.Scene.loopsmith
    _unregister_classes()
