"""Sidebar panels ("Loopsmith" tab) in the 3D Viewport, Dope Sheet and Graph Editor.

Blender needs a panel class per editor, so each panel's label and drawing is
a mixin (``MainPanel``, ``FindLoopPanel``...) and every editor gets its own
``LOOPSMITH_PT_<panel>_<editor>`` classes combining it with the editor's
sidebar mixin. The panel classes have no docstrings of their own: Blender
would show one as the panel's tooltip.
"""

import math

import bpy

from ..bridge.clip_io import action_problem
from ..core.music.sync import ratio_text
from ..properties import chosen_candidate, chosen_transition_point, GRAPH_TEXT, stale_candidates, stale_transition_points
from . import layout as draw


class LOOPSMITH_UL_candidates(bpy.types.UIList):
    """Find Loop's candidates with their grade."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        grade_icon = item.bl_rna.properties["grade"].enum_items[item.grade].icon
        row = layout.row(align=True)
        row.label(text=f"{item.frame_start}-{item.frame_end}", icon=grade_icon)
        row.label(text=f"{item.frame_end - item.frame_start} fr, {item.cycles}x")
        row.label(text=f"{item.score:.1f}")


class LOOPSMITH_UL_transition_points(bpy.types.UIList):
    """Make Transition's ranked points: frames in the source and the target, cost, whether the feet match."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        row = layout.row(align=True)
        row.label(text=f"A {item.frame_a}  B {item.frame_b}", icon="CHECKMARK" if item.contact_match else "BLANK1")
        row.label(text=f"{item.cost:.2f}")


class LOOPSMITH_UL_sequence(bpy.types.UIList):
    """The Sequence's actions in the order they play, with the range each uses."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        row = layout.row(align=True)
        row.prop(item, "action", text="", emboss=False, icon="ACTION")
        if item.use_range:
            row.label(text=f"{item.frame_start}-{item.frame_end}")
        if index > 0 and item.heading:
            row.label(text=f"{math.degrees(item.heading):+.0f}\u00b0")


def _settings(context):
    return context.scene.loopsmith


class LoopsmithSidebar:
    """The "Loopsmith" tab of an editor's sidebar."""

    bl_region_type = "UI"
    bl_category = "Loopsmith"


class View3DSidebar(LoopsmithSidebar):
    bl_space_type = "VIEW_3D"


class DopeSheetSidebar(LoopsmithSidebar):
    bl_space_type = "DOPESHEET_EDITOR"


class GraphEditorSidebar(LoopsmithSidebar):
    bl_space_type = "GRAPH_EDITOR"


class MainPanel:
    """The armature and action the panels below work on."""

    bl_label = "Loopsmith"

    def draw(self, context):
        obj = context.active_object
        action = obj.animation_data.action if obj and obj.animation_data else None
        if obj is None or obj.type != "ARMATURE":
            self.layout.label(text="Select an armature", icon="INFO")
        else:
            self.layout.label(text=action.name if action else "No action", icon="ACTION")
        self.layout.operator("loopsmith.import_acclaim", text="Import Acclaim (.asf/.amc)", icon="IMPORT")


class FindLoopPanel:
    """Find Loop's settings and its list of candidates."""

    bl_label = "Find Loop"

    def draw(self, context):
        settings = _settings(context)
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        draw.draw_find_settings(layout, settings)
        layout.operator("loopsmith.find_loop", icon="VIEWZOOM")
        layout.template_list("LOOPSMITH_UL_candidates", "", settings, "candidates", settings, "active_candidate", rows=3)
        stale = stale_candidates(settings, context.active_object) if len(settings.candidates) else None
        if stale:
            layout.label(text=stale, icon="ERROR")


class MakeLoopPanel:
    """Make Loop's settings."""

    bl_label = "Make Loop"

    def draw(self, context):
        obj = context.active_object
        armature = obj.data if obj is not None and obj.type == "ARMATURE" else None
        settings = _settings(context)
        candidate = None if stale_candidates(settings, obj) else chosen_candidate(settings)
        draw.draw_make_loop(self.layout, settings, armature, candidate)
        self.layout.operator("loopsmith.make_loop", icon="FILE_REFRESH")


