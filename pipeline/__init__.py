"""The command line: one module of options and one bpy-side job per command, the runner (workers, clusters, farms)
and the reports. Only the package's ``__init__`` and ``__main__`` import it."""
