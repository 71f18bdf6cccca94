"""Acclaim skeleton files (ASF): the checked reader and the skeleton as data.

An ASF lists its units, the root (channel order, axis order, position,
orientation), each bone (direction and length in the rest, the ``axis``
Euler angles giving its local frame C, its ``dof`` channels and their
limits) and the ``:hierarchy``. Comments start with ``#``; bones may be listed
in any order. Axes are the file's own (CMU's are Y up).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ...errors import AcclaimError
from ._text import decoded, read_bytes

ROOT = "root"
ROTATIONS = ("rx", "ry", "rz")
TRANSLATIONS = ("tx", "ty", "tz")
INCHES = 0.0254  # metres per inch: an ASF's length unit is 1 / length inches
_DEFAULT_ORDER = ("tx", "ty", "tz", "rx", "ry", "rz")
_SECTIONS = (":version", ":name", ":units", ":documentation", ":root", ":bonedata", ":hierarchy")


@dataclass
class AsfSkeleton:
    """An Acclaim skeleton, bones parents first (the root first), in the file's units and axes.

    names: ``B`` bone names, ``'root'`` first, then by depth (the hierarchy's order within a depth).
    parents: ``(B,)`` parent index, -1 for the root.
    directions: ``(B, 3)`` unit direction of each bone in the rest (the root's is zero).
    lengths: ``(B,)`` bone lengths, file units (the root's is zero).
    axes: ``(B, 3)`` the ``axis`` Euler angles (radians) about x, y, z; for the root its orientation.
    axis_orders: ``B`` Euler orders of ``axes`` (``'XYZ'``: about x first, C = Rz Ry Rx).
    dofs: ``B`` tuples of channels (``'rx'``...; the root's also ``'tx'``...), in the file's order.
    limits: ``B`` arrays ``(len(dofs), 2)``: radians, file units; infinite where the file gives none.
    position: ``(3,)`` the root's rest position, file units.
    length_unit: the ``:units length`` value: one file unit is ``1 / length_unit`` inches.
    mass, angle: the ``:units mass`` value and the angle unit the file was written in (``'deg'`` or ``'rad'``).
    ids: ``B`` the ``id`` of each bone (None for the root or where missing).
    """

    names: tuple
    parents: np.ndarray
    directions: np.ndarray
    lengths: np.ndarray
    axes: np.ndarray
    axis_orders: tuple
    dofs: tuple
    limits: tuple
    position: np.ndarray
    length_unit: float = 1.0
    mass: float = 1.0
    angle: str = "deg"
    ids: tuple = ()
    name: str = ""
    version: str = "1.10"
    documentation: tuple = ()
    path: object = None
    lines: tuple = field(default=(), repr=False)  # the line each bone begins on, for messages

    @property
    def metres_per_unit(self) -> float:
        """Metres per file unit: CMU's ``length 0.45`` makes a unit 1/0.45 inch."""
        return INCHES / self.length_unit

    @property
    def columns(self) -> np.ndarray:
        """``(B + 1,)`` where each bone's dof values start in a row of every channel (the last: the row's width)."""
        return np.concatenate([[0], np.cumsum([len(d) for d in self.dofs])]).astype(int)

    def bone_index(self, name: str) -> int:
        """Index of the bone called ``name``; AcclaimError if there is none."""
        try:
            return self.names.index(name)
        except ValueError:
            raise AcclaimError(f"the skeleton has no bone '{name}'", self.path) from None


def read_asf(path: str | os.PathLike) -> AsfSkeleton:
    """The checked skeleton of the ASF file at ``path``; AcclaimError names the file, line and reason of the first problem."""
    return parse_asf(decoded(read_bytes(path, "ASF"), path), path)


def parse_asf(text: str, path: object = None) -> AsfSkeleton:
    """The checked skeleton of ASF ``text`` (``path`` names it in messages)."""
    sections = _sections(text, path)
    if ":hierarchy" not in sections:
        raise AcclaimError("no :hierarchy section: the bones' parents are unknown", path)
    if ":bonedata" not in sections:
        raise AcclaimError("no :bonedata section", path)
    units = _units(sections.get(":units", []), path)
    root = _root(sections.get(":root", []), path)
    bones = _bonedata(sections[":bonedata"], path)
    parents = _hierarchy(sections[":hierarchy"], bones, path, sections[":hierarchy"].line)
    return _skeleton(sections, units, root, bones, parents, path)


class _Lines(list):
    """A section's lines as ``(line number, tokens)``; ``line``: the line of its keyword."""

    line = None


def _sections(text, path):
    """Section keyword -> its lines; comments and blank lines dropped. AcclaimError on a repeated section or text before the first."""
    sections, current = {}, None
    for number, raw in enumerate(text.split("\n"), 1):
        tokens = raw.split("#", 1)[0].split()
        if not tokens:
            continue
        if tokens[0].startswith(":"):
            keyword = tokens[0].lower()
            if keyword in sections and keyword in _SECTIONS:
                raise AcclaimError(f"a second {keyword} section (the first is on line {sections[keyword].line})", path, number)
            current = sections[keyword] = _Lines()
            current.line = number
            if len(tokens) > 1:
                current.append((number, tokens[1:]))
        elif current is None:
            raise AcclaimError(f"'{tokens[0]}' before the first section (an ASF starts with keywords such as :version)", path, number)
        else:
            current.append((number, tokens))
    return sections


def _number(token, path, line):
    try:
        value = float(token.strip("(),"))
    except ValueError:
        raise AcclaimError(f"'{token}' is not a number", path, line) from None
    if np.isnan(value):
        raise AcclaimError(f"'{token}' is not a number", path, line)
    return value


def _numbers(tokens, count, path, line, what):
    if len(tokens) < count:
        raise AcclaimError(f"{what} needs {count} numbers, the line has {len(tokens)}", path, line)
    values = [_number(token, path, line) for token in tokens[:count]]
    if not np.all(np.isfinite(values)):
        raise AcclaimError(f"{what} is not finite", path, line)
    return values


def _units(lines, path):
    units = {"mass": 1.0, "length": 1.0, "angle": "deg"}
    for line, tokens in lines:
        key = tokens[0].lower()
        if key == "angle":
            unit = tokens[1].lower() if len(tokens) > 1 else ""
            if unit not in ("deg", "rad"):
                raise AcclaimError(f"angle unit '{unit}': an ASF's angles are in deg or rad", path, line)
            units["angle"] = unit
        elif key in ("mass", "length"):
            units[key] = _numbers(tokens[1:], 1, path, line, key)[0]
            if units[key] <= 0.0:
                raise AcclaimError(f"{key} unit {units[key]:g}: it must be positive", path, line)
    return units


def _axis_order(token, path, line):
    order = token.upper()
    if sorted(order) != ["X", "Y", "Z"]:
        raise AcclaimError(f"axis order '{token}': it must name X, Y and Z once each", path, line)
    return order


def _root(lines, path):
    """The root's order, axis order, position and orientation (angles still in the file's unit)."""
    root = {"order": _DEFAULT_ORDER, "axis": "XYZ", "position": [0.0] * 3, "orientation": [0.0] * 3, "line": lines.line if lines else None}
    for line, tokens in lines:
        key = tokens[0].lower()
        if key == "order":
            order = tuple(token.lower() for token in tokens[1:])
            unknown = [dof for dof in order if dof not in ROTATIONS + TRANSLATIONS]
            if unknown or len(set(order)) != len(order):
                raise AcclaimError(f"root order '{' '.join(tokens[1:])}': each of TX TY TZ RX RY RZ at most once", path, line)
            root["order"] = order
        elif key == "axis":
            root["axis"] = _axis_order(tokens[1] if len(tokens) > 1 else "", path, line)
        elif key in ("position", "orientation"):
            root[key] = _numbers(tokens[1:], 3, path, line, key)
    return root


def _bonedata(lines, path):
    """name -> the bone's fields (angles in the file's unit), in the file's order."""
    bones, current = {}, None
    for line, tokens in lines:
        key = tokens[0].lower()
        if key == "begin":
            if current is not None:
                raise AcclaimError(f"'begin' inside the bone that begins on line {current['line']} (a missing 'end')", path, line)
            current = {"line": line, "limits": [], "dofs": (), "axis": [0.0] * 3, "order": "XYZ", "id": None}
        elif current is None:
            raise AcclaimError(f"'{tokens[0]}' outside a bone's begin ... end", path, line)
        elif key == "end":
            _close_bone(current, bones, path, line)
            current = None
        else:
            _bone_field(current, key, tokens, path, line)
    if current is not None:
        raise AcclaimError("the bone beginning here has no 'end'", path, current["line"])
    return bones


def _bone_field(bone, key, tokens, path, line):
    if key == "id":
        bone["id"] = int(_numbers(tokens[1:], 1, path, line, "id")[0])
    elif key == "name":
        if len(tokens) != 2:
            raise AcclaimError("a bone's name is one word", path, line)
        bone["name"] = tokens[1]
    elif key == "direction":
        bone["direction"] = _numbers(tokens[1:], 3, path, line, "direction")
    elif key == "length":
        bone["length"] = _numbers(tokens[1:], 1, path, line, "length")[0]
    elif key == "axis":
        bone["axis"] = _numbers(tokens[1:], 3, path, line, "axis")
        bone["order"] = _axis_order(tokens[4] if len(tokens) > 4 else "XYZ", path, line)
    elif key == "dof":
        bone["dofs"] = tuple(token.lower() for token in tokens[1:])
        bone["dof_line"] = line
    elif key == "limits" or key.startswith("("):
        words = " ".join(tokens[1:] if key == "limits" else tokens).replace("(", " ").replace(")", " ").replace(",", " ").split()
        bone["limits"].extend((line, _number(word, path, line)) for word in words)
    # Other fields (bodymass, cofmass...) carry nothing the motion needs.


def _close_bone(bone, bones, path, line):
    for needed in ("name", "direction", "length"):
        if needed not in bone:
            raise AcclaimError(f"the bone beginning on line {bone['line']} has no {needed}", path, line)
    name = bone["name"]
    if name in bones or name == ROOT:
        raise AcclaimError(f"a second bone named '{name}'", path, bone["line"])
    dofs = bone["dofs"]
    wrong = [dof for dof in dofs if dof not in ROTATIONS]
    if wrong:
        raise AcclaimError(f"bone '{name}' has dof '{wrong[0]}': only the root translates; a bone's dofs are rx, ry, rz", path,
                           bone.get("dof_line", line))
    if len(set(dofs)) != len(dofs):
        raise AcclaimError(f"bone '{name}' lists a dof twice", path, bone.get("dof_line", line))
    limits = [value for _, value in bone["limits"]]
    if limits and len(limits) != 2 * len(dofs):
        raise AcclaimError(f"bone '{name}' has {len(limits) // 2} limits for {len(dofs)} dofs", path, bone["limits"][-1][0])
    if bone["length"] < 0.0:
        raise AcclaimError(f"bone '{name}' has a negative length", path, line)
    bones[name] = bone


def _hierarchy(lines, bones, path, section_line):
    """child name -> (parent name, line), checked: every bone once, known names, no cycle."""
    parent_of, known = {}, set(bones) | {ROOT}
    body = [(line, tokens) for line, tokens in lines if tokens[0].lower() not in ("begin", "end")]
    for line, tokens in body:
        for name in tokens:
            if name not in known:
                raise AcclaimError(f"bone '{name}' is in the :hierarchy but not in the :bonedata", path, line)
        for child in tokens[1:]:
            if child == ROOT:
                raise AcclaimError(f"the root is given a parent ('{tokens[0]}'): the hierarchy has a cycle", path, line)
            if child in parent_of:
                raise AcclaimError(f"bone '{child}' has a second parent ('{tokens[0]}'; the first on line {parent_of[child][1]})", path, line)
            parent_of[child] = (tokens[0], line)
    for name in bones:
        if name not in parent_of:
            raise AcclaimError(f"bone '{name}' is not in the :hierarchy", path, bones[name]["line"])
        seen, bone = [name], name
        while bone != ROOT:
            bone = parent_of[bone][0]
            if bone in seen:
                chain = " -> ".join(seen[seen.index(bone):] + [bone])
                raise AcclaimError(f"the hierarchy has a cycle: {chain} (each named as the parent of the one before)", path,
                                   parent_of[seen[-1]][1])
            seen.append(bone)
    return parent_of


def _order(bones, parent_of):
    """Bone names parents first: depth first from the root in the hierarchy's order, then sorted by depth (stable)."""
    children = {}
    for child, (parent, line) in sorted(parent_of.items(), key=lambda item: item[1][1]):
        children.setdefault(parent, []).append(child)
    order, depth, stack = [], {ROOT: 0}, [ROOT]
    while stack:
        name = stack.pop()
        order.append(name)
        for child in reversed(children.get(name, [])):
            depth[child] = depth[name] + 1
            stack.append(child)
    return sorted(order, key=depth.__getitem__)


def _skeleton(sections, units, root, bones, parent_of, path):
    names = tuple(_order(bones, parent_of))
    index = {name: b for b, name in enumerate(names)}
    to_radians = np.pi / 180.0 if units["angle"] == "deg" else 1.0
    angle_scale = {dof: to_radians for dof in ROTATIONS} | {dof: 1.0 for dof in TRANSLATIONS}
    directions, lengths, axes, orders, dofs, limits, ids, lines = [], [], [], [], [], [], [], []
    for name in names:
        bone = bones.get(name)
        if bone is None:  # the root
            bone = {"direction": [0.0] * 3, "length": 0.0, "axis": root["orientation"], "order": root["axis"], "dofs": root["order"],
                    "limits": [], "id": None, "line": root["line"]}
        direction = np.array(bone["direction"], dtype=float)
        norm = np.linalg.norm(direction)
        if name != ROOT and norm == 0.0 and bone["length"] > 0.0:
            raise AcclaimError(f"bone '{name}' has length {bone['length']:g} but no direction", path, bone["line"])
        directions.append(direction / norm if norm > 0.0 else direction)
        lengths.append(bone["length"])
        axes.append(np.array(bone["axis"], dtype=float) * to_radians)
        orders.append(bone["order"])
        dofs.append(tuple(bone["dofs"]))
        pairs = np.array([value for _, value in bone["limits"]], dtype=float).reshape(-1, 2)
        if not len(pairs):
            pairs = np.tile([-np.inf, np.inf], (len(bone["dofs"]), 1))
        limits.append(pairs * np.array([angle_scale[dof] for dof in bone["dofs"]]).reshape(-1, 1))
        ids.append(bone["id"])
        lines.append(bone["line"])
    parents = np.array([index[parent_of[name][0]] if name != ROOT else -1 for name in names], dtype=int)
    first = lambda key, default: " ".join(sections[key][0][1]) if sections.get(key) else default  # noqa: E731
    documentation = tuple(" ".join(tokens) for _, tokens in sections.get(":documentation", []))
    return AsfSkeleton(names, parents, np.array(directions).reshape(-1, 3), np.array(lengths, dtype=float), np.array(axes).reshape(-1, 3),
                       tuple(orders), tuple(dofs), tuple(limits), np.array(root["position"], dtype=float), units["length"], units["mass"],
                       units["angle"], tuple(ids), first(":name", ""), first(":version", "1.10"), documentation, path, tuple(lines))