class ResultPanel:
    """The last Make Loop's numbers, once there are any."""

    bl_label = "Result"

    @classmethod
    def poll(cls, context):
        return _settings(context).result.valid

    def draw(self, context):
        result = _settings(context).result
        layout = self.layout
        layout.label(text=f"{result.action}: {result.frame_start}-{result.frame_end}", icon="ACTION")
        if result.root_bone:
            layout.label(text=f"Root {result.root_mode.lower()}: {result.root_bone}")
        if result.methods_tried:
            draw.draw_method_kept(layout, result)
        elif result.method:
            layout.label(text=f"Method: {result.method}")
        grid = layout.grid_flow(columns=3, even_columns=True, align=True)
        for label, before, after, unit in (
            ("Visibility", result.visibility_before, result.visibility_after, ""),
            ("Step", result.step_before * 1000.0, result.step_after * 1000.0, " mm"),
            ("Velocity jump", result.jump_before, result.jump_after, " m/s"),
        ):
            grid.label(text=label)
            grid.label(text=f"{before:.2f}{unit}")
            grid.label(text=f"{after:.2f}{unit}")
        if result.curves_stitched:
            layout.label(text=f"{result.curves_stitched} other curves looped")
        if result.curves_stepped:
            layout.label(text=f"{result.curves_stepped} stepped curves repeat as keyed", icon="INFO")


class TransitionPanel:
    """Make Transition's settings, its ranked points and the last distance map."""

    bl_label = "Transition"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        obj = context.active_object
        settings = _settings(context)
        layout = self.layout
        target = bpy.data.actions.get(settings.target_action)
        stale = stale_transition_points(settings, target)
        point = None if stale else chosen_transition_point(settings)
        draw.draw_transition(layout, settings, point)
        if settings.target_action and obj is not None and obj.type == "ARMATURE":
            problem = action_problem(target, obj) if target is not None else f"there is no action named '{settings.target_action}'"
            if problem:
                layout.label(text=problem, icon="ERROR")
        layout.operator("loopsmith.make_transition", icon="ACTION_TWEAK")
        layout.template_list("LOOPSMITH_UL_transition_points", "", settings, "transition_points", settings,
                             "active_transition_point", rows=3)
        if len(settings.transition_points) and stale:
            layout.label(text=stale, icon="ERROR")
        image = settings.distance_image
        if image is not None:
            if image.preview is not None:
                layout.template_icon(icon_value=image.preview.icon_id, scale=8.0)
            layout.label(text=f"Image Editor: '{image.name}' (dark: close poses)", icon="IMAGE_DATA")


class EditPanel:
    """The editing operators, each with its settings."""

    bl_label = "Edit"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        obj = context.active_object
        armature = obj.data if obj is not None and obj.type == "ARMATURE" else None
        settings = _settings(context)
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        for operator, icon, label in (("loopsmith.resample", "TIME", "Frame Rate"), ("loopsmith.retime", "MOD_TIME", "Speed"),
                                      ("loopsmith.freeze_bone", "FREEZE", "Freeze"), ("loopsmith.splice", "MOD_ARMATURE", "Splice"),
                                      ("loopsmith.blend", "NLA", "Blend")):
            box = layout.box()
            box.label(text=label)
            draw.EDIT_LAYOUTS[operator](box, settings, armature)
            box.operator(operator, icon=icon)
        layout.operator("loopsmith.mirror", icon="MOD_MIRROR")


class EnginePanel:
    """Root motion and the game-engine export."""

    bl_label = "Game Engine"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        settings = _settings(context)
        layout = self.layout
        box = layout.box()
        box.label(text="Root Motion")
        draw.draw_root_motion(box, settings)
        box.operator("loopsmith.extract_root_motion", icon="CON_LOCLIKE")
        box = layout.box()
        box.label(text="Output")
        box.use_property_split = True
        box.use_property_decorate = False
        box.prop(settings, "engine")
        box.operator("loopsmith.export_engine", icon="EXPORT")


def draw_music_settings(layout, data):
    """Sync to Music's settings of ``data`` (the scene settings, or the operator in its redo panel)."""
    layout.row().prop(data, "music_source", expand=True)
    if data.music_source == "FILE":
        layout.prop(data, "music_file")
        layout.prop(data, "music_start")
    else:
        layout.prop(data, "music_strip", icon="SOUND")
    column = layout.column(align=True)
    column.prop(data, "max_stretch_low")
    column.prop(data, "max_stretch_high")
    layout.prop(data, "loop_bars")


def draw_music_result(layout, result):
    """The last Sync to Music (``scene.loopsmith.music_sync``): the song's tempo and the keyposes on its beats."""
    if not result.valid:
        return
    icon = {"GOOD": "CHECKMARK", "CHECK": "ERROR"}.get(result.verdict, "CANCEL")
    layout.label(text=f"'{result.action}': {result.song}", icon="SOUND")
    layout.label(text=f"{result.tempo_bpm:.1f} BPM, {ratio_text(result.ratio)} keypose{'s' if result.ratio != 1 else ''} per beat, "
                      f"speed {result.stretch_low:.2f}-{result.stretch_high:.2f}x")
    layout.label(text=f"On the beat: {result.on_beat_after:.0%} (before {result.on_beat_before:.0%}, chance {result.on_beat_chance:.0%}): "
                      f"{result.verdict}", icon=icon)


