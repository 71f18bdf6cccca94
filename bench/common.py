"""Shared set-up for the benchmarks: a large generated armature and honest timers.

Each measured variant runs in its own process (``run_variant``) so that its
peak memory can be read: the kernel's peak-RSS counter is reset just before
the variant and read just after.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="loopsmith-bench-user-"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))


def rss_mb():
    with open("/proc/self/status") as status:
        fields = dict(line.split(":", 1) for line in status)
    return int(fields["VmRSS"].split()[0]) / 1024.0, int(fields["VmHWM"].split()[0]) / 1024.0


def reset_peak():
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


def measure(function, repeats=3, reset=None):
    """Best of ``repeats`` seconds of ``function()``, and the first run's peak extra memory (MB).

    reset: called untimed after each run to put the scene back (drop what the
    run created), so every run starts from the same state.
    """
    times = []
    for attempt in range(repeats):
        reset_peak()
        before, _ = rss_mb()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
        if attempt == 0:
            _, peak = rss_mb()
            extra = peak - before
        if reset is not None:
            reset()
    return min(times), extra


def keep_only_action(ext, obj, name):
    """Remove every action but ``name`` and assign that one to ``obj`` again (through the extension's action API)."""
    import bpy

    for action in list(bpy.data.actions):
        if action.name != name:
            bpy.data.actions.remove(action)
    ext.bridge.action_api.assign_action(obj, bpy.data.actions[name])


def large_clip(ext, bones=60, frames=10_000, rotation_mode="QUATERNION", seed=0):
    """A chain-and-branches armature clip with every channel keyed on every frame."""
    import numpy as np

    rng = np.random.default_rng(seed)
    parents = np.array([-1] + [int(rng.integers(0, b)) for b in range(1, bones)])
    rest = np.tile(np.eye(4), (bones, 1, 1))
    rest[:, :3, 3] = rng.normal(0, 0.3, (bones, 3))
    t = np.arange(frames)[:, None, None] / 30.0
    angles = 0.8 * np.sin(2 * np.pi * t * rng.uniform(0.3, 2.0, (1, bones, 3)) + rng.uniform(0, 6, (1, bones, 3)))
    quat = ext.core.motion.rotation_modes.euler_to_quat(angles, "XYZ")
    return ext.core.motion.clip.Clip(
        fps=30.0,
        frames=np.arange(1, frames + 1, dtype=float),
        bone_names=tuple(f"bone_{b:03d}" for b in range(bones)),
        parents=parents,
        rest=rest,
        location=0.1 * np.sin(t * rng.uniform(0.5, 3.0, (1, bones, 3))),
        rotation=ext.core.motion.quat.unroll(quat),
        scale=1.0 + 0.05 * np.sin(t * rng.uniform(0.5, 3.0, (1, bones, 3))),
        rotation_modes=(rotation_mode,) * bones,
        animated_location=np.ones((bones, 3), dtype=bool),
        animated_rotation=np.ones(bones, dtype=bool),
        animated_scale=np.ones((bones, 3), dtype=bool),
    )


def size_arguments(description):
    """A benchmark's options: ``--variant`` (run one variant in this process), ``--bones``, ``--frames``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--variant")
    parser.add_argument("--bones", type=int, default=60)
    parser.add_argument("--frames", type=int, default=10_000)
    return parser.parse_known_args()[0]


def run_variant(script, variant, *args):
    """Run ``script variant args`` in a fresh process; returns its JSON result line."""
    result = subprocess.run([sys.executable, script, "--variant", variant, *map(str, args)], capture_output=True, text=True)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        raise RuntimeError(f"{variant} failed:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}")
    return json.loads(lines[-1])


def finish(payload):
    """Print a variant's result as one JSON line and leave without Blender's exit path."""
    print(json.dumps(payload))
    sys.stdout.flush()
    os._exit(0)
