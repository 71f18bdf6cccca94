"""The command line's process keeps freed memory for reuse where the C library is glibc, and asks nothing of another."""

import pytest

from helpers import checkout_module


def _recording(monkeypatch, libc_version):
    """The calls keep_freed_memory makes to the C library, its version string ``libc_version`` (None: not glibc's)."""
    libc = checkout_module("pipeline.libc")
    calls = []
    monkeypatch.setattr(libc, "function", lambda name: lambda *args: calls.append((name, *args)) or 1)
    monkeypatch.setattr(libc.os, "confstr", lambda name: libc_version)
    return libc, calls


def test_glibc_keeps_a_gigabyte_of_freed_memory_for_the_next_arrays(monkeypatch):
    libc, calls = _recording(monkeypatch, "glibc 2.36")
    libc.keep_freed_memory()
    assert calls == [("mallopt", -3, 1 << 30), ("mallopt", -1, 1 << 30)]  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD


@pytest.mark.parametrize("version", [None, "musl 1.2"])
def test_another_c_library_is_left_as_it_is(monkeypatch, version):
    libc, calls = _recording(monkeypatch, version)
    libc.keep_freed_memory()
    assert calls == []


def test_every_run_of_the_command_line_asks_for_it(monkeypatch, capsys):
    cli = checkout_module("pipeline.cli")
    asked = []
    monkeypatch.setattr(cli.libc, "keep_freed_memory", lambda: asked.append(True))
    assert cli.main(["--version"]) == 0 and asked == [True]
    assert capsys.readouterr().out.startswith("loopsmith")
