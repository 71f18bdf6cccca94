"""Layout helpers shared by the sidebar panels and the operators' redo panels."""

# The parameters each method uses, in the order they are shown.
METHOD_PARAMETERS = {
    "AUTO": ("side", "ratio", "blend_start", "blend_end"),  # what several methods share; the others are tried at their defaults
    "SPRING": ("side", "ratio", "halflife_start", "halflife_end"),
    "CUBIC": ("side", "ratio", "blend_start", "blend_end"),
    "LINEAR": ("ratio",),
    "LINEAR_INERTIALIZE": ("ratio", "blend_start", "blend_end"),
    "SOFTFADE": ("ratio", "softfade_start", "softfade_end", "hardness_start", "hardness_end", "blend_start", "blend_end"),
    "CROSSFADE": ("crossfade", "crossfade_preroll"),
    "NONE": (),
}
# Parameters that only matter on one side or with both.
_SIDE_ONLY = {"halflife_start": "END", "halflife_end": "START", "blend_start": "END", "blend_end": "START"}


def _shown(data, name):
    if data.method in ("SPRING", "CUBIC", "AUTO"):
        if name == "ratio" and data.side != "BOTH":
            return False
        if _SIDE_ONLY.get(name) == data.side:
            return False
    return True


def _draw_choice(layout, data, mode, found, missing, frames):
    """The ``mode`` menu, then FOUND's choice (``found``: its text, None if nothing is chosen: ``missing`` says what to do)
    or MANUAL's two ``frames`` properties."""
    layout.prop(data, mode)
    if getattr(data, mode) == "FOUND":
        layout.label(text=found or missing, icon="CHECKMARK" if found else "ERROR")
    if getattr(data, mode) == "MANUAL":
        row = layout.row(align=True)
        for name in frames:
            row.prop(data, name)


def draw_range(layout, data, candidate=None):
    found = f"{candidate.frame_start}-{candidate.frame_end} ({candidate.grade.title()})" if candidate else None
    _draw_choice(layout, data, "range_mode", found, "Run Find Loop first", ("frame_start", "frame_end"))


def draw_method(layout, data):
    """Method and only the parameters that method uses."""
    layout.prop(data, "method")
    column = layout.column(align=True)
    for name in METHOD_PARAMETERS[data.method]:
        if _shown(data, name):
            column.prop(data, name)


def draw_method_kept(layout, result):
    """What Best Measured kept and what it measured (``result``: the scene's last Make Loop), when it chose."""
    if result.valid and result.methods_tried:
        layout.label(text=f"Kept {result.method}", icon="CHECKMARK")
        layout.label(text=f"Seam as played: {result.methods_tried}")


def draw_root_and_output(layout, data, armature=None):
    layout.prop(data, "root_mode")
    if data.root_mode != "LOOP":
        if armature is not None:
            layout.prop_search(data, "root_bone", armature, "bones", text="Root Bone")
        else:
            layout.prop(data, "root_bone")
        if data.root_mode in ("AUTO", "TRAVEL"):
            layout.prop(data, "root_blend")
    if data.method != "NONE":
        layout.prop(data, "lock_feet")
    layout.prop(data, "ground")
    layout.prop(data, "loop_mode")
    layout.prop(data, "replace_action")


def draw_find_settings(layout, data):
    row = layout.row(align=True)
    row.prop(data, "min_length")
    row.prop(data, "max_length")
    layout.prop(data, "cycles")
    layout.prop(data, "skip_edges")
    layout.prop(data, "add_markers")


