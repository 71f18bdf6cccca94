import bpy

op = bpy.context.active_operator
op.range_mode = "AUTO"
op.cycles = 2
op.min_length = 0.4
op.max_length = 4.0
op.method = "AUTO"
op.side = "BOTH"
op.ratio = 0.5
op.blend_start = 0.2
op.blend_end = 0.2
op.root_mode = "TRAVEL"
op.root_blend = 0.5
op.lock_feet = True
op.loop_mode = "CLAMP"
