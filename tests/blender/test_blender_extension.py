"""The extension as Blender ships it: manifest, zip build, install, enable/disable, the README's recipes."""

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import zipfile

import pytest

bpy = pytest.importorskip("bpy")

REPO = pathlib.Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
VERSION = tomllib.loads((REPO / "blender_manifest.toml").read_text())["version"]
# Folders of the checkout that are not the add-on (dot-folders and caches aside).
DEVELOPMENT_FOLDERS = ("tests", "bench", "tools", "docs")
# What the demo, the batch command, the tests, the venv script and Blender leave in a checkout.
JUNK = ("out/demo_walker.blend", "out/demo_walker_loop.bvh", "out/loopsmith_report.html", "loopsmith_out/walk_loop.fbx",
        "loopsmith_out/walk_loop.gltf", "loopsmith_out/walk_loop.bin", "loopsmith_out/loopsmith_report.json",
        "looped/walk_loop.glb", "looped/walk_loop.blend1", "loopsmith_report.json", "demo_walker.blend",
        "core/__pycache__/quat.cpython-311.pyc", ".venv/bpy-5.0.1/bin/python", ".venv/bpy-5.0.1.log", ".venv/wheels/bpy-5.0.1-cp311-cp311-manylinux_2_28_x86_64.whl",
        ".pytest_cache/README.md", ".hypothesis/examples/x", "build/loopsmith.zip", "loopsmith-0.0.9.zip", "tools.log",
        "log", "ci log.txt",  # a run started in the background here: `bash tools/test.sh > log 2>&1 &`
        ".artefacts/browser/compose.png", ".artefacts/browser/compose.html")

INSTALL_SCRIPT = r'''
import sys
import bpy
import addon_utils

zip_path = sys.argv[sys.argv.index("--") + 1] if "--" in sys.argv else sys.argv[1]
module = "bl_ext.user_default.loopsmith"

def leftovers():
    return [name for name in dir(bpy.types) if name.startswith("LOOPSMITH")] + (["Scene.loopsmith"] if hasattr(bpy.types.Scene, "loopsmith") else [])

bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=True)
assert module in bpy.context.preferences.addons, "not enabled on install"
registered = leftovers()
assert "Scene.loopsmith" in registered, registered
for attempt in range(2):
    addon_utils.disable(module, default_set=True)
    assert leftovers() == [], leftovers()
    addon_utils.enable(module, default_set=True)
    assert sorted(leftovers()) == sorted(registered), leftovers()
addon_utils.disable(module, default_set=True)
print("INSTALL-OK", len(registered))
'''


def _blender_tool():
    scripts = pathlib.Path(bpy.utils.system_resource("SCRIPTS"))
    return scripts / "addons_core" / "bl_pkg" / "cli" / "blender_ext.py", scripts / "modules" / "_bpy_internal" / "extensions" / "tags.py"


def _python():
    """A command prefix that runs a script with bpy importable (this Python, or Blender itself)."""
    if bpy.app.binary_path:
        return [bpy.app.binary_path, "-b", "--factory-startup", "--python-exit-code", "1", "--python"]
    return [sys.executable]


def _readme_section(heading):
    """The README's text under ``## heading``, up to the next section."""
    return README.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def _shipped_files(source):
    """What a zip of the checkout ``source`` must hold: the manifest, licence, README and every Python file of the add-on,
    and the report player's script (inlined into every report page)."""
    files = {"blender_manifest.toml", "LICENSE", "README.md"}
    for path in [*source.rglob("*.py"), *source.glob("pipeline/html/*.js")]:
        parts = path.relative_to(source).parts
        if parts[0] not in DEVELOPMENT_FOLDERS and not any(part.startswith(".") or part == "__pycache__" for part in parts):
            files.add("/".join(parts))
    return files


@pytest.fixture(scope="module")
def built_zip(tmp_path_factory):
    """The zip built the README's way in a copy of the checkout strewn with everything the tools write."""
    source = tmp_path_factory.mktemp("checkout with spaces") / "loopsmith"
    shutil.copytree(REPO, source, symlinks=True, ignore=shutil.ignore_patterns(".git", ".venv"))
    for name in JUNK:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text("written by a tool, not part of the add-on")
    command = next(line for line in _readme_section("Install into Blender").splitlines() if "blender_ext.py build" in line)
    arguments = shlex.split(command.split("blender_ext.py", 1)[1])
    tool, _ = _blender_tool()
    result = subprocess.run([sys.executable, str(tool)] + arguments, cwd=source, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return source / f"loopsmith-{VERSION}.zip"


def test_manifest_validates_with_tags_checked():
    tool, tags = _blender_tool()
    result = subprocess.run([sys.executable, str(tool), "validate", f"--valid-tags={tags}", str(REPO)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_zip_holds_exactly_the_add_on(built_zip):
    names = set(zipfile.ZipFile(built_zip).namelist())
    assert {"__init__.py", "core/motion/quat.py", "core/formats/bvh/read.py", "files/outputs.py", "bridge/clip_io.py", "presets/make_loop/idle.py"} <= names
    shipped = _shipped_files(built_zip.parent)
    assert names == shipped, (sorted(names - shipped), sorted(shipped - names))


def test_zip_installs_enables_and_unregisters_cleanly(built_zip, tmp_path):
    script = tmp_path / "install.py"
    script.write_text(INSTALL_SCRIPT)
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(tmp_path / "user"))
    result = subprocess.run(_python() + [str(script), "--", str(built_zip)], capture_output=True, text=True, env=env, timeout=300)
    # A zero exit also proves the interpreter shuts down without the 4.2/4.5 exit crash.
    assert result.returncode == 0 and "INSTALL-OK" in result.stdout, result.stdout[-2000:] + result.stderr[-2000:]


@pytest.mark.realdata
def test_readme_scripting_recipe_runs_as_written(built_zip, mocap_dir, tmp_path):
    install, use = re.findall(r"```python\n(.*?)```", _readme_section("Scripting with the bpy module"), re.S)
    work = tmp_path / "a folder"
    work.mkdir()
    shutil.copy(built_zip, work / f"loopsmith-{VERSION}.zip")
    (work / "walk.bvh").symlink_to(mocap_dir / "dataset-1_walk_normal_001.bvh")
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(tmp_path / "user"))
    outputs = []
    # Installing once and using it from a later process, as a scripter would.
    for name, code in (("install.py", install), ("use.py", use)):
        (work / name).write_text(code)
        result = subprocess.run(_python() + [name], cwd=work, capture_output=True, text=True, env=env, timeout=300)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        outputs.append(result.stdout)
    found = re.search(r"^walk_loop: frames (\d+)-(\d+), seam visibility ([\d.]+) -> ([\d.]+)$", outputs[1], re.M)
    assert found, outputs[1][-2000:]
    start, end, before, after = int(found[1]), int(found[2]), float(found[3]), float(found[4])
    # A steady walk: the loop spans cycles of ~32 frames and its seam is far less visible than the raw cut's.
    assert end - start >= 30 and after < 1.0 < before, found[0]
    assert (work / "walk_loop.blend").stat().st_size > 0
