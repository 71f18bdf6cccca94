"""The operators on armatures that Blender's own BVH importer made from the corpus of real files (tests/CORPUS.md): a
one-cycle MakeHuman walk loops whole and its verdict says its feet stand under the floor; a single pose cannot loop."""

import importlib

import pytest

from helpers import CORPUS, NO_CORPUS

bpy = pytest.importorskip("bpy")
pytestmark = pytest.mark.skipif(NO_CORPUS is not None, reason=str(NO_CORPUS))


def _imported(name, scale, up="Y"):
    """The armature Blender's BVH importer makes of a corpus file, in a fresh empty scene at the file's frame rate."""
    bpy.ops.wm.read_homefile(use_empty=True)
    axes = {"axis_forward": "Y", "axis_up": "Z"} if up == "Z" else {}
    bpy.ops.import_anim.bvh(filepath=str(CORPUS / name), global_scale=scale, update_scene_fps=True, **axes)
    return bpy.context.object


def test_a_one_cycle_walk_off_the_floor_loops_whole_and_says_so(loopsmith, capfd):
    _imported("mh_walk1.bvh", 0.1, "Z")  # MakeHuman writes decimetres, Z up
    capfd.readouterr()
    assert bpy.ops.loopsmith.make_loop(range_mode="AUTO") == {"FINISHED"}
    report = capfd.readouterr()
    said = report.out + report.err
    assert "Loop 1-14 " in said and "the take's feet stand 0.89 m under the floor" in said, said
    assert bpy.context.scene.loopsmith.result.frame_start == 1 and bpy.context.scene.loopsmith.result.frame_end == 14


def test_a_walk_on_the_floor_says_nothing_of_it(loopsmith, capfd):
    _imported("dme_xia_neutral_01_000.bvh", 0.0254 / 0.45)  # a CMU skeleton
    capfd.readouterr()
    assert bpy.ops.loopsmith.make_loop(range_mode="AUTO") == {"FINISHED"}
    report = capfd.readouterr()
    assert "floor" not in report.out + report.err


def test_a_single_pose_cannot_loop_and_the_button_says_why(loopsmith):
    _imported("dme_rest.bvh", 0.0254 / 0.45)
    with pytest.raises(RuntimeError, match="shorter than 4 frames"):
        bpy.ops.loopsmith.make_loop(range_mode="AUTO")


def test_ground_puts_the_walk_on_the_floor(loopsmith, capfd):
    obj = _imported("mh_walk1.bvh", 0.1, "Z")
    capfd.readouterr()
    assert bpy.ops.loopsmith.make_loop(range_mode="AUTO", ground=True) == {"FINISHED"}
    report = capfd.readouterr()
    assert "Loop 1-14 " in report.out + report.err and "floor" not in report.out + report.err
    grounding = importlib.import_module(f"{loopsmith.__name__}.core.measure.grounding")
    assert grounding.floor_height(loopsmith.bridge.clip_io.read_clip(obj)) == pytest.approx(0.0, abs=0.01)
