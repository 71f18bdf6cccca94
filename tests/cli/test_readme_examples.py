"""Every command the README shows runs, as written, on the shared clips.

Each ``$PY -m loopsmith ...`` (or ``python -m loopsmith ...``) line of the
README's fenced ``bash`` blocks is one test. The README's placeholder files
(walk.bvh, run.bvh, clips/, ../shared/mocap/bandai ...) are laid out in a
temporary folder from the real shared clips (two or three clips per folder to
keep the time down); the FBX and GLB inputs are written once by the command
itself, and out/graph.json by the README's own graph example. A line runs in
a fresh process from that folder, with ``--quiet`` added: exit 0 and no
traceback. ``--help`` lines must show an "examples:" section. Lines that need
a Dask cluster are skipped with the reason. Last, a .blend output's scene
plays the result's frame range (the README's `--format blend`).
"""

import json
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from sound import blender_audio_missing
from helpers import REPO, run_loopsmith

pytestmark = [pytest.mark.blender, pytest.mark.realdata]

README = REPO / "README.md"
# `$PY -m loopsmith`, `python -m loopsmith`, `.venv/.../bin/python -m loopsmith`.
EXAMPLE = re.compile(r"^(\$PY|\S*python[\d.]*)\s+-m\s+loopsmith(\s|$)")

WALK = "dataset-1_walk_normal_001.bvh"  # steady forward walk, ~6 cycles
RUN = "dataset-1_run_happy_001.bvh"  # jog, ~6 cycles
WAVE = "dataset-2_wave-right-hand_normal_021.bvh"  # standing, waving
DANCE = "dataset-1_dance-short_normal_001.bvh"  # 63 s dance (compose takes three of its ranges)
HAPPY_WALK = "dataset-1_walk_happy_001.bvh"  # in bandai-actions/: a walk in another style

#: The README's placeholder name -> the shared clip it stands for (folder, file).
FILES = {
    "walk.bvh": ("bandai", WALK),
    "run.bvh": ("bandai", RUN),
    "wave.bvh": ("bandai", WAVE),
    "dance.bvh": ("bandai", DANCE),
    "happy_walk.bvh": ("bandai-actions", HAPPY_WALK),
    # A library of clips, one of them standing in place; the graph's `--via walk run walk` finds them by these names.
    "clips/walk.bvh": ("bandai", WALK),
    "clips/run.bvh": ("bandai", RUN),
    "clips/wave.bvh": ("bandai", WAVE),
    # A folder of multi-cycle clips that travel (the `--cycles 2 --root-mode TRAVEL` example).
    "walks/walk.bvh": ("bandai", WALK),
    "walks/run.bvh": ("bandai", RUN),
    # `../shared/mocap/bandai` seen from the checkout: three of the thirteen clips.
    "shared/mocap/bandai/" + WALK: ("bandai", WALK),
    "shared/mocap/bandai/" + RUN: ("bandai", RUN),
    "shared/mocap/bandai/" + WAVE: ("bandai", WAVE),
    # `../shared/mocap/cmu-dance`: the dance takes in CMU's own format, their skeleton beside them.
    **{f"shared/mocap/cmu-dance/{name}": ("cmu-dance", name) for name in ("05.asf", "05_01.amc", "05_02.amc", "05_03.amc")},
    # `../shared/music/house_lo.ogg`, beside the mocap folder.
    "shared/music/house_lo.ogg": ("../music", "house_lo.ogg"),
}
#: Inputs in other formats, written from a shared clip by `resample --fps 30 --format ...` (frames kept exactly).
CONVERTED = {"walk.fbx": ("walk.bvh", "fbx"), "idle.glb": ("wave.bvh", "glb")}
CHECKOUT = "checkout"  # the folder the commands run in, beside shared/, so ../shared/mocap/bandai is the README's path


def readme_examples():
    """The loopsmith command lines of the README's ``bash`` blocks, in order."""
    examples, fence = [], None
    for line in README.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = stripped[3:].strip() if fence is None else None
            continue
        if fence == "bash" and EXAMPLE.match(stripped):
            examples.append(stripped)
    return examples


def example_args(line):
    """The arguments after ``-m loopsmith`` (the trailing comment dropped)."""
    words = shlex.split(line, comments=True)
    return words[words.index("loopsmith") + 1:]


def skip_reason(args):
    if "--scheduler" in args:
        return "needs a Dask cluster (tests/cli/test_cluster.py runs one)"
    if "--shard" in args:
        return "needs a farm (tests/cli/test_flamenco.py covers shards)"
    if any(arg.endswith(".ogg") for arg in args):
        return blender_audio_missing()
    return None


EXAMPLES = readme_examples()


