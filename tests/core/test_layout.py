"""The layers hold: core needs numpy only, foundations never reach into a job, only the entry points reach the command line.

Read from the source (no import), so the check runs in every tier.
"""

import ast
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SHIPPED = ("core", "files", "bridge", "operators", "ui", "pipeline")
FOUNDATIONS = ("core/motion", "core/measure", "core/errors.py", "core/demo.py")
JOBS = ("loop", "transition", "edit", "compose", "graph", "engine")
LONGEST_FUNCTION = 80  # lines


def _modules(*folders):
    for folder in folders:
        path = REPO / folder
        yield from ([path] if path.suffix == ".py" else sorted(path.rglob("*.py")))


def _imported(path):
    """The absolute dotted names (in the package, without its own name) and top-level modules ``path`` imports."""
    package = list(path.relative_to(REPO).with_suffix("").parts)
    package = package[:-1]  # a module's imports are relative to its folder, an __init__'s too
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1]
            module = ".".join(base + (node.module.split(".") if node.module else []))
            yield from ([module] if node.module else [f"{module}.{alias.name}".lstrip(".") for alias in node.names])


@pytest.mark.parametrize("path", list(_modules("core", "files")), ids=lambda p: str(p.relative_to(REPO)))
def test_core_and_files_need_numpy_and_the_standard_library_only(path):
    outside = {name.split(".")[0] for name in _imported(path)} - {"core", "files"}
    assert not outside - {"numpy", *__import__("sys").stdlib_module_names}, outside


@pytest.mark.parametrize("path", list(_modules(*FOUNDATIONS)), ids=lambda p: str(p.relative_to(REPO)))
def test_a_foundation_never_imports_a_job(path):
    jobs = [name for name in _imported(path) if name.startswith("core.") and name.split(".")[1] in JOBS]
    assert not jobs, jobs


@pytest.mark.parametrize("path", [p for p in _modules(*SHIPPED) if p.relative_to(REPO).parts[0] != "pipeline"], ids=lambda p: str(p.relative_to(REPO)))
def test_only_the_entry_points_import_the_command_line(path):
    assert not [name for name in _imported(path) if name.split(".")[0] == "pipeline"]


def test_no_shipped_function_is_over_80_lines():
    long = [f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path in _modules(*SHIPPED, "properties.py", "presets.py", "__init__.py")
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > LONGEST_FUNCTION]
    assert not long, long
