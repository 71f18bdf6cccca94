"""A motion graph as JSON: what ``python -m loopsmith graph`` writes and ``synth`` reads.

Schema (version 1); frames are the clips' own frame numbers, times seconds::

    {
      "version": 1,
      "clips": [{"name": str, "frames": int (how many), "fps": float, "first_frame": int,
                 "bones": [str] (the clip's bone names, checked against the clip before synthesis),
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

Distances are squared feature distances (see :mod:`..graph.build`). Nodes are
sorted by clip, then frame; edges by their ``from`` node. Stats keys past
``library_frames``, a clip's ``bones`` and an edge's ``blend`` came later:
files without them still read. A cost a rounding below 0 (at most
:data:`ROUNDING`, which the builder no longer writes) reads as 0.

:func:`graph_from_json` checks the whole document before anything walks
it: types, index ranges, every clip edge joining a node to the next one of
its clip, every transition landing inside its clip, one frame rate; a
wrong value is one GraphError naming where it is. :func:`read_graph_file`
also refuses what is no JSON before parsing it (not a regular file, above
:data:`MAX_FILE_BYTES`, NaN, nesting too deep for the parser).
"""

import hashlib
import json
import math
import numbers
import os
import stat

from ..errors import GraphError
from ..motion.clip import Clip
from ..graph.build import MotionGraph, same_rate

VERSION = 1
ROUNDING = 1e-6  # costs this little below 0 are float32 rounding of identical windows (the same take twice): read as 0
MAX_FILE_BYTES = 256 << 20  # an hour of mocap makes ~10 MB; parsed JSON takes ~10 times its bytes in memory
MAX_FRAMES = 1 << 31  # frame numbers and counts past this are no mocap take's
_CLIP_KEYS = ("name", "frames", "fps", "first_frame")
_EDGE_KINDS = ("clip", "transition")


def graph_to_json(graph: MotionGraph) -> dict:
    """The graph as a JSON-ready dict (see the module's schema)."""
    return {"version": VERSION, "clips": [dict(clip) for clip in graph.clips], "nodes": [dict(node) for node in graph.nodes],
            "edges": [dict(edge) for edge in graph.edges], "stats": dict(graph.stats), "settings": dict(graph.settings)}


def _whole(value, low=-MAX_FRAMES, high=MAX_FRAMES):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and low <= value <= high


