"""Sidebar panels ("Loopsmith" tab) in the 3D Viewport, Dope Sheet and Graph Editor."""

import bpy

from ..bridge.clip_io import action_problem
from ..properties import GRAPH_TEXT, chosen_candidate, chosen_transition_point, stale_candidates, stale_transition_points
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


def _settings(context):
    return context.scene.loopsmith


def _panel_classes(space, region="UI"):
    """The panel set for one editor; each editor needs its own classes."""
    suffix = space.split("_")[0].lower()

    class Sidebar(bpy.types.Panel):
        bl_space_type = space
        bl_region_type = region
        bl_category = "Loopsmith"

    class Main(Sidebar):
        bl_label = "Loopsmith"
        bl_idname = f"LOOPSMITH_PT_main_{suffix}"

        def draw(self, context):
            obj = context.active_object
            action = obj.animation_data.action if obj and obj.animation_data else None
            if obj is None or obj.type != "ARMATURE":
                self.layout.label(text="Select an armature", icon="INFO")
            else:
                self.layout.label(text=action.name if action else "No action", icon="ACTION")

    class Find(Sidebar):
        bl_label = "Find Loop"
        bl_parent_id = Main.bl_idname
        bl_idname = f"LOOPSMITH_PT_find_{suffix}"

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

    class Make(Sidebar):
        bl_label = "Make Loop"
        bl_parent_id = Main.bl_idname
        bl_idname = f"LOOPSMITH_PT_make_{suffix}"

        def draw(self, context):
            obj = context.active_object
            armature = obj.data if obj is not None and obj.type == "ARMATURE" else None
            settings = _settings(context)
            candidate = None if stale_candidates(settings, obj) else chosen_candidate(settings)
            draw.draw_make_loop(self.layout, settings, armature, candidate)
            self.layout.operator("loopsmith.make_loop", icon="FILE_REFRESH")

    class Result(Sidebar):
        bl_label = "Result"
        bl_parent_id = Main.bl_idname
        bl_idname = f"LOOPSMITH_PT_result_{suffix}"

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

    class Transition(Sidebar):
        bl_label = "Transition"
        bl_parent_id = Main.bl_idname
        bl_idname = f"LOOPSMITH_PT_transition_{suffix}"
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

    class Edit(Sidebar):
        bl_label = "Edit"
        bl_parent_id = Main.bl_idname
        bl_idname = f"LOOPSMITH_PT_edit_{suffix}"
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

    class Engine(Sidebar):
        bl_label = "Game Engine"
        bl_parent_id = Main.bl_idname
        bl_idname = f"LOOPSMITH_PT_engine_{suffix}"
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

    class Sequence(Sidebar):
        bl_label = "Sequence"
        bl_parent_id = Main.bl_idname
        bl_idname = f"LOOPSMITH_PT_sequence_{suffix}"
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
                box.operator("loopsmith.junction_candidates", icon="VIEWZOOM")
                if settings.junction_points_entry == index and len(settings.junction_points):
                    box.template_list("LOOPSMITH_UL_transition_points", "junction", settings, "junction_points", settings,
                                      "active_junction_point", rows=3)
                    box.operator("loopsmith.junction_use_point", icon="CHECKMARK")
            draw.draw_compose(layout, settings)
            layout.operator("loopsmith.compose", icon="SEQ_SEQUENCER")

    class Graph(Sidebar):
        bl_label = "Motion Graph"
        bl_parent_id = Main.bl_idname
        bl_idname = f"LOOPSMITH_PT_graph_{suffix}"
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

    for cls in (Main, Find, Make, Result, Transition, Edit, Sequence, Graph, Engine):
        cls.__name__ = cls.bl_idname
    return (Main, Find, Make, Result, Transition, Edit, Sequence, Graph, Engine)


classes = (LOOPSMITH_UL_candidates, LOOPSMITH_UL_transition_points, LOOPSMITH_UL_sequence) + _panel_classes("VIEW_3D") + _panel_classes("DOPESHEET_EDITOR") + _panel_classes("GRAPH_EDITOR")
register, unregister = bpy.utils.register_classes_factory(classes)
