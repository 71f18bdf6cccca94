"""The scene's frame rate as Blender stores it: a whole ``fps`` and an ``fps_base`` (29.97 is 30 / 1.001). bpy side."""

from ..core.motion.clip import scene_rate


def scene_fps(scene) -> float:
    """Frames per second of a scene (``fps / fps_base``)."""
    return scene.render.fps / scene.render.fps_base


def set_scene_fps(scene, fps: float) -> None:
    """Make the scene play ``fps`` frames per second: the nearest whole ``fps`` and an ``fps_base`` (29.97 is 30 / 1.001)."""
    scene.render.fps, scene.render.fps_base = scene_rate(fps)