def _positive(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def _names(value):
    return isinstance(value, list) and all(isinstance(name, str) for name in value)


def _refuse_constant(name):
    raise GraphError(f"it holds {name}, which is no number JSON allows")


def read_graph_file(path: str | os.PathLike) -> MotionGraph:
    """The :class:`..graph.build.MotionGraph` in the JSON file at ``path`` (a ``pathlib.Path``); GraphError saying why it is none.

    Only a regular file up to :data:`MAX_FILE_BYTES` is read (a FIFO would
    block, a huge file fill the memory), and all of it is checked by
    :func:`graph_from_text`.
    """
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise GraphError("it is not a regular file")
        with open(path, "rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise GraphError(f"it cannot be read: {error.strerror or error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise GraphError(f"it is larger than the {MAX_FILE_BYTES >> 20} MB a motion graph file may be")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise GraphError("it is not UTF-8 text") from None
    return graph_from_text(text)


def graph_from_text(text: str) -> MotionGraph:
    """The :class:`..graph.build.MotionGraph` in JSON ``text``, checked in full (:func:`graph_from_json`); GraphError saying why it is none."""
    try:
        document = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise GraphError("it is nested too deep to be a motion graph") from None
    except ValueError as error:  # json.JSONDecodeError
        raise GraphError(f"it is not JSON: {error}") from None
    return graph_from_json(document)


def _check_clips(clips, fps):
    for k, clip in enumerate(clips):
        if not isinstance(clip, dict) or any(key not in clip for key in _CLIP_KEYS):
            raise GraphError(f"clip {k} of the motion graph needs {', '.join(_CLIP_KEYS)}")
        if not (isinstance(clip["name"], str) and clip["name"] and _whole(clip["frames"], 1) and _whole(clip["first_frame"])
                and _positive(clip["fps"])):
            raise GraphError(f"clip {k} of the motion graph needs a 'name', 'frames' above 0, a whole 'first_frame' and 'fps' above 0")
        if not same_rate(clip["fps"], fps):
            raise GraphError(f"clip {k} of the motion graph plays at {clip['fps']:g} fps, its settings say {fps:g}")
        if "bones" in clip and not (_names(clip["bones"]) and clip["bones"]):
            raise GraphError(f"clip {k} of the motion graph: 'bones' must be a list of bone names")
    if len({clip["name"] for clip in clips}) != len(clips):
        raise GraphError("two clips of the motion graph have the same name")


def _check_nodes(nodes, clips):
    for k, node in enumerate(nodes):
        if not isinstance(node, dict) or node.get("id") != k or not _whole(node.get("clip"), 0, len(clips) - 1) \
                or not _whole(node.get("frame")):
            raise GraphError(f"node {k} of the motion graph must be {{'id': {k}, 'clip': 0..{len(clips) - 1}, 'frame': a whole number}}")
        clip = clips[node["clip"]]
        if not clip["first_frame"] <= node["frame"] < clip["first_frame"] + clip["frames"]:
            raise GraphError(f"node {k} of the motion graph is at frame {node['frame']}, outside clip '{clip['name']}'")
        if k and (node["clip"], node["frame"]) <= (nodes[k - 1]["clip"], nodes[k - 1]["frame"]):
            raise GraphError(f"node {k} of the motion graph is out of order: nodes are sorted by clip, then frame, each once")


def _check_edge_fields(k, edge, nodes):
    if not isinstance(edge, dict) or edge.get("kind") not in _EDGE_KINDS or not all(_whole(edge.get(key)) for key in ("from", "to", "frames")) \
            or not isinstance(edge.get("cost"), numbers.Real) or isinstance(edge["cost"], bool) or not math.isfinite(edge["cost"]) \
            or edge["cost"] < 0:
        raise GraphError(f"edge {k} of the motion graph needs 'from', 'to', 'frames' (whole numbers), 'cost' (0 or more) and 'kind' "
                         "(clip or transition)")
    if not (0 <= edge["from"] < nodes and 0 <= edge["to"] < nodes):
        raise GraphError(f"edge {k} of the motion graph joins nodes {edge['from']} and {edge['to']}, but there are {nodes}")
    if edge["frames"] < 1:
        raise GraphError(f"edge {k} of the motion graph plays {edge['frames']} frames: it must play at least one")
    if "blend" in edge and not (edge["kind"] == "transition" and _whole(edge["blend"]) and 1 <= edge["blend"] <= edge["frames"]):
        raise GraphError(f"edge {k} of the motion graph blends {edge['blend']!r} frames: a transition's whole number from 1 to its "
                         f"{edge['frames']} frames")


def _check_edge_frames(k, edge, nodes, clips, blend):
    """That a clip edge plays its clip from a node to the next, and a transition leaves and lands inside its clips."""
    source, target = nodes[edge["from"]], nodes[edge["to"]]
    if edge["kind"] == "clip":
        if edge["to"] != edge["from"] + 1 or source["clip"] != target["clip"] or edge["frames"] != target["frame"] - source["frame"]:
            raise GraphError(f"edge {k} of the motion graph is a clip edge, but it does not play its clip from node {edge['from']} "
                             "to the next node")
        return
    out_clip, in_clip = clips[source["clip"]], clips[target["clip"]]
    if source["frame"] + edge.get("blend", blend) > out_clip["first_frame"] + out_clip["frames"] - 1:
        raise GraphError(f"edge {k} of the motion graph blends out of clip '{out_clip['name']}' past its last frame")
    if target["frame"] - edge["frames"] < in_clip["first_frame"]:
        raise GraphError(f"edge {k} of the motion graph blends into clip '{in_clip['name']}' before its first frame")


def _check_settings(settings):
    if not isinstance(settings, dict) or not _positive(settings.get("fps")) or not _whole(settings.get("blend_frames"), 1):
        raise GraphError("the motion graph's 'settings' must give 'fps' above 0 and 'blend_frames' (a whole number above 0)")
    for key in ("window_frames", "separation_frames", "hold_frames", "min_jump_frames"):
        if key in settings and not _whole(settings[key], 0):
            raise GraphError(f"the motion graph's settings give '{key}' as {settings[key]!r}: a whole number, 0 or more")
    if "joints" in settings and not _names(settings["joints"]):
        raise GraphError("the motion graph's settings give 'joints' that are not a list of bone names")


def graph_from_json(data: object) -> MotionGraph:
    """A :class:`..graph.build.MotionGraph` from :func:`graph_to_json`'s dict; GraphError naming the first thing wrong (see the module)."""
    if not isinstance(data, dict):
        raise GraphError(f"a motion graph must be a JSON object, got {type(data).__name__}")
    if data.get("version") != VERSION or isinstance(data.get("version"), bool):
        raise GraphError(f"motion graph version {data.get('version')!r} is not supported (this Loopsmith reads version {VERSION})")
    for key in ("clips", "nodes", "edges"):
        if not isinstance(data.get(key), list):
            raise GraphError(f"the motion graph has no '{key}' list")
    if not isinstance(data.get("stats", {}), dict):
        raise GraphError("the motion graph's 'stats' must be an object")
    settings = data.get("settings")
    _check_settings(settings)
    _check_clips(data["clips"], settings["fps"])
    _check_nodes(data["nodes"], data["clips"])
    edges = [dict(edge, cost=0.0) if isinstance(edge, dict) and isinstance(edge.get("cost"), numbers.Real) and -ROUNDING <= edge["cost"] < 0
             else edge for edge in data["edges"]]
    for k, edge in enumerate(edges):
        _check_edge_fields(k, edge, len(data["nodes"]))
        _check_edge_frames(k, edge, data["nodes"], data["clips"], settings["blend_frames"])
    return MotionGraph(clips=[dict(clip) for clip in data["clips"]], nodes=[dict(node) for node in data["nodes"]],
                       edges=[dict(edge) for edge in edges], stats=dict(data.get("stats", {})), settings=dict(settings))


def _sha256(chunks) -> str:
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest()


def file_checksum(path: str | os.PathLike) -> str:
    """The SHA-256 (hex) of a clip's file, recorded in the graph: a clip file changed since the graph was built is refused.
    GraphError for what is not a regular file (a FIFO would block), OSError when it cannot be read."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise GraphError("it is not a regular file")
    with open(path, "rb") as stream:
        return _sha256(iter(lambda: stream.read(1 << 20), b""))


def clip_checksum(clip: Clip) -> str:
    """The SHA-256 (hex) of a clip's channels as float32, recorded for a graph built on actions: a changed action is refused."""
    return _sha256(array.astype("<f4").tobytes() for array in (clip.location, clip.rotation, clip.scale))
