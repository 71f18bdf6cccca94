"""One quick run of every command of the command line (``tools/test.sh --quick``): exit 0, its outputs written, its
report entry with its command and a verdict, its row in the summary.

The commands come from the registry, so a command added without a line in :data:`RUNS` fails here.
"""

import json

import pytest

from helpers import run_loopsmith
from sound import RATE, kick_snare, write_wav

pytestmark = [pytest.mark.blender, pytest.mark.realdata, pytest.mark.smoke]

CYCLE = "dataset-1_walk_normal_002.bvh"  # one walk cycle, 31 frames
WALK = "dataset-1_walk_normal_001.bvh"
WALK_2 = "dataset-2_walk_normal_020.bvh"
RUN = "dataset-1_run_happy_001.bvh"
WAVE = "dataset-2_wave-right-hand_normal_021.bvh"

#: command -> (its arguments before ``-o OUT``, the outputs it writes into OUT). ``{clips}``, ``{graph}``, ``{song}`` and
#: ``{path}`` stand for the shared clips' folder, a graph the `graph` run wrote, a synthesized drum track and a path to follow.
RUNS = {
    "make-loop": (("{clips}/" + CYCLE,), (CYCLE.replace(".bvh", "_loop.bvh"),)),
    "transition": (("{clips}/" + WALK, "{clips}/" + RUN, "--method", "INERTIALIZE", "--length", "0.3"),
                   ("dataset-1_walk_normal_001_to_dataset-1_run_happy_001.bvh",)),
    "compose": (("{clips}/" + WALK, "{clips}/" + RUN),
                ("composition.bvh",)),
    "graph": (("{clips}/" + WALK, "{clips}/" + RUN), ()),
    "synth": (("{graph}", "--seconds", "4", "--seed", "3"), ()),
    "follow": (("{graph}", "--path", "{path}"), ("follow.bvh",)),
    "resample": (("{clips}/" + CYCLE, "--fps", "60"), (CYCLE.replace(".bvh", "_resample.bvh"),)),
    "retime": (("{clips}/" + CYCLE, "--speed", "0.5"), (CYCLE.replace(".bvh", "_retime.bvh"),)),
    "freeze": (("{clips}/" + CYCLE, "--bone", "UpperArm_L", "--frame", "5"), (CYCLE.replace(".bvh", "_freeze.bvh"),)),
    "splice": (("{clips}/" + WALK, "{clips}/" + WAVE),
               ("dataset-1_walk_normal_001_dataset-2_wave-right-hand_normal_021_splice.bvh",)),
    "blend": (("{clips}/" + WALK, "{clips}/" + WALK_2, "--weight", "0.5"),
              ("dataset-1_walk_normal_001_dataset-2_walk_normal_020_blend.bvh",)),
    "mirror": (("{clips}/" + CYCLE,), (CYCLE.replace(".bvh", "_mirror.bvh"),)),
    "convert": (("{clips}/" + CYCLE, "--format", "glb"), (CYCLE.replace(".bvh", ".glb"),)),
    "beats": (("{song}",), ()),
}


def test_every_command_has_a_smoke_run():
    from loopsmith.pipeline import commands

    assert set(RUNS) == set(commands.COMMANDS)


@pytest.fixture(scope="module")
def song(tmp_path_factory):
    """Kick and snare at 100 BPM for 8 s."""
    samples, _ = kick_snare(100.0, 8.0)
    return write_wav(tmp_path_factory.mktemp("song") / "drums.wav", 0.9 * samples / abs(samples).max(), RATE)


@pytest.fixture(scope="module")
def path_file(tmp_path_factory):
    """A path of 3 m with a gentle bend."""
    out = tmp_path_factory.mktemp("path") / "path.json"
    out.write_text(json.dumps({"points": [[0, 0], [1.5, 0], [3, 0.5]]}))
    return out


@pytest.fixture(scope="module")
def graph(mocap_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("graph") / "library.json"
    result = run_loopsmith("graph", mocap_dir / WALK, mocap_dir / RUN, "-o", out, "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    return out


@pytest.mark.parametrize("command", RUNS)
def test_the_command_runs(command, mocap_dir, tmp_path, request):
    arguments, outputs = RUNS[command]
    places = {"clips": mocap_dir, "song": request.getfixturevalue("song") if command == "beats" else None,
              "graph": request.getfixturevalue("graph") if command in ("synth", "follow") else None,
              "path": request.getfixturevalue("path_file") if command == "follow" else None}
    out = tmp_path / ("library.json" if command == "graph" else "out")
    result = run_loopsmith(command, *(argument.format(**places) for argument in arguments), "-o", out, "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    folder = out.parent if command == "graph" else out
    for name in outputs:
        assert (folder / name).is_file(), sorted(path.name for path in folder.iterdir())
    entries = json.loads((folder / "loopsmith_report.json").read_text())["entries"]
    assert entries and all(entry["command"] == command and entry["verdict"]["word"] in ("GOOD", "CHECK", "VISIBLE") for entry in entries)
    assert (folder / "loopsmith_report.html").is_file() and "Traceback" not in result.stderr
