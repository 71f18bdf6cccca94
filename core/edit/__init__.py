"""Motion editing: sample, resample, retime, freeze, splice, blend and mirror clips (seed 003)."""
