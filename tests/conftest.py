"""Test tiers: core (numpy only), Blender (bpy module or real Blender), real data.

Blender writes its user files into a temporary folder for every run, never the
user's home. The extension is loaded the way Blender loads extensions, as
``bl_ext.<repo>.loopsmith``, from a development repository pointing here.
"""

import atexit
import os
import pathlib
import shutil
import sys
import tempfile

# pytest-xdist runs a worker per core: one BLAS thread each, or they would fight over the cores (and a product's
# rounding would hang on how many threads a busy machine gave it). Before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[1]
os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="loopsmith-blender-user-")
atexit.register(shutil.rmtree, os.environ["BLENDER_USER_RESOURCES"], True)
MOCAP = pathlib.Path(os.environ.get("LOOPSMITH_MOCAP", REPO.parent / "shared" / "mocap"))
sys.path.insert(0, str(REPO / "tools"))
import dev_extension  # noqa: E402  (tools/ is not a package)

# `loopsmith` is this checkout, in the tests and in every `python -m loopsmith` they start, whatever the venv links
# (a second checkout or worktree sharing the venvs tests its own code).
_PACKAGE_DIR = pathlib.Path(tempfile.mkdtemp(prefix="loopsmith-package-"))
atexit.register(shutil.rmtree, _PACKAGE_DIR, True)
(_PACKAGE_DIR / "loopsmith").symlink_to(REPO, target_is_directory=True)
sys.path.insert(0, str(_PACKAGE_DIR))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(_PACKAGE_DIR), os.environ.get("PYTHONPATH"))))

# Submodules the tests reach through the loaded extension (ext.core.motion.quat ...).
_SUBMODULES = ("core.motion.quat", "core.motion.rotation_modes", "core.motion.clip", "core.motion.kinematics", "core.demo", "core.errors", "core.loop.make",
               "core.loop.stitch", "core.measure.seam", "core.motion.contacts", "core.loop.detect", "core.motion.root", "operators.common", "operators.edit", "ui.layout",
               "bridge.action_api", "bridge.clip_io", "bridge.armature")

try:
    import bpy
except ImportError:
    bpy = None


#: The markers every test in a folder carries (a file adds its own where its tests differ, as in cli/).
FOLDER_MARKERS = {"blender": ("blender", "every_blender"), "realdata": ("realdata",),
                  # The report pages in Chromium, of commands run on the real clips (bpy runs them).
                  "browser": ("browser", "blender", "realdata")}


def pytest_itemcollected(item):
    folder = item.path.parent.name
    for marker in FOLDER_MARKERS.get(folder, ()):
        item.add_marker(marker)


def pytest_collection_modifyitems(config, items):
    if bpy is not None:
        return
    skip = pytest.mark.skip(reason="needs the bpy module (pip install bpy) or a real Blender")
    for item in items:
        if "blender" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def mocap_dir():
    """The folder of real Bandai clips; a failure in CI when missing, a skip elsewhere."""
    folder = MOCAP / "bandai"
    if not folder.is_dir():
        message = f"real clips not found: put the shared mocap folder at {MOCAP} (or set LOOPSMITH_MOCAP)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return folder


@pytest.fixture(scope="session")
def cmu(mocap_dir):
    """The folder of CMU's dance takes in Acclaim ASF/AMC (05.asf, 05_01.amc ...), beside the Bandai clips."""
    folder = mocap_dir.parent / "cmu-dance"
    if not (folder / "05.asf").is_file():
        pytest.skip(f"CMU's dance takes not found in {folder}")
    return folder


@pytest.fixture(scope="session")
def loopsmith():
    """The Loopsmith extension module, enabled from a development repository."""
    module, disable = dev_extension.enable(_SUBMODULES)
    yield module
    disable()


@pytest.fixture
def blank(loopsmith):
    """An empty scene at 30 fps with Loopsmith enabled."""
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.scene.render.fps = 30
    bpy.context.scene.render.fps_base = 1.0
    return bpy.context


_exit_status = 0


def pytest_sessionfinish(session, exitstatus):
    global _exit_status
    _exit_status = int(exitstatus)


def pytest_unconfigure(config):
    # bpy 4.2 can crash and 4.5 hang at interpreter exit after a full run even
    # with everything unregistered; leave with pytest's own status instead.
    if bpy is not None and not bpy.app.binary_path:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_exit_status)
