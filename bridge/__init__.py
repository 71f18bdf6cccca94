"""The Blender side, one package for the operators and the command line: actions read into clips and written back
(:mod:`.clip_io` and the modules it gathers), armatures built in bulk, root bones, images, and the file importers and
exporters with their checks (:mod:`.importers`, :mod:`.export`, :mod:`.engine_files`)."""
