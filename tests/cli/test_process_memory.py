"""The command line's process keeps freed memory for reuse where the C library is glibc, and asks nothing of another."""

import pytest

from helpers import checkout_module


def _recording(monkeypatch, libc_version, refused=()):
    """The calls keep_freed_memory makes to the C library, its version string ``libc_version`` (None: not glibc's), the
    calls in ``refused`` refused."""
    libc = checkout_module("pipeline.libc")
    calls = []
    monkeypatch.setattr(libc, "function", lambda name: _Recorder(name, calls, refused))
    monkeypatch.setattr(libc.os, "confstr", lambda name: libc_version, raising=False)
    return libc, calls


class _Recorder:
    """A C function that records its calls and refuses (returns 0) the argument tuples in ``refused``."""

    def __init__(self, name, calls, refused):
        self.name, self.calls, self.refused = name, calls, refused

    def __call__(self, *args):
        self.calls.append((self.name, *args))
        return 0 if args in self.refused else 1


def test_glibc_keeps_a_gigabyte_of_freed_memory_for_the_next_arrays(monkeypatch):
    libc, calls = _recording(monkeypatch, "glibc 2.36")
    libc.keep_freed_memory()
    assert calls == [("mallopt", -3, 1 << 30), ("mallopt", -1, 1 << 30)]  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD


def test_a_glibc_that_refuses_a_gigabyte_keeps_32_mb(monkeypatch):
    libc, calls = _recording(monkeypatch, "glibc 2.31", refused={(-3, 1 << 30)})
    libc.keep_freed_memory()
    assert calls == [("mallopt", -3, 1 << 30), ("mallopt", -3, 32 << 20), ("mallopt", -1, 1 << 30)]


def test_no_trim_threshold_without_an_mmap_threshold(monkeypatch):
    """Either set stops glibc moving both: a trim threshold alone would leave every array over 128 kB mapped afresh."""
    libc, calls = _recording(monkeypatch, "glibc 2.31", refused={(-3, 1 << 30), (-3, 32 << 20)})
    libc.keep_freed_memory()
    assert ("mallopt", -1, 1 << 30) not in calls


@pytest.mark.parametrize("version", [None, "musl 1.2"])
def test_another_c_library_is_left_as_it_is(monkeypatch, version):
    libc, calls = _recording(monkeypatch, version)
    libc.keep_freed_memory()
    assert calls == []


def test_a_system_without_confstr_is_left_as_it_is(monkeypatch):
    """Windows has no os.confstr."""
    libc, calls = _recording(monkeypatch, None)
    monkeypatch.delattr(libc.os, "confstr")
    libc.keep_freed_memory()
    assert calls == []


def test_every_run_of_the_command_line_asks_for_it(monkeypatch, capsys):
    cli = checkout_module("pipeline.cli")
    asked = []
    monkeypatch.setattr(cli.libc, "keep_freed_memory", lambda: asked.append(True))
    assert cli.main(["--version"]) == 0 and asked == [True]
    assert capsys.readouterr().out.startswith("loopsmith")
