"""What each game engine expects of an exported animation: file format, units, root bone, loop mode and names.

Plain data, no Blender: the exporter (:mod:`bridge.export`) applies a
profile, the command line and the sidebar offer the same four.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineProfile:
    """One engine's conventions.

    suffix: the file format the engine reads best ('.fbx' or '.glb').
    centimetres: FBX coordinates in centimetres (unit scale 1, Unreal) rather
    than metres (unit scale 100: the engine's metres, scale 1 on import).
    root_name: the top bone that carries the travel, renamed if it is
    called otherwise. armature_node: the name the armature object takes in
    the file ('Armature' is dropped by Unreal's importer, so it does not
    become a bone above the root), or '' to keep its own. loop_names: the
    animation of a loop is named so the engine's importer loops it (Godot:
    a name beginning or ending with 'loop' or 'cycle'). shows: what the
    engine shows on import, for the documentation and help.
    """

    name: str
    label: str
    suffix: str
    centimetres: bool = False
    root_name: str = "root"
    armature_node: str = ""
    loop_names: bool = False
    shows: str = ""


PROFILES = {
    profile.name: profile
    for profile in (
        EngineProfile("unreal", "Unreal Engine", ".fbx", centimetres=True, armature_node="Armature",
                      shows="a skeleton whose top bone is 'root' (the armature object is dropped), centimetres, one animation "
                            "named after the action, starting at 0; 'Enable Root Motion' moves the character by the root"),
        EngineProfile("unity", "Unity", ".fbx",
                      shows="metres at scale 1, one take named after the action starting at 0; a Generic rig with 'root' as its "
                            "Root node gives root motion, 'Loop Time' loops it"),
        EngineProfile("godot", "Godot", ".glb", loop_names=True,
                      shows="metres, Y up, one animation; a loop's name ends in '_loop', so the importer loops it; a root bone "
                            "'root' for AnimationTree's root motion track"),
        EngineProfile("gltf", "glTF", ".glb",
                      shows="metres, Y up, one animation named after the action, sampled from 0 s, the root bone 'root' on top"),
    )
}


def _names_a_loop(name):
    lowered = name.lower()
    return any(lowered.startswith(word) or lowered.endswith(word) for word in ("loop", "cycle"))


def animation_name(profile: EngineProfile, name: str, looping: bool) -> str:
    """The name an animation of action ``name`` gets for ``profile`` (``looping``: it is a loop)."""
    if profile.loop_names and looping and not _names_a_loop(name):
        return f"{name}_loop"
    return name