class SequencePanel:
    """The Sequence list, the chosen entry's junction and Compose."""

    bl_label = "Sequence"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        settings = _settings(context)
        layout = self.layout
        row = layout.row()
        row.template_list("LOOPSMITH_UL_sequence", "", settings, "sequence", settings, "active_sequence_entry", rows=4)
        buttons = row.column(align=True)
        buttons.operator("loopsmith.sequence_add", icon="ADD", text="")
        buttons.operator("loopsmith.sequence_remove", icon="REMOVE", text="")
        buttons.separator()
        buttons.operator("loopsmith.sequence_move", icon="TRIA_UP", text="").direction = "UP"
        buttons.operator("loopsmith.sequence_move", icon="TRIA_DOWN", text="").direction = "DOWN"
        index = settings.active_sequence_entry
        if 0 <= index < len(settings.sequence):
            box = layout.box()
            draw.draw_sequence_entry(box, settings.sequence[index], index == len(settings.sequence) - 1, settings.compose_loop)
            if index > 0:  # the first action keeps its own heading
                box.prop(settings.sequence[index], "heading")
            box.operator("loopsmith.junction_candidates", icon="VIEWZOOM")
            if settings.junction_points_entry == index and len(settings.junction_points):
                box.template_list("LOOPSMITH_UL_transition_points", "junction", settings, "junction_points", settings,
                                  "active_junction_point", rows=3)
                box.operator("loopsmith.junction_use_point", icon="CHECKMARK")
        draw.draw_compose(layout, settings)
        layout.operator("loopsmith.compose", icon="SEQ_SEQUENCER")
        box = layout.box()
        box.label(text="Music", icon="SOUND")
        box.use_property_split = True
        box.use_property_decorate = False
        draw_music_settings(box, settings)
        box.operator("loopsmith.sync_to_music", icon="SOUND")
        draw_music_result(box, settings.music_sync)


class GraphPanel:
    """The motion graph and Synthesize."""

    bl_label = "Motion Graph"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        settings = _settings(context)
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        layout.prop(settings, "graph_threshold")
        layout.operator("loopsmith.build_graph", icon="NODETREE")
        text = bpy.data.texts.get(GRAPH_TEXT)
        if text is not None:
            layout.label(text=f"Graph: Text Editor '{GRAPH_TEXT}'", icon="TEXT")
        draw.draw_synthesize(layout, settings)
        layout.operator("loopsmith.synthesize", icon="PLAY")
        layout.operator("loopsmith.follow_path", icon="CURVE_PATH")


