"""The motion graph in Blender: built over the file's actions, kept as JSON in a Text data-block, synthesized into a new action."""

import json

import bpy

from .. import properties
from ..bridge import clip_io
from ..core import graph as motion_graph
from ..core.formats import graph_json
from ..core.errors import ClipError, GraphError
from ..ui.layout import draw_synthesize
from . import common


def matching_actions(obj):
    """The file's actions whose bones ``obj`` has, by name."""
    return sorted((action for action in bpy.data.actions if clip_io.action_problem(action, obj) is None), key=lambda action: action.name)


class LOOPSMITH_OT_build_graph(bpy.types.Operator):
    """Find where the file's actions (those this armature can play) can blend into each other, as a motion graph"""

    bl_idname = "loopsmith.build_graph"
    bl_label = "Build Graph"
    bl_options = {"REGISTER", "UNDO"}
    __annotations__ = properties.graph_properties()

    @classmethod
    def poll(cls, context):
        return common.poll_armature(cls, context)

    @common.reports_errors
    def execute(self, context):
        properties.copy_scene_settings(self, context.scene.loopsmith, ("graph_threshold",))
        obj = context.active_object
        actions = matching_actions(obj)
        clips = [common.action_clip(obj, action) for action in actions]
        graph = motion_graph.build_graph(clips, [action.name for action in actions], threshold=self.graph_threshold or None)
        document = graph_json.graph_to_json(graph)
        for entry, clip in zip(document["clips"], clips):
            entry["path"], entry["sha256"] = f"action:{entry['name']}", graph_json.clip_checksum(clip)
        text = bpy.data.texts.get(properties.GRAPH_TEXT) or bpy.data.texts.new(properties.GRAPH_TEXT)
        text.from_string(json.dumps(document, indent=1))
        self.report({"INFO"}, f"Motion graph over {len(actions)} actions: {len(graph.nodes)} nodes, "
                              f"{sum(edge['kind'] == 'transition' for edge in graph.edges)} transitions (threshold "
                              f"{graph.stats['threshold']:.3g}); kept in the Text '{properties.GRAPH_TEXT}'")
        return {"FINISHED"}


def graph_and_clips(obj):
    """The file's motion graph and its clips (see :func:`.common.action_clip`); ClipError if it is missing or an action changed since."""
    text = bpy.data.texts.get(properties.GRAPH_TEXT)
    if text is None:
        raise ClipError("no motion graph in this file: Build Graph first")
    try:
        graph = graph_json.graph_from_text(text.as_string())
    except GraphError as error:
        raise ClipError(f"the Text '{properties.GRAPH_TEXT}' is not a motion graph ({error}): Build Graph again") from None
    clips = []
    for entry in graph.clips:
        action = bpy.data.actions.get(entry["name"])
        if action is None:
            raise ClipError(f"the motion graph's action '{entry['name']}' is no longer in the file: Build Graph again")
        clip = common.action_clip(obj, common.matching_action(action.name, obj, ""))
        if not isinstance(entry.get("sha256"), str):  # never walked on actions that may have changed since
            raise ClipError(f"the motion graph holds no checksum of action '{action.name}': Build Graph again")
        if graph_json.clip_checksum(clip) != entry["sha256"]:
            raise ClipError(f"action '{action.name}' has changed since the motion graph was built: Build Graph again")
        clips.append(clip)
    return graph, clips


class LOOPSMITH_OT_synthesize(bpy.types.Operator):
    """New motion from the motion graph, as a new action: a random walk, or a path through the actions named in Via"""

    bl_idname = "loopsmith.synthesize"
    bl_label = "Synthesize"
    bl_options = {"REGISTER", "UNDO"}
    __annotations__ = properties.synth_properties()

    @classmethod
    def poll(cls, context):
        return common.poll_armature(cls, context)

    def draw(self, context):
        draw_synthesize(self.layout, self)

    @common.reports_errors
    def execute(self, context):
        properties.copy_scene_settings(self, context.scene.loopsmith, properties.SYNTH_NAMES)
        obj = context.active_object
        via = [name.strip() for name in self.synth_via.split(",") if name.strip()]
        with common.progress(context, 2) as step:
            graph, clips = graph_and_clips(obj)
            step()
            composed = motion_graph.synthesize(graph, clips, self.synth_seconds, self.synth_seed, via)
            common.keep_action(obj)
            written = clip_io.write_clip(obj, composed.clip, self.synth_name or "synthesis", frame_range=True)
        self.report(*common.composition_report(composed, f"Synthesized {composed.clip.duration:.1f} s into '{written.name}' "
                                                          f"through {len(composed.segments)} segments"))
        return {"FINISHED"}


classes = (LOOPSMITH_OT_build_graph, LOOPSMITH_OT_synthesize)
register, unregister = bpy.utils.register_classes_factory(classes)
