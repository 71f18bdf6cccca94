"""The scene settings and the sidebar panels as Blender registers them: each built from per-tool mixins."""

import pytest

bpy = pytest.importorskip("bpy")


def test_every_tools_settings_are_at_scene_loopsmith_in_the_order_of_the_sections(loopsmith, blank):
    settings = loopsmith.properties
    mixins = (settings.LoopSettings, settings.TransitionSettings, settings.EditSettings, settings.EngineSettings,
              settings.ComposeSettings, settings.GraphSettings, settings.SequenceSettings)
    expected = [name for mixin in mixins for name in mixin.__annotations__]
    registered = [prop.identifier for prop in settings.LoopsmithSettings.bl_rna.properties if prop.identifier not in ("rna_type", "name")]
    assert registered == expected
    assert len(set(expected)) == len(expected)
    assert all(hasattr(bpy.context.scene.loopsmith, name) for name in expected)


def test_each_editor_has_every_panel_under_its_own_main_panel(loopsmith):
    panels = [cls for cls in loopsmith.ui.panels.classes if issubclass(cls, bpy.types.Panel)]
    editors = {cls.bl_space_type for cls in panels}
    assert editors == {"VIEW_3D", "DOPESHEET_EDITOR", "GRAPH_EDITOR"}
    for cls in panels:
        assert getattr(bpy.types, cls.__name__) is cls and cls.bl_idname == cls.__name__
        main = next(other for other in panels if other.bl_space_type == cls.bl_space_type and not getattr(other, "bl_parent_id", ""))
        assert cls is main or cls.bl_parent_id == main.bl_idname
    assert len(panels) == 9 * len(editors)
