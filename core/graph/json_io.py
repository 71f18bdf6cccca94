"""A motion graph as JSON: what ``python -m loopsmith graph`` writes and ``synth`` reads.

Schema (version 1); frames are the clips' own frame numbers, times seconds::

    {
      "version": 1,
      "clips": [{"name": str, "frames": int (how many), "fps": float, "first_frame": int,
                 "path": str, "sha256": str (both added by the caller that read the files)}, ...],
      "nodes": [{"id": int (its index), "clip": int (index into clips), "frame": int}, ...],
      "edges": [{"from": int (node id), "to": int (node id), "kind": "clip" | "transition",
                 "cost": float (transition: windowed distance / threshold, 0 to 1; clip: 0),
                 "frames": int (clip: frames played from the node's frame to the next node's;
                                transition: its blend and hold, which land that many frames
                                after the frame of the other clip it blends into),
                 "blend": int (transition only, optional: its blend in frames where shorter than
                               settings' blend_frames, near a clip's end)}, ...],
      "stats": {"threshold": float, "rule": str, "sampled_pairs": int,
                "percentiles": {"1": float, ...}, "histogram": {"edges": [float], "counts": [int]},
                "pairs_compared": int, "candidates": int, "transitions_before_pruning": int,
                "transitions_after_pruning": int, "nodes_before_pruning": int, "nodes_after_pruning": int,
                "frames_in_graph": int, "library_frames": int,
                "clip_thresholds": [float] (per clip; a pair's threshold is the larger of its two), "tolerance": float,
                "coverage": {"clips_kept": int, "clips": int, "frames_kept": int (frames some edge plays), "frames": int},
                "left_out": [{"clip": int, "name": str, "reason": str, "include": str (what would bring it in)}],
                "seconds": float (the build's time; the command line's file leaves it out: same library, same bytes)},
      "settings": {"fps": float, "window_frames": int, "separation_frames": int, "blend_frames": int,
                   "hold_frames": int, "min_jump_frames": int, "joints": [str]}
    }

Distances are squared feature distances (see :mod:`.build`). Nodes are
sorted by clip, then frame; edges by their ``from`` node. Stats keys past
``library_frames`` and an edge's ``blend`` came later: files without them
still read. A cost a rounding below 0 (at most :data:`ROUNDING`, which the
builder no longer writes) reads as 0.
"""

import math
import numbers

from ..errors import GraphError
from .build import MotionGraph

VERSION = 1
ROUNDING = 1e-6  # costs this little below 0 are float32 rounding of identical windows (the same take twice): read as 0
_CLIP_KEYS = ("name", "frames", "fps", "first_frame")
_EDGE_KINDS = ("clip", "transition")


def graph_to_json(graph):
    """The graph as a JSON-ready dict (see the module's schema)."""
    return {"version": VERSION, "clips": [dict(clip) for clip in graph.clips], "nodes": [dict(node) for node in graph.nodes],
            "edges": [dict(edge) for edge in graph.edges], "stats": dict(graph.stats), "settings": dict(graph.settings)}


def _whole(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def graph_from_json(data):
    """A :class:`.build.MotionGraph` from :func:`graph_to_json`'s dict; GraphError naming the first thing wrong."""
    if not isinstance(data, dict):
        raise GraphError(f"a motion graph must be a JSON object, got {type(data).__name__}")
    if data.get("version") != VERSION:
        raise GraphError(f"motion graph version {data.get('version')!r} is not supported (this Loopsmith reads version {VERSION})")
    for key in ("clips", "nodes", "edges"):
        if not isinstance(data.get(key), list):
            raise GraphError(f"the motion graph has no '{key}' list")
    for k, clip in enumerate(data["clips"]):
        if not isinstance(clip, dict) or any(key not in clip for key in _CLIP_KEYS):
            raise GraphError(f"clip {k} of the motion graph needs {', '.join(_CLIP_KEYS)}")
        if not (isinstance(clip["name"], str) and _whole(clip["frames"]) and clip["frames"] > 0 and _whole(clip["first_frame"])
                and isinstance(clip["fps"], numbers.Real) and clip["fps"] > 0):
            raise GraphError(f"clip {k} of the motion graph needs a 'name', 'frames' above 0, a whole 'first_frame' and 'fps' above 0")
    clips = len(data["clips"])
    for k, node in enumerate(data["nodes"]):
        if not isinstance(node, dict) or node.get("id") != k or not _whole(node.get("clip")) or not 0 <= node["clip"] < clips \
                or not _whole(node.get("frame")):
            raise GraphError(f"node {k} of the motion graph must be {{'id': {k}, 'clip': 0..{clips - 1}, 'frame': a whole number}}")
        clip = data["clips"][node["clip"]]
        if not clip["first_frame"] <= node["frame"] < clip["first_frame"] + clip["frames"]:
            raise GraphError(f"node {k} of the motion graph is at frame {node['frame']}, outside clip '{clip['name']}'")
    nodes = len(data["nodes"])
    edges = [dict(edge, cost=0.0) if isinstance(edge, dict) and isinstance(edge.get("cost"), numbers.Real) and -ROUNDING <= edge["cost"] < 0
             else edge for edge in data["edges"]]
    for k, edge in enumerate(edges):
        if not isinstance(edge, dict) or edge.get("kind") not in _EDGE_KINDS or not all(_whole(edge.get(key)) for key in ("from", "to", "frames")) \
                or not isinstance(edge.get("cost"), numbers.Real) or not math.isfinite(edge["cost"]) or edge["cost"] < 0:
            raise GraphError(f"edge {k} of the motion graph needs 'from', 'to', 'frames' (whole numbers), 'cost' (0 or more) and 'kind' "
                             "(clip or transition)")
        if not (0 <= edge["from"] < nodes and 0 <= edge["to"] < nodes):
            raise GraphError(f"edge {k} of the motion graph joins nodes {edge['from']} and {edge['to']}, but there are {nodes}")
        if edge["frames"] < 1:
            raise GraphError(f"edge {k} of the motion graph plays {edge['frames']} frames: it must play at least one")
        if "blend" in edge and not (_whole(edge["blend"]) and 1 <= edge["blend"] <= edge["frames"]):
            raise GraphError(f"edge {k} of the motion graph blends {edge['blend']!r} frames: a whole number from 1 to its {edge['frames']} frames")
    settings = data.get("settings")
    if not isinstance(settings, dict) or not all(isinstance(settings.get(key), numbers.Real) and settings[key] > 0 for key in ("fps", "blend_frames")):
        raise GraphError("the motion graph's 'settings' must give 'fps' and 'blend_frames' above 0")
    return MotionGraph(clips=[dict(clip) for clip in data["clips"]], nodes=[dict(node) for node in data["nodes"]],
                       edges=[dict(edge) for edge in edges], stats=dict(data.get("stats", {})), settings=dict(settings))
