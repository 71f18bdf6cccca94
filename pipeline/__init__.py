"""The command line: one module of options and one job per command (Blender imported only where a file needs a scene),
the runner (workers, clusters, farms) and the reports. Only the package's ``__init__`` and ``__main__`` import it."""
