"""make-loop, convert and transition over the corpus of real files from public exporters (``tests/CORPUS.md``, see
its MANIFEST.md): every file is read and converted, a single pose says why it cannot loop, a take off the floor is said
so in its verdict.

The commands' jobs run in this process, each file once per command (a module fixture): the same code as the command
line, without a Blender start-up per file.
"""

import pytest

from helpers import CORPUS, NO_CORPUS, checkout_module

pytestmark = [pytest.mark.blender, pytest.mark.skipif(NO_CORPUS is not None, reason=str(NO_CORPUS))]
bpy = pytest.importorskip("bpy")

FILES = sorted(CORPUS.glob("*.bvh"))
POSES = ("dme_rest.bvh", "mh_benchmark.bvh", "mh_dance1.bvh", "mh_tpose.bvh", "pybvh_standard_skeleton.bvh")
#: Clips whose motion repeats (MANIFEST.md): make-loop must loop each.
REPEATING = ("b2dm_0005_Walking001.bvh", "dme_example.bvh", "dme_xia_neutral_01_000.bvh", "dme_xia_old_13_000.bvh",
             "fairmotion_sinusoidal.bvh", "fairmotion_sinusoidal_2.bvh", "mh_walk1.bvh", "mh_zombieWalk1.bvh",
             "pybvh_cmu_12_01_walk.bvh", "pymo_AV_8Walk.bvh")
#: Pairs for transition: one exporter's rig, and two rigs that differ.
PAIRS = (("dme_xia_neutral_01_000.bvh", "dme_xia_old_13_000.bvh"), ("pymo_AV_8Walk.bvh", "dme_xia_neutral_01_000.bvh"))


def _run(name, argv, tasks, out):
    """Every task's report entries from command ``name``'s job, run in this process with options parsed as the command
    line parses them."""
    cli, commands, runner = (checkout_module(f"pipeline.{module}") for module in ("cli", "commands", "runner"))
    command = commands.COMMANDS[name]
    options = cli.parser().parse_args([name, *map(str, tasks[0]), "-o", str(out), "--quiet", *argv])
    runner.check_options(command, options)
    entries = {}
    for task in tasks:
        stem = "_to_".join(path.stem for path in task)
        entries[task[-1].name if len(task) == 1 else stem] = command.job().process(tuple(task), options, stem, [str(path) for path in task])
    return entries


@pytest.fixture(scope="module")
def loops(tmp_path_factory):
    return _run("make-loop", [], [(path,) for path in FILES], tmp_path_factory.mktemp("loops"))


@pytest.fixture(scope="module")
def conversions(tmp_path_factory):
    return _run("convert", ["--format", "bvh"], [(path,) for path in FILES], tmp_path_factory.mktemp("converted"))


def test_the_corpus_is_thirty_files_from_eight_sources():
    manifest = (CORPUS / "MANIFEST.md").read_text(encoding="utf-8")
    rows = [line.split("|")[1:-1] for line in manifest.splitlines() if line.startswith("| ") and ".bvh" in line]
    assert sorted(row[0].strip() for row in rows) == [path.name for path in FILES]
    assert len(FILES) >= 30 and len({row[1].split("@")[0].strip() for row in rows}) >= 8
    assert sum(path.stat().st_size for path in FILES) < 6e6


def test_every_file_converts_and_reads_back_as_it_was(conversions):
    for name, (entry,) in conversions.items():
        assert entry["status"] == "ok", (name, entry.get("error"))
        (read_back,) = entry["read_back"].values()
        assert read_back["joints_m"] < 1e-4, (name, read_back)


def test_a_single_pose_converts_and_make_loop_says_why_it_cannot_loop(loops, conversions):
    for name in POSES:
        (converted,) = conversions[name]
        assert converted["frames"] == 1, name
        (looped,) = loops[name]
        assert looped["status"] == "error" and "a single pose (1 frame)" in looped["error"], (name, looped)


def test_every_repeating_clip_loops(loops):
    for name in REPEATING:
        (entry,) = loops[name]
        assert entry["status"] == "ok", (name, entry.get("error"))


def test_a_cycle_whose_ends_nearly_match_loops_whole(loops):
    # MakeHuman's walk is one 14-frame cycle: its last pose is a third of a step from its first.
    (entry,) = loops["mh_walk1.bvh"]
    assert entry["range"] == [1, 14]


def test_makehuman_reads_in_decimetres_at_a_human_height(conversions):
    for name in ("mh_walk1.bvh", "mh_zombieWalk1.bvh"):
        (entry,) = conversions[name]
        assert entry["import"]["bvh_unit"] == "decimetres", (name, entry["import"])


