import bpy

op = bpy.context.active_operator
op.range_mode = "AUTO"
op.cycles = 1
op.min_length = 0.3
op.max_length = 1.5
op.method = "SOFTFADE"
op.ratio = 0.5
op.softfade_start = 0.2
op.softfade_end = 0.2
op.hardness_start = 16.0
op.hardness_end = 16.0
op.blend_start = 0.1
op.blend_end = 0.1
op.root_mode = "AUTO"
op.lock_feet = True
op.loop_mode = "CLAMP"
