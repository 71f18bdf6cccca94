"""The extension as Blender ships it: manifest, zip build, install, enable/disable."""

import os
import pathlib
import subprocess
import sys
import tempfile
import zipfile

import pytest

pytestmark = pytest.mark.blender
bpy = pytest.importorskip("bpy")

REPO = pathlib.Path(__file__).resolve().parents[1]

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


@pytest.fixture(scope="module")
def built_zip():
    tool, _ = _blender_tool()
    out = pathlib.Path(tempfile.mkdtemp(prefix="loopsmith-build-"))
    result = subprocess.run([sys.executable, str(tool), "build", "--source-dir", str(REPO), "--output-dir", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    zips = list(out.glob("loopsmith-*.zip"))
    assert len(zips) == 1, list(out.iterdir())
    return zips[0]


def test_manifest_validates_with_tags_checked():
    tool, tags = _blender_tool()
    result = subprocess.run([sys.executable, str(tool), "validate", f"--valid-tags={tags}", str(REPO)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_zip_holds_the_add_on_and_no_dev_files(built_zip):
    names = zipfile.ZipFile(built_zip).namelist()
    assert {"blender_manifest.toml", "__init__.py", "LICENSE", "core/quat.py", "bridge/clip_io.py"} <= set(names)
    for excluded in ("tests/", "bench/", "tools/", ".ci/", ".git/", ".venv/", "__pycache__/"):
        assert not any(name.startswith(excluded) or f"/{excluded}" in name for name in names), excluded


def test_zip_installs_enables_and_unregisters_cleanly(built_zip, tmp_path):
    script = tmp_path / "install.py"
    script.write_text(INSTALL_SCRIPT)
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(tmp_path / "user"))
    result = subprocess.run(_python() + [str(script), "--", str(built_zip)], capture_output=True, text=True, env=env, timeout=300)
    # A zero exit also proves the interpreter shuts down without the 4.2/4.5 exit crash.
    assert result.returncode == 0 and "INSTALL-OK" in result.stdout, result.stdout[-2000:] + result.stderr[-2000:]
