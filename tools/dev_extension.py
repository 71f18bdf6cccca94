"""Load Loopsmith from this source tree the way Blender loads extensions.

Used by the tests, the demo and the benchmarks (not shipped in the zip):
registers a development extension repository whose ``loopsmith`` folder links
here, then enables ``bl_ext.<repo>.loopsmith``.
"""

import importlib
import pathlib
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]
REPO_NAME = "loopsmith_dev"
MODULE = f"bl_ext.{REPO_NAME}.loopsmith"


def _raise(exception):
    raise exception


def enable(submodules=()):
    """Enable the extension from source; returns (package module, disable function)."""
    import addon_utils
    import bpy

    parent = pathlib.Path(tempfile.mkdtemp(prefix="loopsmith-dev-repo-"))
    (parent / "loopsmith").symlink_to(REPO, target_is_directory=True)
    repos = bpy.context.preferences.extensions.repos
    repo = repos.new(name=REPO_NAME, module=REPO_NAME, custom_directory=str(parent), source="USER")
    addon_utils.enable(MODULE, default_set=True, handle_error=_raise)
    if MODULE not in bpy.context.preferences.addons:
        raise RuntimeError("the Loopsmith extension did not enable")
    for name in submodules:
        importlib.import_module(f"{MODULE}.{name}")

    def disable():
        addon_utils.disable(MODULE, default_set=True, handle_error=_raise)
        repos.remove(repo)

    return sys.modules[MODULE], disable
