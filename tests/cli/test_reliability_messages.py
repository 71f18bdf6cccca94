"""Messages that do not mislead: absurd numbers are usage errors, hostile files are named for what they are, a clip too
short for a blend is named with its frame count.

Option checks run the command line's parser and checks in this process (no file is read, no Blender); the hostile files
and short clips run the real command in a fresh process.
"""

import argparse
import contextlib
import io
import os
import pathlib
from dataclasses import replace

import numpy as np
import pytest

from core.formats import bvh
from core import demo
from core.compose import Junction, Piece, compose
from core.errors import CompositionError, TransitionError
from core.transition import blend, make
from helpers import checkout_module, run_loopsmith

WALK = "dataset-1_walk_normal_001.bvh"
RUN = "dataset-1_run_happy_001.bvh"


def _refusal(*argv):
    """(exit code, last line of stderr) of parsing ``argv`` and checking it as a run does before reading any file.

    The exit code is 0 when the options were accepted.
    """
    cli, commands, runner, options = (checkout_module(f"pipeline.{name}") for name in ("cli", "commands", "runner", "options"))
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):
        try:
            parsed = cli.parser().parse_args(argv)
        except SystemExit as exit_:
            return exit_.code, errors.getvalue().strip().splitlines()[-1]
    try:
        runner.check_options(commands.COMMANDS[parsed.command], parsed)
    except options.UsageError as error:
        return 2, str(error)
    return 0, ""


@pytest.mark.parametrize("argv, expected", [
    (("transition", "a.bvh", "b.bvh", "--length", "1e9"), "argument --length: 1e9 must be at most 60 (range: above 0, at most 60)"),
    (("transition", "a.bvh", "b.bvh", "--at", "1000000000000", "5"), "--at: 1000000000000 must be at most 1048574 (range: -1048574 to 1048574)"),
    (("compose", "a.bvh", "b.bvh", "--length", "1e9"), "argument --length: 1e9 must be at most 60"),
    (("compose", "a.bvh", "b.bvh", "--clip-range", "1", "1", "100000000000"), "argument --clip-range: 100000000000 must be at most 1048574"),
    (("compose", "a.bvh", "b.bvh", "--junction", "1", "-100000000000", "5"), "argument --junction: -100000000000 must be at least -1048574"),
    (("retime", "a.bvh", "--duration", "1e9"), "argument --duration: 1e9 must be at most 86400 (range: above 0, at most 86400)"),
    (("freeze", "a.bvh", "--bone", "Hips", "--frame", "100000000000"), "argument --frame: 100000000000 must be at most 1048574"),
    (("freeze", "a.bvh", "--bone", "Hips", "--range", "1", "9", "--blend", "1e9"), "argument --blend: 1e9 must be at most 60 (range: 0 to 60)"),
    (("make-loop", "a.bvh", "--cycles", "1000000000"), "argument --cycles: 1000000000 must be at most 100 (range: 0 to 100)"),
    (("make-loop", "a.bvh", "--max-length", "1e9"), "argument --max-length: 1e9 must be at most 600"),
    (("make-loop", "a.bvh", "--range", "1", "1000000000000"), "argument --range: 1000000000000 must be at most 1048574"),
    (("make-loop", "a.bvh", "--method", "CROSSFADE", "--crossfade", "1e9"), "argument --crossfade: 1e9 must be at most 60"),
    (("make-loop", "a.bvh", "--root-blend", "1e9"), "argument --root-blend: 1e9 must be at most 60"),
    (("make-loop", "a.bvh", "--method", "SPRING", "--halflife-start", "1e9"), "argument --halflife-start: 1e9 must be at most 60 (range: 0.001 to 60)"),
    (("make-loop", "a.bvh", "--method", "SOFTFADE", "--hardness-end", "1e308"), "argument --hardness-end: 1e308 must be at most 1000 (range: 0.01 to 1000)"),
    (("mirror", "a.bvh", "--root-motion", "HEADING", "--root-smoothing", "1e9"), "argument --root-smoothing: 1e9 must be at most 60 (range: 0 to 60)"),
    (("resample", "a.bvh", "--fps", "1e9"), "argument --fps: 1e9 must be at most 1000 (range: 1 to 1000)"),
    (("retime", "a.bvh", "--speed", "nan"), "argument --speed: 'nan' is not a finite number"),
])
def test_an_absurd_number_is_a_usage_error_naming_the_option_and_its_range(argv, expected):
    code, line = _refusal(*argv)
    assert code == 2 and expected in line, line


