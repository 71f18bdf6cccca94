"""The scene's frame rate as Blender stores it: a whole ``fps`` and an ``fps_base`` (29.97 is 30 / 1.001). bpy side."""

import contextlib

from ..core.motion.clip import scene_rate


def scene_fps(scene) -> float:
    """Frames per second of a scene (``fps / fps_base``)."""
    return scene.render.fps / scene.render.fps_base


def set_scene_fps(scene, fps: float) -> None:
    """Make the scene play ``fps`` frames per second: the nearest whole ``fps`` and an ``fps_base`` (29.97 is 30 / 1.001)."""
    scene.render.fps, scene.render.fps_base = scene_rate(fps)


@contextlib.contextmanager
def gltf_rate(scene):
    """The scene's ``fps_base`` inverted meanwhile: Blender's glTF exporter and importer time frames by ``fps * fps_base``, not
    ``fps / fps_base``.

    Without this a 29.97 fps scene (30 / 1.001) would be written at 30.03 fps, and a GLB at 120.005 fps (120 / 0.99996) read
    at 119.995: its last key 0.02 frames short of its frame, so the read lost it.
    """
    kept = scene.render.fps_base
    scene.render.fps_base = 1.0 / kept
    try:
        yield
    finally:
        scene.render.fps_base = kept