def _lay_out(root, mocap):
    for name, (folder, clip) in FILES.items():
        target = root / (name if name.startswith("shared/") else f"{CHECKOUT}/{name}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(mocap / folder / clip, target)
    return root / CHECKOUT


@pytest.fixture(scope="module")
def prepared(mocap_dir, tmp_path_factory):
    """Files every example may need that a command makes: the FBX/GLB inputs, out/graph.json and a path to follow."""
    root = tmp_path_factory.mktemp("readme-made")
    work = _lay_out(root, mocap_dir.parent)
    made = {}
    for name, (source, fmt) in CONVERTED.items():
        result = run_loopsmith("resample", source, "--fps", "30", "--format", fmt, "-o", "converted", "--quiet", cwd=work, timeout=300)
        assert result.returncode == 0, result.stderr
        made[name] = work / "converted" / f"{pathlib.Path(source).stem}_resample.{fmt}"
    graph = next((example_args(line) for line in EXAMPLES if example_args(line)[:1] == ["graph"] and "out/graph.json" in line), None)
    if graph is not None:  # the README's own graph example makes the graph its synth examples read
        result = run_loopsmith(*graph, "--quiet", cwd=work, timeout=300)
        assert result.returncode == 0, result.stderr
        made["out/graph.json"] = work / "out" / "graph.json"
    made["path.json"] = root / "path.json"  # the path the follow examples walk: 3 m with a bend
    made["path.json"].write_text('{"points": [[0, 0], [1.5, 0], [3, 0.5]]}')
    return made


def test_the_readme_has_examples_of_every_command():
    commands = {example_args(line)[0] for line in EXAMPLES}
    assert {"make-loop", "transition", "compose", "graph", "synth", "resample", "retime", "freeze", "splice", "blend", "mirror"} <= commands


@pytest.mark.parametrize("line", EXAMPLES, ids=[" ".join(example_args(line)) for line in EXAMPLES])
def test_readme_example_runs(line, mocap_dir, tmp_path, prepared):
    args = example_args(line)
    reason = skip_reason(args)
    if reason:
        pytest.skip(reason)
    work = _lay_out(tmp_path, mocap_dir.parent)
    for name, source in prepared.items():
        if name in args and not _is_output(args, name):
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, work / name)
    missing = [arg for arg in args if re.fullmatch(r"[\w./-]+\.(bvh|fbx|glb|gltf|blend|json)", arg) and not (work / arg).exists()
               and not _is_output(args, arg)]
    assert not missing, f"the test has no stand-in for the README's {missing}: add it to FILES"
    help_line = "--help" in args or "-h" in args
    if not help_line and "--quiet" not in args:
        args.append("--quiet")
    result = run_loopsmith(*args, cwd=work, timeout=300)
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output[-3000:]
    assert result.returncode == 0, f"exit {result.returncode}:\n{output[-3000:]}"
    if help_line:
        assert "\nexamples:\n" in result.stdout, result.stdout[-2000:]


def _is_output(args, arg):
    """An argument that names a file the command writes (after -o or --report)."""
    at = args.index(arg)
    return at > 0 and args[at - 1] in ("-o", "--output", "--report")


# What a .blend output holds: its scene plays the result (read back in a fresh Blender).
_BLEND_RANGES = """
import json, sys, bpy
found = {}
for path in sys.argv[1:]:
    bpy.ops.wm.open_mainfile(filepath=path)
    scene = bpy.context.scene
    actions = [obj.animation_data.action for obj in scene.objects if obj.type == "ARMATURE" and obj.animation_data and obj.animation_data.action]
    found[path] = [scene.frame_start, scene.frame_end, scene.frame_current, [list(action.frame_range) for action in actions]]
print("RANGES" + json.dumps(found))
"""


@pytest.mark.every_blender
def test_a_blend_output_plays_the_results_frame_range(mocap_dir, tmp_path):
    work = _lay_out(tmp_path, mocap_dir.parent)
    runs = {"make-loop": ["walk.bvh"], "transition": ["walk.bvh", "run.bvh"], "compose": ["walk.bvh", "run.bvh", "--loop"],
            "retime": ["walk.bvh", "--speed", "0.5"]}
    for command, args in runs.items():
        result = run_loopsmith(command, *args, "--format", "blend", "-o", command, "--quiet", cwd=work, timeout=300)
        assert result.returncode == 0, result.stderr[-2000:]
    files = sorted(str(path) for path in work.glob("*/*.blend"))
    assert len(files) == len(runs), files
    read = subprocess.run([sys.executable, "-c", _BLEND_RANGES, *files], capture_output=True, text=True, timeout=300)
    ranges = json.loads(next(line for line in read.stdout.splitlines() if line.startswith("RANGES"))[len("RANGES"):])
    for path, (start, end, current, actions) in ranges.items():
        assert len(actions) == 1, (path, actions)
        assert [start, end] == [round(frame) for frame in actions[0]] and current == start, (path, start, end, current, actions)