def test_a_take_off_the_floor_is_said_so_in_its_verdict(loops):
    # MakeHuman's walk keeps its pelvis at the origin: the feet stand 0.89 m under the floor.
    (entry,) = loops["mh_walk1.bvh"]
    assert entry["grounding"]["take_floor_m"] == pytest.approx(-0.89, abs=0.02)
    assert entry["verdict"]["word"] != "GOOD" and any("0.89 m under the floor" in reason for reason in entry["verdict"]["reasons"])
    for name in ("dme_xia_neutral_01_000.bvh", "pybvh_cmu_12_01_walk.bvh"):  # on the floor: nothing said
        (entry,) = loops[name]
        assert not any("the floor" in reason for reason in entry["verdict"]["reasons"]), name


def test_transitions_between_corpus_files(tmp_path):
    entries = _run("transition", [], [tuple(CORPUS / name for name in pair) for pair in PAIRS], tmp_path)
    for pair, (entry,) in zip(PAIRS, entries.values()):
        assert entry["status"] == "ok", (pair, entry.get("error"))
        assert entry["transition"]["metrics"]["floor_offset"] < 0.05 and entry["other_imports"][0]["bvh_unit"] == "CMU units", pair
    # PyMO's rig into Xia's (hip joints between pelvis and thighs, CMU units): the feet were 1.41 m off the floor, VISIBLE.
    assert entries["pymo_AV_8Walk_to_dme_xia_neutral_01_000"][0]["verdict"]["word"] == "GOOD"


def test_ground_puts_a_take_under_the_floor_on_it(tmp_path):
    walk = CORPUS / "mh_walk1.bvh"
    (entry,) = _run("make-loop", ["--ground"], [(walk,)], tmp_path)["mh_walk1.bvh"]
    assert abs(entry["grounding"]["take_floor_m"]) < 0.01 and not any("floor" in reason for reason in entry["verdict"]["reasons"])
    bvh, bvh_clip, grounding = (checkout_module(name) for name in ("core.formats.bvh", "core.formats.bvh_clip", "core.measure.grounding"))
    written = bvh.read_bvh(tmp_path / "mh_walk1_loop.bvh")
    assert grounding.floor_height(bvh_clip.clip_from_bvh(written, 0.1, "Z")) == pytest.approx(0.0, abs=0.01)


def test_a_one_frame_pop_is_in_the_verdict_and_auto_keeps_a_loop_without_it(cmu, tmp_path):
    # CMU's 05_03 dance (AMC), frames 50-300: the right arm twists 0.39 rad a frame just after frame 50 and the crossfade,
    # continuing it backwards, moves a joint 6 times as far in one frame as it ever moves in the cut.
    dance = cmu / "05_03.amc"
    made = {}
    for method, argv in (("CROSSFADE", ["--method", "CROSSFADE"]), ("AUTO", [])):
        (tmp_path / method).mkdir()
        made[method] = _run("make-loop", ["--range", "50", "300", *argv], [(dance,)], tmp_path / method)[dance.name][0]
    entry = made["CROSSFADE"]
    assert entry["status"] == "ok", entry.get("error")
    assert entry["largest_step_ratio"] > 3.0 and entry["verdict"]["word"] == "VISIBLE"
    assert any(reason.startswith("largest joint step per frame ") for reason in entry["verdict"]["reasons"])
    # AUTO, which made it too, keeps a loop whose own verdict passes: no pop.
    assert made["AUTO"]["largest_step_ratio"] < 1.5 and made["AUTO"]["method"] != "CROSSFADE", made["AUTO"]["method"]


def test_forward_jumps_and_a_turn_say_the_motion_does_not_repeat(loops):
    # CMU 01_01: one loop later the jumps correlate 0.48 with themselves; the loop's seam is fine, its cut is not a cycle.
    (entry,) = loops["fairmotion_01_01.bvh"]
    assert entry["verdict"]["word"] != "GOOD" and entry["correlation"] < 0.5
    assert any(reason.startswith("the motion does not repeat here") for reason in entry["verdict"]["reasons"])
    # The 120 fps walks that repeat stay GOOD.
    for name in ("dme_xia_neutral_01_000.bvh", "dme_xia_old_13_000.bvh", "dme_xia_depressed_13_000.bvh", "b2dm_0005_Walking001.bvh"):
        (entry,) = loops[name]
        assert entry["verdict"]["word"] == "GOOD", (name, entry["verdict"]["reasons"])
