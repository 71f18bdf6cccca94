"""``compose --face K DEGREES``: parsed and refused in this process as a run checks it before reading any file, passed to
the core as radians, and one real run whose second clip travels the way asked."""

import contextlib
import io
import json
import math

import pytest

from helpers import checkout_module, run_loopsmith

WALK, WALK_2 = "dataset-1_walk_normal_001.bvh", "dataset-2_walk_normal_020.bvh"


def _parsed(*argv):
    """(exit code, last line of stderr or the UsageError, the parsed options) of ``compose ARGV`` as a run checks it."""
    cli, commands, runner, options = (checkout_module(f"pipeline.{name}") for name in ("cli", "commands", "runner", "options"))
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):
        try:
            parsed = cli.parser().parse_args(["compose", *argv])
        except SystemExit as exit_:
            return exit_.code, errors.getvalue().strip().splitlines()[-1], None
    try:
        runner.check_options(commands.COMMANDS[parsed.command], parsed)
    except options.UsageError as error:
        return 2, str(error), parsed
    return 0, "", parsed


def test_face_is_parsed_per_clip_in_radians():
    code, message, parsed = _parsed("a.bvh", "b.bvh", "c.bvh", "--face", "2", "90", "--face", "3", "-45.5", "-o", "out")
    assert code == 0, message
    faces = checkout_module("pipeline.commands.compose.options").faces(parsed)
    assert faces == {2: pytest.approx(math.pi / 2), 3: pytest.approx(math.radians(-45.5))}
    code, _, parsed = _parsed("a.bvh", "b.bvh", "-o", "out")
    assert code == 0 and parsed.face == []


@pytest.mark.parametrize("argv, expected", [
    (("--face", "1", "90"), "--face 1 90: the first clip keeps its own heading: give K from 2 to 2"),
    (("--face", "3", "90"), "--face 3 90: there is no clip 3 (K is a whole number, 2-2)"),
    (("--face", "0", "90"), "--face 0 90: there is no clip 0 (K is a whole number, 2-2)"),
    (("--face", "1.5", "90"), "--face 1.5 90: there is no clip 1.5 (K is a whole number, 2-2)"),
    (("--face", "2", "270"), "--face 2 270: DEGREES must be from -180 to 180 (the sign says which way to turn)"),
    (("--face", "2", "-180.5"), "--face 2 -180.5: DEGREES must be from -180 to 180 (the sign says which way to turn)"),
    (("--face", "2", "90", "--face", "2", "45"), "--face is given twice for clip 2"),
    (("--face", "2", "nan"), "argument --face: 'nan' is not a finite number"),
    (("--face", "2", "left"), "argument --face: 'left' is not a number"),
    (("--face", "2"), "argument --face: expected 2 arguments"),
])
def test_a_bad_face_is_refused_naming_the_option(argv, expected):
    code, message, _ = _parsed("a.bvh", "b.bvh", *argv, "-o", "out")
    assert code == 2 and expected in message, message


def test_the_job_passes_each_face_to_its_piece():
    job = pytest.importorskip("bpy") and checkout_module("pipeline.commands.compose.job")
    _, _, parsed = _parsed("a.bvh", "b.bvh", "a.bvh", "--face", "3", "-90", "-o", "out")
    paths = [type("Path", (), {"name": name})() for name in ("a.bvh", "b.bvh", "a.bvh")]
    pieces, junctions = job.pieces_and_junctions(paths, "clip a", ["clip b", "clip a"], parsed)
    assert [piece.heading for piece in pieces] == [0.0, 0.0, pytest.approx(-math.pi / 2)] and len(junctions) == 2


@pytest.mark.blender
@pytest.mark.realdata
def test_a_run_turns_the_second_walk(mocap_dir, tmp_path):
    pytest.importorskip("bpy")
    from core.formats import bvh, bvh_clip
    from core.motion import root as root_motion

    result = run_loopsmith("compose", mocap_dir / WALK, mocap_dir / WALK_2, "--face", "2", "90", "-o", tmp_path, "--quiet")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    (entry,) = json.loads((tmp_path / "loopsmith_report.json").read_text())["entries"]
    assert entry["status"] == "ok" and any("turned +90 degrees" in note for note in entry["composition"]["notes"])
    info = bvh.read_bvh(tmp_path / "composition.bvh")
    clip = bvh_clip.clip_from_bvh(info, 1.0, bvh.up_axis(info))
    position = root_motion.root_frames(clip, root_motion.find_moving_root(clip))[0][:, :3, 3]
    (first, last), second = entry["transitions"][0]["window"], int(round(clip.fps))
    before, after = position[first - 1] - position[first - 1 - second], position[last + 1 + second] - position[last + 1]
    turn = math.degrees(math.atan2(before[0] * after[1] - before[1] * after[0], before[:2] @ after[:2]))
    print(f"\ncompose {WALK} {WALK_2} --face 2 90: the second walk travels {turn:+.1f} degrees from the first")
    assert abs(turn - 90.0) <= 8.0
