"""The command-line pipeline: commands, per-file jobs, atomic outputs and reports."""