# 3D Viewport
class LOOPSMITH_PT_main_view(MainPanel, View3DSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_main_view"


class LOOPSMITH_PT_find_view(FindLoopPanel, View3DSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_find_view"
    bl_parent_id = "LOOPSMITH_PT_main_view"


class LOOPSMITH_PT_make_view(MakeLoopPanel, View3DSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_make_view"
    bl_parent_id = "LOOPSMITH_PT_main_view"


class LOOPSMITH_PT_result_view(ResultPanel, View3DSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_result_view"
    bl_parent_id = "LOOPSMITH_PT_main_view"


class LOOPSMITH_PT_transition_view(TransitionPanel, View3DSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_transition_view"
    bl_parent_id = "LOOPSMITH_PT_main_view"


class LOOPSMITH_PT_edit_view(EditPanel, View3DSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_edit_view"
    bl_parent_id = "LOOPSMITH_PT_main_view"


class LOOPSMITH_PT_sequence_view(SequencePanel, View3DSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_sequence_view"
    bl_parent_id = "LOOPSMITH_PT_main_view"


class LOOPSMITH_PT_graph_view(GraphPanel, View3DSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_graph_view"
    bl_parent_id = "LOOPSMITH_PT_main_view"


class LOOPSMITH_PT_engine_view(EnginePanel, View3DSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_engine_view"
    bl_parent_id = "LOOPSMITH_PT_main_view"


# Dope Sheet
class LOOPSMITH_PT_main_dopesheet(MainPanel, DopeSheetSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_main_dopesheet"


class LOOPSMITH_PT_find_dopesheet(FindLoopPanel, DopeSheetSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_find_dopesheet"
    bl_parent_id = "LOOPSMITH_PT_main_dopesheet"


class LOOPSMITH_PT_make_dopesheet(MakeLoopPanel, DopeSheetSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_make_dopesheet"
    bl_parent_id = "LOOPSMITH_PT_main_dopesheet"


class LOOPSMITH_PT_result_dopesheet(ResultPanel, DopeSheetSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_result_dopesheet"
    bl_parent_id = "LOOPSMITH_PT_main_dopesheet"


class LOOPSMITH_PT_transition_dopesheet(TransitionPanel, DopeSheetSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_transition_dopesheet"
    bl_parent_id = "LOOPSMITH_PT_main_dopesheet"


class LOOPSMITH_PT_edit_dopesheet(EditPanel, DopeSheetSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_edit_dopesheet"
    bl_parent_id = "LOOPSMITH_PT_main_dopesheet"


class LOOPSMITH_PT_sequence_dopesheet(SequencePanel, DopeSheetSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_sequence_dopesheet"
    bl_parent_id = "LOOPSMITH_PT_main_dopesheet"


class LOOPSMITH_PT_graph_dopesheet(GraphPanel, DopeSheetSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_graph_dopesheet"
    bl_parent_id = "LOOPSMITH_PT_main_dopesheet"


class LOOPSMITH_PT_engine_dopesheet(EnginePanel, DopeSheetSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_engine_dopesheet"
    bl_parent_id = "LOOPSMITH_PT_main_dopesheet"


# Graph Editor
class LOOPSMITH_PT_main_graph(MainPanel, GraphEditorSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_main_graph"


class LOOPSMITH_PT_find_graph(FindLoopPanel, GraphEditorSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_find_graph"
    bl_parent_id = "LOOPSMITH_PT_main_graph"


class LOOPSMITH_PT_make_graph(MakeLoopPanel, GraphEditorSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_make_graph"
    bl_parent_id = "LOOPSMITH_PT_main_graph"


class LOOPSMITH_PT_result_graph(ResultPanel, GraphEditorSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_result_graph"
    bl_parent_id = "LOOPSMITH_PT_main_graph"


class LOOPSMITH_PT_transition_graph(TransitionPanel, GraphEditorSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_transition_graph"
    bl_parent_id = "LOOPSMITH_PT_main_graph"


class LOOPSMITH_PT_edit_graph(EditPanel, GraphEditorSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_edit_graph"
    bl_parent_id = "LOOPSMITH_PT_main_graph"


class LOOPSMITH_PT_sequence_graph(SequencePanel, GraphEditorSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_sequence_graph"
    bl_parent_id = "LOOPSMITH_PT_main_graph"


class LOOPSMITH_PT_graph_graph(GraphPanel, GraphEditorSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_graph_graph"
    bl_parent_id = "LOOPSMITH_PT_main_graph"


class LOOPSMITH_PT_engine_graph(EnginePanel, GraphEditorSidebar, bpy.types.Panel):
    bl_idname = "LOOPSMITH_PT_engine_graph"
    bl_parent_id = "LOOPSMITH_PT_main_graph"


classes = (
    LOOPSMITH_UL_candidates, LOOPSMITH_UL_transition_points, LOOPSMITH_UL_sequence,
    LOOPSMITH_PT_main_view, LOOPSMITH_PT_find_view, LOOPSMITH_PT_make_view,
    LOOPSMITH_PT_result_view, LOOPSMITH_PT_transition_view, LOOPSMITH_PT_edit_view,
    LOOPSMITH_PT_sequence_view, LOOPSMITH_PT_graph_view, LOOPSMITH_PT_engine_view,
    LOOPSMITH_PT_main_dopesheet, LOOPSMITH_PT_find_dopesheet, LOOPSMITH_PT_make_dopesheet,
    LOOPSMITH_PT_result_dopesheet, LOOPSMITH_PT_transition_dopesheet, LOOPSMITH_PT_edit_dopesheet,
    LOOPSMITH_PT_sequence_dopesheet, LOOPSMITH_PT_graph_dopesheet, LOOPSMITH_PT_engine_dopesheet,
    LOOPSMITH_PT_main_graph, LOOPSMITH_PT_find_graph, LOOPSMITH_PT_make_graph,
    LOOPSMITH_PT_result_graph, LOOPSMITH_PT_transition_graph, LOOPSMITH_PT_edit_graph,
    LOOPSMITH_PT_sequence_graph, LOOPSMITH_PT_graph_graph, LOOPSMITH_PT_engine_graph,
)
register, unregister = bpy.utils.register_classes_factory(classes)
