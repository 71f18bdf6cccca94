"""Round trips through every format Loopsmith writes: a small synthetic Acclaim clip of 2, 30, 31 and 195 frames at 24, 30 and
120 fps is converted to BVH, AMC, GLB, FBX and .blend, and each of those outputs again to every format; every output holds
every frame and reads back as the motion it came from.

The clips are made here (a six-bone skeleton, smooth turns on every axis and a travelling root); each stage is one
``convert`` run over all twelve clips (AMC inputs, which carry no rate, one run per rate), shared by the tests of its pairs.
"""

import json

import pytest

from acclaim_clips import amc_text, asf_text
from helpers import run_loopsmith

pytestmark = [pytest.mark.blender]
bpy = pytest.importorskip("bpy")

FORMATS = ("bvh", "amc", "glb", "fbx", "blend")
FRAMES = (2, 30, 31, 195)
RATES = (24, 30, 120)
TOLERANCE = 1e-4  # metres: every joint on every frame after a round trip (the convert verdict's own)


def _name(frames, rate):
    return f"clip{frames}_at{rate}"


def _convert(inputs, out, *extra):
    done = run_loopsmith("convert", *inputs, "--format", *FORMATS, "-o", out, "--quiet", *extra)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _entries(out):
    return {entry["file"].rsplit("/", 1)[-1]: entry for entry in json.loads((out / "loopsmith_report.json").read_text())["entries"]}


@pytest.fixture(scope="session")
def first_outputs(tmp_path_factory):
    """Every clip converted to every format once: ``(folder, entries by input name, asf)``. The clips start as AMC files on
    their ASF, written as BVH first, with a Frame Time of 7 decimals that puts the last frame a hair off a whole frame."""
    root = tmp_path_factory.mktemp("round-trips")
    acclaim, origin, out = root / "acclaim", root / "origin", root / "first"
    acclaim.mkdir()
    asf = acclaim / "roundtrip.asf"
    asf.write_text(asf_text())
    for rate in RATES:
        folder = acclaim / str(rate)
        folder.mkdir()
        for frames in FRAMES:
            (folder / f"{_name(frames, rate)}.amc").write_text(amc_text(frames))
        done = run_loopsmith("convert", folder, "--asf", asf, "--amc-fps", rate, "--format", "bvh", "-o", origin, "--quiet")
        assert done.returncode == 0, done.stderr
    for path in origin.glob("*.bvh"):  # 7 decimals, as capture software writes it (0.0333333 s): 30.00003 fps
        text = path.read_text()
        time = text.split("Frame Time:", 1)[1].split("\n", 1)[0]
        path.write_text(text.replace(f"Frame Time:{time}", f"Frame Time: {float(time):.7f}", 1))
    _convert([origin], out, "--asf", asf)
    return out, _entries(out), asf


@pytest.fixture(scope="session")
def second_outputs(first_outputs, tmp_path_factory):
    """Loopsmith's own outputs of each format converted again to every format: ``{format: entries by input name}``."""
    folder, _, asf = first_outputs
    root, found = tmp_path_factory.mktemp("round-trips-again"), {}
    for source in FORMATS:
        out = root / source
        if source == "amc":  # AMC files carry no rate: one run per rate
            for rate in RATES:
                _convert([folder / f"{_name(frames, rate)}.amc" for frames in FRAMES], out, "--asf", asf, "--amc-fps", rate)
        else:
            _convert([folder / f"{_name(frames, rate)}.{source}" for frames in FRAMES for rate in RATES], out, "--asf", asf)
        found[source] = _entries(out)
    return found


def _check(entry, frames, rate, target_format):
    """The entry converted a clip of ``frames`` at ``rate``, and its ``target_format`` output holds every frame within TOLERANCE."""
    assert entry["status"] == "ok", entry.get("error")
    assert entry["frames"] == frames and abs(entry["fps"] - rate) < 1e-3, (entry["frames"], entry["fps"])
    (output, found), = [(path, value) for path, value in entry["read_back"].items() if path.endswith(f".{target_format}")]
    assert "problem" not in found, found
    assert found["frames"] == frames and found["joints_m"] < TOLERANCE, (output, found)


@pytest.mark.parametrize("target", FORMATS)
def test_the_clips_convert_to_every_format(first_outputs, target):
    _, entries, _ = first_outputs
    for frames in FRAMES:
        for rate in RATES:
            _check(entries[f"{_name(frames, rate)}.bvh"], frames, rate, target)


@pytest.mark.parametrize("source", FORMATS)
@pytest.mark.parametrize("target", FORMATS)
def test_loopsmiths_own_output_converts_again_keeping_the_motion(second_outputs, source, target):
    entries = second_outputs[source]
    for frames in FRAMES:
        for rate in RATES:
            _check(entries[f"{_name(frames, rate)}.{source}"], frames, rate, target)
