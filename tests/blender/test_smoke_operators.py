"""Every operator Loopsmith registers is called by a test marked ``smoke`` (``tools/test.sh --quick`` runs those): an
operator added without one fails here."""

import inspect
import re

import pytest

bpy = pytest.importorskip("bpy")

CALL = re.compile(r"bpy\.ops\.loopsmith\.(\w+)\(")


def _called(function):
    """The Loopsmith operators ``function`` calls, itself or through its module's functions it names."""
    module = inspect.getmodule(function)
    helpers = [getattr(module, name) for name in function.__code__.co_names if inspect.isfunction(getattr(module, name, None))]
    return {name for code in (function, *helpers) for name in CALL.findall(inspect.getsource(code))}


@pytest.mark.smoke
def test_every_operator_has_a_smoke_test(loopsmith, request):
    registered = {getattr(bpy.types, name).bl_idname.split(".", 1)[1] for name in dir(bpy.types) if name.startswith("LOOPSMITH_OT_")}
    smoked = set()
    for item in request.session.items:
        if item.get_closest_marker("smoke") and hasattr(item, "function"):
            smoked |= _called(item.function)
    assert registered and registered <= smoked, sorted(registered - smoked)
