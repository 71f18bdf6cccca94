"""The editing commands' shared shape: ``resample``, ``retime``, ``freeze`` and ``mirror`` edit each file they are given
(files or folders, as ``make-loop``) into ``OUT/<name>_<edit>.<format>``; ``splice`` and ``blend`` make one clip of two
files, ``OUT/<a>_<b>_<edit>.<format>``. Each has its folder (its options); one job and one report serve them all."""

from ....files import inputs as input_files
from ...contract import Command
from . import options as shared, report


class EditCommand(Command):
    """One editing command: ``name`` is the command and the edit, also the outputs' tag; ``arguments(parser)`` and
    ``check(options)`` its options (from its folder); pair: whether it takes two files (one task); inputs_metavar and
    inputs_help: how ``--help`` names and describes the inputs."""

    kind = "edit"
    report_module = report
    exit_codes = "exit codes: 0 every file was edited, 1 some failed (each named on stderr), 2 usage error, 130 interrupted"

    def __init__(self, name, help, done, arguments, examples, check=None, pair=False, inputs_metavar="INPUT", inputs_help=None):
        self.name, self.help, self.done, self.examples = name, help, done, examples
        self.inputs_help = inputs_help or self.inputs_help
        self.inputs = "*" if pair else "+"  # a pair may also come as options (--lower/--upper)
        self.reads_folders = not pair  # a pair is two files, never folders
        self.inputs_metavar = "A B" if pair and inputs_metavar == "INPUT" else inputs_metavar
        self._arguments, self._check, self.pair = arguments, check, pair

    def add_arguments(self, parser):
        parser.set_defaults(edit=self.name)
        self._arguments(parser)

    def check(self, options):
        if self._check:
            self._check(options)
        if self.pair:
            shared.check_pair(self.name, options)

    def plan(self, files, options):
        """One task per file (``<stem>_<edit>``), or one for the pair (``<a>_<b>_<edit>``)."""
        if self.pair:
            first, second = options.inputs
            return [(first, second)], [f"{first.stem}_{second.stem}_{self.name}"]
        stems = input_files.output_stems(files, lambda path: input_files.output_suffixes(path, options.format))
        return [(path,) for path in files], [f"{stems[str(path)]}_{self.name}" for path in files]

    def job(self):
        from . import job  # imports bpy only for a file that needs a Blender scene

        return job
