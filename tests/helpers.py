"""Shared test helpers for the Blender tiers (imported by test modules)."""

import importlib
import importlib.util
import os
import pathlib
import signal
import subprocess
import sys
import types
from dataclasses import replace

import numpy as np

import forked_cli
from core import demo
from core.formats import bvh
from core.motion import quat, rotation_modes

REPO = pathlib.Path(__file__).resolve().parents[1]
#: Real files from public exporters (tests/CORPUS.md): ``../shared/mocap/corpus`` beside the checkout, or ``$LOOPSMITH_CORPUS``.
CORPUS = pathlib.Path(os.environ.get("LOOPSMITH_CORPUS") or REPO.parent / "shared" / "mocap" / "corpus")
#: Why the corpus's tests skip, or None where it is there.
NO_CORPUS = None if (CORPUS / "MANIFEST.md").is_file() else f"the corpus of real files is not in {CORPUS}: see tests/CORPUS.md"

BANDAI_CLIPS = (
    "dataset-2_walk_normal_020.bvh",
    "dataset-1_walk_normal_001.bvh",
    "dataset-2_run_normal_040.bvh",
    "dataset-1_run_happy_001.bvh",
    "dataset-1_walk-left_normal_001.bvh",
    "dataset-1_walk-right_normal_001.bvh",
    "dataset-1_walk-back_masculinity_001.bvh",
    "dataset-2_walk-turn-left_normal_007.bvh",
    "dataset-1_dance-short_normal_001.bvh",
    "dataset-2_wave-right-hand_normal_021.bvh",
    "dataset-1_walk_normal_002.bvh",
    "dataset-1_walk-back_normal_001.bvh",
    "dataset-1_run_normal_001.bvh",
)


def import_bvh(path, rotate_mode="NATIVE"):
    """Import a BVH at scale 0.01 (metres) with the scene's fps set from the file."""
    import bpy

    bpy.ops.import_anim.bvh(filepath=str(path), global_scale=0.01, rotate_mode=rotate_mode, update_scene_fps=True)
    return bpy.context.object


def extension_module(loopsmith, name):
    """``loopsmith.<name>`` of the loaded extension (``name`` dotted, e.g. ``core.transition.make``)."""
    return importlib.import_module(f"{loopsmith.__name__}.{name}")


def imported_clip(loopsmith, path):
    """The clip of a BVH imported into a fresh empty scene (metres, Z up, the scene's fps set from the file)."""
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    return loopsmith.bridge.clip_io.read_clip(import_bvh(path))


def evaluated_pose(obj, frames):
    """Armature-space matrices ``(F, B, 4, 4)`` of every pose bone (pose.bones order) at each frame."""
    import bpy

    scene = bpy.context.scene
    flat = np.empty(len(obj.pose.bones) * 16, dtype=np.float32)
    out = []
    for frame in frames:
        scene.frame_set(int(frame))
        obj.pose.bones.foreach_get("matrix", flat)
        out.append(flat.reshape(-1, 4, 4).transpose(0, 2, 1).copy())  # foreach_get is column-major
    return np.array(out, dtype=float)


def pose_errors(a, b):
    """Largest position difference and rotation angle (radians) between pose matrix arrays."""
    position = np.abs(a[..., :3, 3] - b[..., :3, 3]).max()
    ra = a[..., :3, :3] / np.linalg.norm(a[..., :3, :3], axis=-2, keepdims=True)
    rb = b[..., :3, :3] / np.linalg.norm(b[..., :3, :3], axis=-2, keepdims=True)
    relative = np.swapaxes(ra, -1, -2) @ rb
    # atan2 of the skew part keeps small angles exact (arccos would not).
    skew = 0.5 * np.stack([relative[..., 2, 1] - relative[..., 1, 2], relative[..., 0, 2] - relative[..., 2, 0], relative[..., 1, 0] - relative[..., 0, 1]], -1)
    cos = (np.trace(relative, axis1=-2, axis2=-1) - 1.0) / 2.0
    return position, float(np.arctan2(np.linalg.norm(skew, axis=-1), cos).max())


def fcurve_snapshot(fcurves):
    """Every curve's path, index and key coordinates, for checking nothing changed."""
    snapshot = {}
    for fcurve in fcurves:
        co = np.empty(2 * len(fcurve.keyframe_points), dtype=np.float32)
        fcurve.keyframe_points.foreach_get("co", co)
        snapshot[(fcurve.data_path, fcurve.array_index)] = co
    return snapshot