def test_help_states_every_bounded_option_s_range():
    cli = checkout_module("pipeline.cli")
    commands = next(action for action in cli.parser()._actions if isinstance(action, argparse._SubParsersAction)).choices
    for command, option, allowed in (("transition", "--length", "range: above 0, at most 60"), ("make-loop", "--cycles", "range: 0 to 100"),
                                     ("retime", "--duration", "range: above 0, at most 86400"), ("compose", "--junction", "range: -1048574 to 1048574"),
                                     ("transition", "--at", "range: -1048574 to 1048574")):
        described = " ".join(commands[command].format_help().split("options:", 1)[1].split())  # after the usage lines
        assert allowed in described[described.index(option + " "):][:400], (command, option)


# The core: binary files, blends far too long, clips too short for a blend.

def test_a_binary_file_is_named_as_binary_data_and_none_of_its_bytes_is_shown(tmp_path):
    path = tmp_path / "take.bvh"
    path.write_bytes(np.random.default_rng(1).integers(0, 256, 5000, dtype=np.uint8).tobytes())
    with pytest.raises(bvh.NotBvhError) as caught:
        bvh.read_bvh(path)
    assert str(caught.value) == "not a BVH file (binary data)"
    path.write_bytes("HIERARCHY\nROOT Hips\n".encode("utf-16"))
    with pytest.raises(bvh.BvhError, match="line 1: the file is UTF-16 text, which Blender's BVH importer cannot read: save it as UTF-8"):
        bvh.read_bvh(path)


def _walk(frames, seed=0):
    return demo.walk_cycle(num_frames=frames, speed=1.2, period_seconds=1.07, seed=seed).clip


def test_a_blend_far_too_long_is_refused_before_any_array_of_its_length_is_made():
    a, b = _walk(120), _walk(120, seed=3)
    with pytest.raises(TransitionError, match="clip B ends 29999901 frames before the blend does: 100 of its 120 frames are from the transition frame on"):
        blend.transition(a, 60, b, 20, 1e6, "INERTIALIZE")
    with pytest.raises(TransitionError, match="clip B has 120 frames, fewer than the 30000001 that a blend of 1e.06 s needs at 30 fps"):
        make.make_transition(a, b, length=1e6)


