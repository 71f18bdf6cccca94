"""``python -m loopsmith`` as a process of its own, forked from one that has already imported Python, numpy and Blender.

Starting the command line from nothing costs about a second of imports (``bpy`` alone 0.6 s), hundreds of times a
run. Here one server process per test process imports them once; each call forks it, and the child runs the
command line exactly as ``python -m loopsmith`` would, in its own folder, environment, output files and exit code,
so a call still proves everything a subprocess proves, except what happens while Python starts and imports (tests of
that start the real thing: ``run_loopsmith(..., fresh=True)``).

The server reads one JSON request a line on stdin and answers one JSON line on stdout: ``{"returncode": N}``, or
``{"timeout": true}`` when it killed a child that ran past the request's timeout.
"""

import atexit
import importlib
import importlib.util
import json
import os
import pathlib
import select
import signal
import subprocess
import sys
import tempfile
import traceback

_server = None


def run(args: list[str], cwd, env: dict, timeout: float) -> subprocess.CompletedProcess:
    """Run the command line with ``args`` in a forked child; stdout and stderr as text, like ``subprocess.run``."""
    server = _started()
    with tempfile.TemporaryDirectory(prefix="loopsmith-forked-") as folder:
        out, err = pathlib.Path(folder, "stdout"), pathlib.Path(folder, "stderr")
        request = {"args": args, "cwd": str(cwd or os.getcwd()), "env": env, "stdout": str(out), "stderr": str(err), "timeout": timeout}
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        line = server.stdout.readline()
        if not line:
            raise RuntimeError(f"the forking server of python -m loopsmith died (exit {server.wait()})")
        answer = json.loads(line)
        command = [sys.executable, "-m", "loopsmith", *args]
        if answer.get("timeout"):
            raise subprocess.TimeoutExpired(command, timeout)
        return subprocess.CompletedProcess(command, answer["returncode"], out.read_text(encoding="utf-8"), err.read_text(encoding="utf-8"))


def _started() -> subprocess.Popen:
    global _server
    if _server is None or _server.poll() is not None:
        _server = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        atexit.register(_server.stdin.close)  # the server ends when its stdin does
    return _server


def _serve():
    """The server: import once, then fork a child per request until stdin closes."""
    from loopsmith.files import interrupts

    with interrupts.deferred():
        from loopsmith.pipeline import cli, commands
        try:
            import bpy
        except ImportError:  # the core venv: commands that need Blender fail there as they would from nothing
            bpy = None
    if bpy is not None:
        for command in commands.COMMANDS.values():
            job = command.job()  # every job's imports, once, and its Blender side (imported by a job only when a file needs it)
            if importlib.util.find_spec(f"{job.__package__}.scene") is not None:
                importlib.import_module(f"{job.__package__}.scene")
    try:
        for line in sys.stdin:
            request = json.loads(line)
            sys.stdout.flush()
            pid = os.fork()
            if pid == 0:
                _child(request, cli, interrupts)
            print(json.dumps(_waited(pid, request["timeout"])), flush=True)
    except (KeyboardInterrupt, interrupts.Interrupted):  # the tests were stopped (Ctrl-C reaches the whole process group)
        pass
    if bpy is not None and pathlib.Path(bpy.app.tempdir).name.startswith("blender_"):
        import shutil

        shutil.rmtree(bpy.app.tempdir, ignore_errors=True)  # os._exit skips Blender's own clean-up, as in __main__.py
    os._exit(0)  # bpy 4.2/4.5 may crash or hang at interpreter exit


def _waited(pid: int, timeout: float) -> dict:
    """The child's exit code, or a timeout once it has been killed."""
    descriptor = os.pidfd_open(pid)
    try:
        finished, _, _ = select.select([descriptor], [], [], timeout)
        if not finished:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(descriptor)
    return {"returncode": os.waitstatus_to_exitcode(status)} if finished else {"timeout": True}


def _child(request: dict, cli, interrupts):
    """In the forked child: become ``python -m loopsmith ARGS`` in the request's folder, environment and files, then exit."""
    status = 1
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        tempfile.tempdir = None  # read TMPDIR again
        for descriptor, path, flags in ((0, os.devnull, os.O_RDONLY), (1, request["stdout"], os.O_WRONLY | os.O_CREAT),
                                        (2, request["stderr"], os.O_WRONLY | os.O_CREAT)):
            opened = os.open(path, flags, 0o644)
            os.dup2(opened, descriptor)
            os.close(opened)
        sys.argv = ["loopsmith", *request["args"]]
        interrupts.install()
        try:
            status = cli.main(request["args"])
        except interrupts.Interrupted:
            status = interrupts.EXIT_CODE
    except BaseException:  # what Python itself would print for an uncaught error, with its exit code
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


if __name__ == "__main__":
    _serve()