class RecordingLayout:
    """A stand-in for ``bpy.types.UILayout`` that checks what a draw function asks for.

    Headless Blender has no UI to draw into; this catches misspelt properties,
    unknown operators and menus, which a real layout would only print.
    """

    def __init__(self, log=None):
        self.log = [] if log is None else log
        self.use_property_split = self.use_property_decorate = self.enabled = self.active = True

    def _child(self, *args, **kwargs):
        return RecordingLayout(self.log)

    row = column = box = split = grid_flow = column_flow = _child

    def prop(self, data, name, **kwargs):
        assert name in data.bl_rna.properties, f"{type(data).__name__} has no property '{name}'"
        self.log.append(("prop", name))

    def prop_search(self, data, name, search_data, search_name, **kwargs):
        assert name in data.bl_rna.properties and search_name in search_data.bl_rna.properties
        self.log.append(("prop", name))

    def operator(self, idname, **kwargs):
        import bpy

        category, name = idname.split(".")
        assert hasattr(getattr(bpy.ops, category), name), idname
        self.log.append(("operator", idname))
        return types.SimpleNamespace()  # a caller may set the button's operator properties

    def menu(self, idname, **kwargs):
        import bpy

        assert hasattr(bpy.types, idname), idname
        self.log.append(("menu", idname))

    def template_list(self, list_type, list_id, data, name, active_data, active_name, **kwargs):
        import bpy

        assert hasattr(bpy.types, list_type) and name in data.bl_rna.properties and active_name in active_data.bl_rna.properties
        self.log.append(("list", name))

    def label(self, **kwargs):
        self.log.append(("label", kwargs.get("text", "")))

    def separator(self, **kwargs):
        pass


def strongly_connected(node_count, edges):
    """Whether every node reaches every other along ``edges`` (dicts with "from" and "to"): node 0 reaches all, and all reach it."""
    for forward in (True, False):
        neighbours = [[] for _ in range(node_count)]
        for edge in edges:
            source, target = (edge["from"], edge["to"]) if forward else (edge["to"], edge["from"])
            neighbours[source].append(target)
        seen, stack = {0}, [0]
        while stack:
            for following in neighbours[stack.pop()]:
                if following not in seen:
                    seen.add(following)
                    stack.append(following)
        if len(seen) != node_count:
            return False
    return True


# Multi-cycle walk and run clips with the gait period the shared README gives (seconds).
GAIT_CLIPS = {
    "dataset-2_walk_normal_020.bvh": 1.10,
    "dataset-1_walk_normal_001.bvh": 1.07,
    "dataset-2_run_normal_040.bvh": 0.80,
    "dataset-1_run_happy_001.bvh": 0.77,
    "dataset-1_walk-left_normal_001.bvh": 1.10,
    "dataset-1_walk-right_normal_001.bvh": 1.10,
    "dataset-1_walk-back_masculinity_001.bvh": 1.10,
    "dataset-2_walk-turn-left_normal_007.bvh": 1.13,
}
WALKS = tuple(name for name in GAIT_CLIPS if "_walk" in name)


def foot_height_period(positions, bone_names, fps):
    """Gait period in frames from the feet's height signal alone (autocorrelation peak, 0.5-1.6 s)."""
    feet = [i for i, name in enumerate(bone_names) if name.lower().startswith("foot")]
    height = positions[:, feet, 2] - positions[:, feet, 2].mean(axis=0)
    n = len(height)
    lags = np.arange(int(0.5 * fps), min(int(1.6 * fps), n - 2) + 1)
    r = np.array([np.sum(height[:-lag] * height[lag:]) / (n - lag) for lag in lags])
    peaks = [i for i in range(1, len(lags) - 1) if r[i] >= r[i - 1] and r[i] >= r[i + 1]]
    best = max(peaks, key=lambda i: r[i])
    a, b, c = r[best - 1], r[best], r[best + 1]
    return lags[best] + 0.5 * (a - c) / (a - 2 * b + c)


