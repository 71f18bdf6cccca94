"""Motion editing: resample and retime (:mod:`.timing`), freeze, splice, blend and mirror clips."""
