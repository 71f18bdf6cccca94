"""Options that never mislead: a command offers only the options it uses, an option another choice makes irrelevant is
refused with one line naming it as typed, one meaning per option name (old spellings warned for one release), every
default and an example in ``--help``, ``--version``, and outputs beside the report.

Everything runs the command line's parser and checks in this process (no file is read, no Blender).
"""

import contextlib
import io
import pathlib
import shlex
import tomllib

import pytest

from helpers import checkout_module

REPO = pathlib.Path(__file__).resolve().parents[2]
ENGINE_OPTIONS = (("--format", "fbx"), ("--engine", "unreal"), ("--root-motion", "IN_PLACE"), ("--root-height", "ROOT"),
                  ("--root-name", "hips_root"), ("--root-smoothing", "0.3"))


def _modules():
    return [checkout_module(f"pipeline.{name}") for name in ("cli", "commands", "runner", "options")]


def _parsed(*argv):
    """(exit code, parsed options or None, stderr) of parsing ``argv``."""
    cli = _modules()[0]
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):
        try:
            return 0, cli.parser().parse_args(argv), errors.getvalue()
        except SystemExit as exit_:
            return exit_.code, None, errors.getvalue()


def _checked(*argv):
    """(exit code, the options or the one-line message, stderr) of parsing ``argv`` and checking it as a run does."""
    _, commands, runner, options = _modules()
    code, parsed, errors = _parsed(*argv)
    if code:
        return code, errors.strip().splitlines()[-1], errors
    try:
        runner.check_options(commands.COMMANDS[parsed.command], parsed)
    except options.UsageError as error:
        return 2, str(error), errors
    return 0, parsed, errors


# --- a command offers only the options it uses -------------------------------------------------------------------------

@pytest.mark.parametrize("flag, value", ENGINE_OPTIONS)
def test_graph_offers_no_motion_output_option(flag, value):
    code, message, _ = _checked("graph", "clips", flag, value)
    assert code == 2 and f"unrecognized arguments: {flag}" in message


def test_graph_checks_without_motion_options():
    code, parsed, _ = _checked("graph", "clips", "-o", "out/library.json")
    assert code == 0 and parsed.graph == pathlib.Path("out/library.json") and parsed.out == pathlib.Path("out")
    assert not hasattr(parsed, "format") and not hasattr(parsed, "root_motion") and not hasattr(parsed, "engine")


@pytest.mark.parametrize("argv", [("synth", "g.json", "--seconds", "5"), ("transition", "a.bvh", "b.bvh"), ("compose", "a.bvh", "b.bvh"),
                                  ("splice", "a.bvh", "b.bvh"), ("blend", "a.bvh", "b.bvh")])
def test_commands_that_scan_no_folder_refuse_include_outputs(argv):
    code, message, _ = _checked(*argv, "--include-outputs")
    assert code == 2 and "unrecognized arguments: --include-outputs" in message


@pytest.mark.parametrize("argv", [("make-loop", "clips"), ("graph", "clips"), ("mirror", "clips"), ("freeze", "clips", "--bone", "Hips")])
def test_commands_that_scan_folders_offer_include_outputs(argv):
    code, parsed, _ = _checked(*argv, "--include-outputs")
    assert code == 0 and parsed.include_outputs


# --- an option another choice makes irrelevant is refused --------------------------------------------------------------

def _stitch_value(flag):
    return {"--side": "START", "--crossfade-preroll": None}.get(flag, "0.3" if flag != "--ratio" else "0.4")


def _parameter_flags():
    make_options = checkout_module("pipeline.commands.make_loop.options")
    return [("--" + name.replace("_", "-")) for name in make_options.stitch_fields() if name != "method"]


def test_every_method_lists_the_parameters_it_reads():
    make_options, stitch = checkout_module("pipeline.commands.make_loop.options"), checkout_module("core.loop.stitch")
    assert set(make_options.METHOD_PARAMETERS) == set(stitch.METHODS)
    for method, names in make_options.METHOD_PARAMETERS.items():
        assert set(names) <= set(make_options.stitch_fields()), method
        for name in names:  # a single-method parameter belongs to its method only
            assert stitch.SINGLE_METHOD_PARAMETERS.get(name, method) == method