def hand_picked_range(positions, rotations, period_frames, cycles=2):
    """What an animator would pick: whole cycles whose ends match, cut where the motion is calm.

    Returns (start index, length in frames).
    """
    acceleration = np.linalg.norm(positions[2:] - 2 * positions[1:-1] + positions[:-2], axis=-1)
    calm = (acceleration / np.maximum(np.percentile(acceleration, 95, axis=0), 1e-9)).max(axis=1)
    calm = np.concatenate([[np.inf], calm, [np.inf]])
    best = None
    target = int(round(cycles * period_frames))
    for length in range(target - 2, target + 3):
        for start in range(3, len(rotations) - length - 3):
            match = sum(np.sum(1 - np.abs(np.sum(rotations[start + k] * rotations[start + length + k], -1))) for k in (0, 1))
            cost = match * (1 + max(calm[start], calm[start + length]))
            if best is None or cost < best[0]:
                best = (cost, start, length)
    return best[1], best[2]


def checkout_module(name):
    """``loopsmith.<name>`` from this checkout, for bpy-free modules (the bpy venvs link the package; the core venv gets it here)."""
    if "loopsmith" not in sys.modules and importlib.util.find_spec("loopsmith") is None:
        spec = importlib.util.spec_from_file_location("loopsmith", REPO / "__init__.py", submodule_search_locations=[str(REPO)])
        sys.modules["loopsmith"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["loopsmith"])
    return importlib.import_module(f"loopsmith.{name}")


def interruptible():
    """preexec_fn: the child hears Ctrl-C (SIGINT) with Python's default handler, even when the tests run in a background job,
    whose shell starts every child with SIGINT ignored (and Python then leaves it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_loopsmith(*args, cwd=None, env_extra=None, preexec_fn=None, timeout=600, fresh=False):
    """Run ``python -m loopsmith ARGS`` as a process of its own: forked from one that has imported Python, numpy and Blender
    already (:mod:`forked_cli`), or started from nothing with ``fresh`` (what happens while Python starts and imports:
    signals, session folders) or a ``preexec_fn``. Returns what ``subprocess.run`` would, stdout and stderr as text."""
    args = [str(arg) for arg in args]
    env = dict(os.environ, **(env_extra or {}))
    if not fresh and preexec_fn is None:
        return forked_cli.run(args, cwd, env, timeout)
    return subprocess.run([sys.executable, "-m", "loopsmith", *args], capture_output=True, text=True, env=env, cwd=cwd,
                          preexec_fn=preexec_fn, timeout=timeout)


def bvh_in_units(info, factor):
    """A parsed BVH (``core.formats.bvh.BvhInfo``) with every length multiplied by ``factor`` (another unit)."""
    positions = np.array([name.endswith("position") for names in info.channels for name in names])
    return replace(info, offsets=info.offsets * factor, end_sites={j: v * factor for j, v in info.end_sites.items()},
                   motion=np.where(positions, info.motion * factor, info.motion))


#: File axes of a Y-up file to those of the same motion stood up along Z (what Blender's Y-up import does).
Y_UP_TO_Z_UP = bvh.BLENDER_TO_Y_UP.T


def bvh_z_up(info):
    """The same motion stood up along Z: every root's offset, positions and rotation turned."""
    turn = quat.from_matrix(Y_UP_TO_Z_UP)
    motion, column = info.motion.copy(), 0
    offsets = info.offsets.copy()
    for joint, names in enumerate(info.channels):
        if info.parents[joint] < 0:
            offsets[joint] = Y_UP_TO_Z_UP @ offsets[joint]
            positions = [column + names.index(axis + "position") for axis in "XYZ"]
            rotations = [column + names.index(axis + "rotation") for axis in "XYZ"]
            order = "".join(name[0] for name in reversed(names) if name.endswith("rotation"))
            motion[:, positions] = motion[:, positions] @ Y_UP_TO_Z_UP.T
            q = quat.multiply(turn, rotation_modes.euler_to_quat(np.radians(motion[:, rotations]), order))
            motion[:, rotations] = np.degrees(rotation_modes.quat_to_euler(quat.unroll(q), order))
        column += len(names)
    return replace(info, offsets=offsets, motion=motion)


def walker_library(third_frames, third_seed):
    """Three demo walkers for graph tests: two of 200 frames (other gait periods and noise) and a third of ``third_frames``."""
    return [demo.walk_cycle(num_frames=200, seed=1).clip, demo.walk_cycle(num_frames=200, seed=2, period_seconds=1.1).clip,
            demo.walk_cycle(num_frames=third_frames, seed=third_seed).clip]


def built_graph(clips, folder):
    """``folder/graph.json``: the motion graph of ``clips`` built by ``python -m loopsmith graph``, which must succeed."""
    done = run_loopsmith("graph", *clips, "-o", folder / "graph.json", "--quiet")
    assert done.returncode == 0, done.stderr
    return folder / "graph.json"
