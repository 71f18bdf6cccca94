"""A small synthetic Acclaim skeleton (a root, two legs, a spine; every bone turning about all three axes) and smooth motions
on it, written as ASF and AMC text for the tests."""

import numpy as np

ROOT = {"order": "TX TY TZ RX RY RZ", "axis": "XYZ", "position": "0 0 0", "orientation": "0 0 0"}
HIERARCHY = ("root lhip rhip spine", "lhip lknee", "rhip rknee")
# About 31 units tall: 1.73 m in CMU's unit, the only usual unit that stands it at a human height (a BVH written in that unit
# reads back in it).
BONES = (("lhip", "0.3 -0.95 0", 8), ("lknee", "0 -1 0", 13), ("rhip", "-0.3 -0.95 0", 8), ("rknee", "0 -1 0", 13), ("spine", "0 1 0", 10))


def asf_text(title="ROUNDTRIP"):
    """The skeleton's ASF text, named ``title`` in its ``:name``; CMU's units (1/0.45 inch, degrees)."""
    root = "".join(f"   {key} {value}\n" for key, value in ROOT.items())
    bones = "".join(f"  begin\n     id {k}\n     name {name}\n     direction {direction}\n     length {length}\n     axis 0 0 0 XYZ\n"
                    f"    dof rx ry rz\n  end\n" for k, (name, direction, length) in enumerate(BONES, 1))
    links = "".join(f"    {line}\n" for line in HIERARCHY)
    return (f":version 1.10\n:name {title}\n:units\n  mass 1.0\n  length 0.45\n  angle deg\n:root\n{root}"
            f":bonedata\n{bones}:hierarchy\n  begin\n{links}  end\n")


def amc_text(frames, asf="roundtrip.asf"):
    """A clip of ``frames`` frames naming the skeleton ``asf`` in its first line: the root travels and sways, every bone
    turns smoothly about all three axes (degrees)."""
    t = np.linspace(0.0, 2.0 * np.pi, max(frames, 2))[:frames]
    lines = [f"#!OML:ASF {asf}", ":FULLY-SPECIFIED", ":DEGREES"]
    for k in range(frames):
        lines += [str(k + 1), f"root {3.0 * t[k]:.6f} {36.0 + np.sin(2 * t[k]):.6f} {np.cos(t[k]):.6f} "
                              f"{5 * np.sin(t[k]):.6f} {20 * t[k]:.6f} {3 * np.cos(t[k]):.6f}"]
        lines += [f"{name} {25 * np.sin(t[k] + b):.6f} {10 * np.cos(t[k] + b):.6f} {8 * np.sin(2 * t[k] + b):.6f}"
                  for b, (name, _, _) in enumerate(BONES)]
    return "\n".join(lines) + "\n"