@pytest.mark.parametrize("method", ["CUBIC", "LINEAR_INERTIALIZE", "SOFTFADE", "SPRING", "LINEAR", "CROSSFADE", "NONE"])
def test_a_stitching_parameter_the_method_does_not_read_is_refused(method):
    reads = checkout_module("pipeline.commands.make_loop.options").METHOD_PARAMETERS[method]
    for flag in _parameter_flags():
        value = _stitch_value(flag)
        code, result, _ = _checked("make-loop", "a.bvh", "--method", method, flag, *([value] if value else []))
        if flag[2:].replace("-", "_") in reads:
            assert code == 0, (flag, result)
        else:
            assert code == 2 and result.startswith(f"{flag} applies to --method ") and result.endswith(f", not {method}"), (flag, result)


def test_refusals_name_the_option_as_typed_and_the_method():
    assert _checked("make-loop", "a.bvh", "--method", "CUBIC", "--softfade-start", "0.3")[1] == \
        "--softfade-start applies to --method SOFTFADE, not CUBIC"
    assert _checked("make-loop", "a.bvh", "--method", "NONE", "--blend-start", "0.3")[1] == \
        "--blend-start applies to --method CUBIC, LINEAR_INERTIALIZE or SOFTFADE, not NONE"


def test_auto_keeps_its_rule_and_defaults_are_filled():
    code, parsed, _ = _checked("make-loop", "a.bvh", "--side", "END", "--blend-start", "0.3")
    assert code == 0 and (parsed.side, parsed.blend_start, parsed.softfade_start, parsed.ratio) == ("END", 0.3, 0.4, 0.5)
    assert (parsed.root_blend, parsed.lock_feet, parsed.crossfade_preroll) == (0.5, True, False)
    code, message, _ = _checked("make-loop", "a.bvh", "--halflife-start", "0.2")
    assert code == 2 and message.startswith("--halflife-start (SPRING) only applies with that --method")


@pytest.mark.parametrize("argv, message", [
    (("--method", "CUBIC", "--side", "START", "--ratio", "0.3"), "--ratio applies with --side BOTH, not START"),
    (("--root-mode", "LOOP", "--root-blend", "0.3"), "--root-blend applies to a travelling root (--root-mode TRAVEL or AUTO), not with --root-mode LOOP"),
    (("--root-motion", "IN_PLACE", "--root-blend", "0.3"), "--root-blend applies to a travelling root (--root-mode TRAVEL or AUTO), not with --root-motion IN_PLACE"),
    (("--method", "NONE", "--root-blend", "0.3"), "--root-blend applies to a seam that is closed, not --method NONE"),
    (("--method", "NONE", "--no-lock-feet"), "--no-lock-feet applies to a seam that is closed, not --method NONE"),
    (("--root-mode", "TRAVEL", "--root-motion", "IN_PLACE"), "--root-mode TRAVEL does not apply with --root-motion IN_PLACE"),
])
def test_make_loop_root_and_seam_options_refused_where_ignored(argv, message):
    code, result, _ = _checked("make-loop", "a.bvh", *argv)
    assert code == 2 and result.startswith(message), result


def test_blend_lasts_longer_needs_a_timing_that_repeats_steps():
    code, message, _ = _checked("blend", "a.bvh", "b.bvh", "--lasts", "LONGER", "--timing", "FRACTION")
    assert code == 2 and message.startswith("--lasts LONGER applies to --timing CONTACTS or WARP, not FRACTION")


# --- one meaning per option name ---------------------------------------------------------------------------------------

def _same_run(new, old, warning, keys):
    """Both spellings parse and check to the same options; only the old one warns, with exactly ``warning``."""
    code_new, parsed_new, errors_new = _checked(*new)
    code_old, parsed_old, errors_old = _checked(*old)
    assert (code_new, code_old) == (0, 0), (parsed_new, parsed_old)
    assert errors_new == "" and errors_old.strip() == warning
    for key in keys:
        assert getattr(parsed_new, key) == getattr(parsed_old, key), key
    return parsed_new


def test_compose_clip_range_and_junction_with_old_spellings_warned():
    parsed = _same_run(("compose", "a.bvh", "b.bvh", "--clip-range", "1", "1", "100", "--clip-range", "2", "5", "50"),
                       ("compose", "a.bvh", "b.bvh", "--range", "1", "1", "100", "--clip-range", "2", "5", "50"),
                       "loopsmith compose: warning: --range K FIRST LAST is now --clip-range K FIRST LAST", ("clip_range",))
    assert parsed.clip_range == [[1, 1, 100], [2, 5, 50]]
    parsed = _same_run(("compose", "a.bvh", "b.bvh", "--junction", "1", "150", "30"), ("compose", "a.bvh", "b.bvh", "--at", "1", "150", "30"),
                       "loopsmith compose: warning: --at J I K is now --junction J I K", ("junction",))
    assert parsed.junction == [[1, 150, 30]]
    code, message, _ = _checked("compose", "a.bvh", "b.bvh", "--clip-range", "3", "1", "10")
    assert code == 2 and message == "--clip-range 3 1 10: there is no clip 3 (1-2)"


