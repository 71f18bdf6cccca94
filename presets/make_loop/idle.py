import bpy

op = bpy.context.active_operator
op.range_mode = "AUTO"
op.cycles = 0
op.min_length = 1.0
op.max_length = 8.0
op.method = "LINEAR_INERTIALIZE"
op.ratio = 0.5
op.blend_start = 0.3
op.blend_end = 0.3
op.root_mode = "LOOP"
op.lock_feet = True
op.loop_mode = "CLAMP"