@pytest.mark.parametrize("lengths, method, length, expected", [
    ((120, 20), "AUTO", 1.0, "clip B has 20 frames, fewer than the 31 that a blend of 1 s needs at 30 fps"),
    # A chosen length is shortened to what the clips leave room for, down to 3 frame steps.
    ((120, 3), "AUTO", None, "clip B has 3 frames, fewer than the 4 that the shortest blend (3 frame steps) needs at 30 fps"),
    ((20, 120), "CROSSFADE", 1.0, "clip A has 20 frames, fewer than the 31 that a blend of 1 s needs at 30 fps"),
    ((6, 120), "INERTIALIZE", 0.1, "clip A has 6 frames, fewer than the 9 that the search for a transition point compares at once"),
])
def test_a_clip_too_short_for_the_blend_is_named_with_its_frames_and_the_frames_needed(lengths, method, length, expected):
    a, b = _walk(lengths[0]), _walk(lengths[1], seed=3)
    with pytest.raises(TransitionError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        make.make_transition(a, b, method=method, length=length)


def test_a_junction_s_message_names_its_pieces_not_clip_a_and_b():
    first, second = _walk(150), _walk(40, seed=3)
    with pytest.raises(CompositionError) as refused:
        compose([Piece(first, name="walk.bvh"), Piece(second, name="short.bvh")], [Junction(length=2.0)])
    message = str(refused.value)
    assert "'short.bvh' has 40 frames, fewer than the 61 that a blend of 2 s needs" in message and "clip B" not in message
    assert message.startswith("junction 1 ('walk.bvh' -> 'short.bvh'): AUTO 2 s does not fit")


# The command line: hostile files in a batch, clips too short for a transition.

def _hostile_files(folder):
    """A binary file, a FIFO and links to devices, each named as a motion file: {name: the one line expected after its path}."""
    folder.mkdir()
    (folder / "noise.bvh").write_bytes(np.random.default_rng(2).integers(0, 256, 20000, dtype=np.uint8).tobytes())
    os.mkfifo(folder / "pipe.bvh")
    os.mkfifo(folder / "pipe.fbx")
    (folder / "zero.bvh").symlink_to("/dev/zero")
    (folder / "null.glb").symlink_to("/dev/null")
    fifo, device = "a named pipe (FIFO), not a motion file", "a character device, not a motion file"
    return {"noise.bvh": "not a BVH file (binary data)", "pipe.bvh": fifo, "pipe.fbx": fifo, "zero.bvh": device, "null.glb": device}


@pytest.mark.blender
@pytest.mark.realdata
@pytest.mark.parametrize("reader", ["numpy", "blender"])
def test_hostile_files_fail_alone_with_one_line_each_and_never_hang(mocap_dir, tmp_path, reader):
    expected = _hostile_files(tmp_path / "in")
    files = [tmp_path / "in" / name for name in expected]
    result = run_loopsmith("make-loop", *files, mocap_dir / WALK, "-o", tmp_path / "out", "--quiet", "--bvh-reader", reader, timeout=120)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "UTF-8" not in result.stderr  # no byte of the noise is quoted
    for path in files:
        assert f"loopsmith: {path}: {expected[path.name]}\n" in result.stderr
    assert (tmp_path / "out" / f"{pathlib.Path(WALK).stem}_loop.bvh").is_file()  # the good file of the batch is still looped


@pytest.mark.blender
@pytest.mark.realdata
def test_a_fifo_as_the_second_file_of_a_pair_is_named_and_never_waited_on(mocap_dir, tmp_path):
    expected = _hostile_files(tmp_path / "in")
    result = run_loopsmith("transition", mocap_dir / WALK, tmp_path / "in" / "pipe.bvh", "-o", tmp_path / "out", "--quiet", timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{tmp_path / 'in' / 'pipe.bvh'}: {expected['pipe.bvh']}" in result.stderr


@pytest.fixture
def short_clips(mocap_dir, tmp_path):
    """The walk cut to its first 5 and 12 frames: {frames: path}."""
    info = bvh.read_bvh(mocap_dir / WALK)
    paths = {}
    for frames in (5, 12):
        paths[frames] = tmp_path / f"short{frames}.bvh"
        bvh.write_bvh(paths[frames], replace(info, motion=info.motion[:frames]))
    return paths


@pytest.mark.blender
@pytest.mark.realdata
@pytest.mark.parametrize("command, files, expected", [
    (("transition", "--length", "1"), ("walk", 12), "TO (short12.bvh) has 12 frames, fewer than the 31 that a blend of 1 s needs at 30 fps"),
    (("transition",), (5, "walk"), "FROM (short5.bvh) has 5 frames, fewer than the 9 that the search for a transition point compares"),
    (("compose",), ("walk", 12), "'short12.bvh' keeps 12 frames, under the 1 s a piece needs (32 frames at 30 fps)"),
])
def test_a_clip_too_short_is_named_with_its_frames(mocap_dir, short_clips, tmp_path, command, files, expected):
    paths = [mocap_dir / WALK if file == "walk" else short_clips[file] for file in files]
    result = run_loopsmith(command[0], *paths, *command[1:], "-o", tmp_path / "out", "--quiet", timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert expected in result.stderr