def test_blend_lasts_with_old_shorter_warned():
    parsed = _same_run(("blend", "a.bvh", "b.bvh", "--lasts", "LONGER"), ("blend", "a.bvh", "b.bvh", "--shorter", "LOOP"),
                       "loopsmith blend: warning: --shorter LOOP is now --lasts LONGER", ("lasts", "shorter"))
    assert (parsed.lasts, parsed.shorter) == ("LONGER", "LOOP")
    assert _checked("blend", "a.bvh", "b.bvh")[1].shorter == "CLAMP"
    code, parsed, _ = _checked("splice", "a.bvh", "b.bvh", "--shorter", "LOOP")  # splice's own --shorter keeps its meaning
    assert code == 0 and parsed.shorter == "LOOP"


def test_root_motion_in_place_is_the_one_spelling_in_make_loop():
    parsed = _same_run(("make-loop", "a.bvh", "--root-motion", "IN_PLACE"), ("make-loop", "a.bvh", "--root-mode", "IN_PLACE"),
                       "loopsmith make-loop: warning: --root-mode IN_PLACE is now --root-motion IN_PLACE", ("root_mode", "root_motion"))
    assert (parsed.root_mode, parsed.root_motion) == ("IN_PLACE", "IN_PLACE")
    code, message, _ = _checked("make-loop", "a.bvh", "--root-motion", "HEADING", "--root-mode", "IN_PLACE")
    assert code == 2 and "--root-mode IN_PLACE (now --root-motion IN_PLACE) does not go with --root-motion HEADING" in message
    assert "IN_PLACE" not in _help("make-loop").split("--root-mode")[1].split("\n")[0]


def test_make_loop_range_is_first_last_as_freeze():
    for command, extra in (("make-loop", ()), ("freeze", ("--bone", "Hips"))):
        assert "--range FIRST LAST" in _help(command)
    code, message, _ = _checked("make-loop", "a.bvh", "--range", "50", "20")
    assert code == 2 and message == "--range 50 20: LAST must be after FIRST"


# --- usage and help ----------------------------------------------------------------------------------------------------

def _help(command):
    cli = _modules()[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.parser().parse_args([command, "--help"])
    return out.getvalue()


def _subparsers():
    cli, commands = _modules()[:2]
    action = next(a for a in cli.parser()._actions if a.dest == "command")
    return {name: action.choices[name] for name in commands.COMMANDS}


def test_help_shows_every_default_and_no_internal_metavar():
    for name, sub in _subparsers().items():
        text = _help(name)
        assert "(default: )" not in text and "default: None" not in text and "default: []" not in text, name
        for action in sub._actions:
            if action.option_strings and action.nargs != 0 and action.choices is None and action.help != "==SUPPRESS==":
                assert action.metavar is not None or "_" not in action.dest, f"{name} {action.option_strings[-1]} shows {action.dest.upper()}"


def test_every_command_has_examples_that_parse_as_typed():
    cli, commands = _modules()[:2]
    for name, command in commands.COMMANDS.items():
        assert command.examples and "examples:" in _help(name), name
        for line in command.examples:
            words = shlex.split(line.split("#")[0])
            assert words[:2] == ["loopsmith", name], line
            code, parsed, errors = _parsed(*words[1:])
            assert code == 0 and errors == "", (line, errors)


def test_version_is_the_manifests():
    cli = _modules()[0]
    version = tomllib.loads((REPO / "blender_manifest.toml").read_text())["version"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["--version"]) == 0
    assert out.getvalue().strip() == f"loopsmith {version}"


# --- messages and folders ----------------------------------------------------------------------------------------------

def test_lengths_in_messages_carry_their_unit():
    code, message, _ = _checked("make-loop", "a.bvh", "--min-length", "5", "--max-length", "4")
    assert code == 2 and message == "--min-length 5 s is above --max-length 4 s"


def test_outputs_go_beside_the_report_unless_told_otherwise(tmp_path):
    report = tmp_path / "reports" / "walk.json"
    assert _checked("make-loop", "a.bvh", "--report", str(report))[1].out == report.parent
    assert _checked("make-loop", "a.bvh", "--report", str(report), "-o", str(tmp_path / "out"))[1].out == tmp_path / "out"
    assert _checked("make-loop", "a.bvh")[1].out == pathlib.Path("loopsmith_out")
    assert _checked("graph", "clips", "--report", str(report))[1].graph == report.parent / "graph.json"
