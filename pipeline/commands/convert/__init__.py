"""``convert``: write each input in other formats (BVH, FBX, GLB, .blend, Acclaim AMC) without changing its motion,
each output read back and held against the input."""

from ....files import inputs as input_files
from ...contract import Command
from . import options, report


class Convert(Command):
    name = "convert"
    help = "write each input in other formats without changing its motion (each output read back and checked)"
    done, kind = "converted", "convert"
    inputs_help = "BVH, FBX, glTF/GLB, .blend or Acclaim AMC files, or folders of them"
    examples = ("loopsmith convert 05_01.amc --format bvh fbx -o out               # CMU's ASF/AMC to BVH and FBX (05.asf found beside it)",
                "loopsmith convert dance.amc --asf subject.asf --amc-fps 60 --format glb -o out",
                "loopsmith convert out/05_01.bvh --asf 05.asf --format amc -o back  # a BVH with the skeleton's joints back to AMC",
                "loopsmith convert clips/ --engine unreal -o unreal                  # every clip as an FBX for Unreal")
    exit_codes = "exit codes: 0 every file was converted, 1 some failed (each named on stderr), 2 usage error, 130 interrupted"

    options_module, report_module = options, report

    def plan(self, files, given):
        """One task per file, ``OUT/<stem>.<format>`` (folders in front where two inputs' outputs would clash)."""
        stems = input_files.output_stems(files, lambda path: input_files.output_suffixes(path, given.format))
        return [(path,) for path in files], [stems[str(path)] for path in files]

    def job(self):
        from . import job  # imports bpy only for a file that needs a Blender scene

        return job


COMMAND = Convert()