def draw_make_loop(layout, data, armature=None, candidate=None):
    """Everything Make Loop takes, for the panel and the redo panel alike."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    draw_range(layout, data, candidate)
    if data.range_mode == "AUTO":
        draw_find_settings(layout.column(heading="Find"), data)
    draw_method(layout, data)
    draw_root_and_output(layout, data, armature)


# The parameters each transition method uses, in the order they are shown.
TRANSITION_PARAMETERS = {
    "AUTO": ("auto_length", "blend_length", "use_timewarp"),  # the time warp applies if the crossfade wins
    "INERTIALIZE": ("auto_length", "blend_length"),
    "CROSSFADE": ("auto_length", "blend_length", "use_timewarp"),
}


def draw_transition_point(layout, data, point=None):
    found = f"A {point.frame_a} of '{data.points_source.name}', B {point.frame_b}" if point else None
    _draw_choice(layout, data, "point_mode", found, "Run with an automatic point first", ("frame_a", "frame_b"))


def draw_transition_method(layout, data):
    """Method and only the parameters that method uses."""
    layout.prop(data, "transition_method")
    column = layout.column(align=True)
    for name in TRANSITION_PARAMETERS[data.transition_method]:
        if name != "blend_length" or not data.auto_length:
            column.prop(data, name)


def draw_transition(layout, data, point=None):
    """Everything Make Transition takes, for the panel and the redo panel alike (point: the list's chosen one, in the panel)."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    layout.prop(data, "target_action", icon="ACTION")
    draw_transition_point(layout, data, point)
    draw_transition_method(layout, data)
    if data.point_mode == "AUTO":
        column = layout.column(heading="Match")
        column.prop(data, "joint_set")
        column.prop(data, "joint_weights")
    layout.prop(data, "use_align")
    layout.prop(data, "transition_lock_feet")


# Each editing operator's layout, for the Edit panel and its redo panel alike: only what applies
# (armature: the active one's data, to pick bones from, or None).
def draw_resample(layout, data, armature=None):
    layout.prop(data, "resample_fps")
    layout.prop(data, "resample_interpolation")
    layout.prop(data, "set_scene_rate")


def draw_retime(layout, data, armature=None):
    layout.prop(data, "retime_by")
    layout.prop(data, "speed" if data.retime_by == "SPEED" else "duration")
    layout.prop(data, "retime_interpolation")


def draw_freeze(layout, data, armature=None):
    layout.prop(data, "freeze_bones")
    layout.prop(data, "freeze_hold")
    if data.freeze_hold == "FRAME":
        layout.prop(data, "freeze_frame")
    layout.prop(data, "freeze_use_range")
    if data.freeze_use_range:
        row = layout.row(align=True)
        row.prop(data, "freeze_start")
        row.prop(data, "freeze_end")
        layout.prop(data, "freeze_blend")
    layout.prop(data, "freeze_location")


def draw_splice(layout, data, armature=None):
    layout.prop(data, "upper_action", icon="ACTION")
    if armature is not None:
        layout.prop_search(data, "upper_root", armature, "bones")
    else:
        layout.prop(data, "upper_root")
    layout.prop(data, "splice_timing")
    layout.prop(data, "splice_shorter")


def draw_blend(layout, data, armature=None):
    layout.prop(data, "blend_action", icon="ACTION")
    layout.prop(data, "blend_weight")
    layout.prop(data, "use_weight_ramp")
    if data.use_weight_ramp:
        layout.prop(data, "blend_weight_end")
    layout.prop(data, "blend_timing")
    layout.prop(data, "blend_shorter")


EDIT_LAYOUTS = {"loopsmith.resample": draw_resample, "loopsmith.retime": draw_retime, "loopsmith.freeze_bone": draw_freeze,
                "loopsmith.splice": draw_splice, "loopsmith.blend": draw_blend}


def draw_root_motion(layout, data):
    """Extract Root Motion's settings, for the Engine panel and the redo panel alike."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    layout.prop(data, "root_in_place")
    if not data.root_in_place:
        layout.prop(data, "root_motion_mode")
        layout.prop(data, "root_height")
    layout.prop(data, "root_name")
    layout.prop(data, "root_smoothing")


def draw_compose(layout, data):
    """Compose's own settings, for the Sequence panel and the redo panel alike."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    layout.prop(data, "compose_name")
    layout.prop(data, "compose_loop")
    layout.prop(data, "compose_trim")
    layout.prop(data, "compose_nla")


def draw_sequence_entry(layout, entry, last, loop):
    """One Sequence entry's range and, unless it is the last without loop, how it blends into the next."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    layout.prop(entry, "use_range")
    if entry.use_range:
        row = layout.row(align=True)
        row.prop(entry, "frame_start")
        row.prop(entry, "frame_end")
    if last and not loop:
        return
    column = layout.column(heading="Into the first" if last else "Into the next")
    column.prop(entry, "junction_method")
    column.prop(entry, "junction_auto_length")
    if not entry.junction_auto_length:
        column.prop(entry, "junction_length")
    column.prop(entry, "junction_point")
    if entry.junction_point == "MANUAL":
        row = column.row(align=True)
        row.prop(entry, "junction_frame_a")
        row.prop(entry, "junction_frame_b")


def draw_synthesize(layout, data):
    """Synthesize's settings, for the Motion Graph panel and the redo panel alike."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    layout.prop(data, "synth_name")
    layout.prop(data, "synth_seconds")
    layout.prop(data, "synth_seed")
    layout.prop(data, "synth_via")
