"""The bpy side of Loopsmith's data path: actions <-> numpy clips."""
