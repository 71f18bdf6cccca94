"""Make Blender play a written loop as a cycle: a Cycles F-modifier on each curve."""


def add_cycles_modifier(fcurve, with_offset=False):
    """A Cycles modifier repeating ``fcurve`` (with offset: travel keeps accumulating).

    Add it before the curve gets its keys: on a filled curve each change
    re-evaluates every key's handles, several times slower inside an undoable
    operator.
    """
    modifier = fcurve.modifiers.new("CYCLES")
    if with_offset:
        modifier.mode_before = modifier.mode_after = "REPEAT_OFFSET"
    return modifier
