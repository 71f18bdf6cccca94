"""``--scheduler``: the pipeline on a real Dask cluster (a scheduler and two workers on 127.0.0.1, no mocks).

Every run is compared with a local run of the same command: the same bytes
in every output, the same report entries (times and the worker aside).
"""

import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from helpers import run_loopsmith

distributed = pytest.importorskip("distributed")

pytestmark = [pytest.mark.blender, pytest.mark.realdata, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")]

WALK = "dataset-1_walk_normal_001.bvh"
RUN = "dataset-1_run_happy_001.bvh"
SHORT = ("--range", "10", "60")  # every clip of bandai-actions has these frames; a short loop keeps each task quick


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """A scheduler and two one-thread workers, each in its own process group (the worker's nanny and the worker itself)."""

    def __init__(self):
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        self.processes, self.client = [], None

    def start(self, folder):
        dask = pathlib.Path(sys.executable).parent / "dask"
        self._start(folder / "scheduler.log", dask, "scheduler", "--host", "127.0.0.1", "--port", self.address.rsplit(":", 1)[1], "--no-dashboard")
        self.client = distributed.Client(self.address, timeout=30)
        for index in range(2):
            self._start(folder / f"worker{index}.log", dask, "worker", self.address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
                        "--host", "127.0.0.1")
        self.ready()

    def _start(self, log, *command):
        with open(log, "w") as stream:
            self.processes.append(subprocess.Popen([str(part) for part in command], stdout=stream, stderr=stream, start_new_session=True))

    def ready(self):
        """The two workers' addresses, once both are up (a killed worker is restarted by its nanny)."""
        self.client.wait_for_workers(2, timeout=60)
        return set(self.client.scheduler_info()["workers"])

    def pids(self):
        """{worker address: its process id}."""
        return self.client.run(os.getpid)

    def close(self):
        try:
            if self.client is not None:
                self.client.close()
        finally:
            for process in self.processes:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    made = Cluster()
    try:
        made.start(tmp_path_factory.mktemp("cluster"))
        yield made
    finally:
        made.close()


@pytest.fixture(scope="module")
def actions(mocap_dir):
    return mocap_dir.parent / "bandai-actions"


def _report(folder):
    return json.loads((folder / "loopsmith_report.json").read_text())["entries"]


def _comparable(entry, out):
    """An entry without what differs between two runs into two folders: times, the worker, the output folder."""
    kept = {key: value for key, value in entry.items() if not key.endswith("seconds") and key not in ("worker", "run")}
    kept["outputs"] = [os.path.relpath(path, out) for path in entry.get("outputs", [])]
    return kept


def _same_run(local, remote):
    """The two output folders hold the same files, byte for byte, and their reports the same entries."""
    names = sorted(path.name for path in local.iterdir() if not path.name.startswith("loopsmith_report"))
    assert names and names == sorted(path.name for path in remote.iterdir() if not path.name.startswith("loopsmith_report"))
    for name in names:
        assert (local / name).read_bytes() == (remote / name).read_bytes(), name
    assert [_comparable(entry, local) for entry in _report(local)] == [_comparable(entry, remote) for entry in _report(remote)]


def _partials(folder):
    return [path.name for path in folder.rglob("*") if ".partial" in path.name]


def _task_processes(cluster_):
    """Loopsmith processes still alive under the workers (a task's fresh process)."""
    alive = []
    for pid in cluster_.pids().values():
        stack = [pid]
        while stack:
            parent = stack.pop()
            children = []
            for thread in pathlib.Path(f"/proc/{parent}/task").glob("*"):  # a task's process is a child of the worker's thread that ran it
                try:
                    children += [int(child) for child in (thread / "children").read_text().split()]
                except OSError:
                    pass
            stack.extend(children)
            for child in children:
                try:
                    if b"loopsmith" in pathlib.Path(f"/proc/{child}/cmdline").read_bytes():
                        alive.append(child)
                except OSError:
                    pass
    return alive


def test_make_loop_on_the_cluster_writes_what_a_local_run_writes(cluster, actions, tmp_path):
    workers = cluster.ready()
    local = run_loopsmith("make-loop", actions, "-o", tmp_path / "local", *SHORT, "--quiet")
    remote = run_loopsmith("make-loop", actions, "-o", tmp_path / "cluster", *SHORT, "--scheduler", cluster.address)
    assert local.returncode == remote.returncode == 0, remote.stderr
    _same_run(tmp_path / "local", tmp_path / "cluster")
    entries = _report(tmp_path / "cluster")
    assert {entry["worker"] for entry in entries} == workers  # both workers took tasks, and each entry names its own
    assert "6/6" in remote.stderr and "6 looped, 0 failed" in remote.stdout  # the progress bar and the summary, as locally


@pytest.mark.parametrize("command", ["transition", "compose"])
def test_a_transition_and_a_composition_on_the_cluster_are_the_local_ones(cluster, mocap_dir, tmp_path, command):
    workers = cluster.ready()
    clips = (mocap_dir / WALK, mocap_dir / RUN)
    local = run_loopsmith(command, *clips, "-o", tmp_path / "local", "--quiet")
    remote = run_loopsmith(command, *clips, "-o", tmp_path / "cluster", "--quiet", "--scheduler", cluster.address)
    assert local.returncode == remote.returncode == 0, remote.stderr
    _same_run(tmp_path / "local", tmp_path / "cluster")
    assert _report(tmp_path / "cluster")[0]["worker"] in workers


def test_the_graph_and_a_synthesis_on_the_cluster_are_the_local_ones_byte_for_byte(cluster, actions, tmp_path):
    workers = cluster.ready()

    def blocks(dask_worker):  # distance blocks (or batches of tiles) this worker computed
        return len({entry[0] for entry in dask_worker.state.log if str(entry[0]).startswith(("scan_pair", "run_batch"))})

    before = cluster.client.run(blocks)
    local = run_loopsmith("graph", actions, "-o", tmp_path / "local" / "graph.json", "--quiet")
    remote = run_loopsmith("graph", actions, "-o", tmp_path / "cluster" / "graph.json", "--quiet", "--scheduler", cluster.address)
    assert local.returncode == remote.returncode == 0, remote.stderr
    assert (tmp_path / "local" / "graph.json").read_bytes() == (tmp_path / "cluster" / "graph.json").read_bytes()
    assert json.loads((tmp_path / "local" / "graph.json").read_text())["edges"]
    after = cluster.client.run(blocks)
    # The map was split: its blocks ran as tasks of their own on the cluster's workers (which worker takes which is Dask's call).
    assert set(after) == workers and sum(after[address] - before.get(address, 0) for address in workers) > 1
    graph = tmp_path / "local" / "graph.json"
    local = run_loopsmith("synth", graph, "--seconds", "4", "-o", tmp_path / "synth-local", "--quiet")
    remote = run_loopsmith("synth", graph, "--seconds", "4", "-o", tmp_path / "synth-cluster", "--quiet", "--scheduler", cluster.address)
    assert local.returncode == remote.returncode == 0, remote.stderr  # a task's options that are paths stay paths in its process
    _same_run(tmp_path / "synth-local", tmp_path / "synth-cluster")


def test_a_worker_killed_mid_run_costs_no_file(cluster, actions, tmp_path):
    cluster.ready()
    out = tmp_path / "out"
    client_run = subprocess.Popen([sys.executable, "-m", "loopsmith", "make-loop", str(actions), "-o", str(out), *SHORT, "--format", "bvh", "glb",
                                   "--quiet", "--scheduler", cluster.address], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    busy = {}
    while not busy and time.monotonic() < deadline:  # a worker in the middle of a task, with tasks still to come
        busy = {address: keys for address, keys in cluster.client.processing().items() if keys}
        time.sleep(0.05)
    victim = min(busy)
    os.kill(cluster.pids()[victim], signal.SIGKILL)
    _, errors = client_run.communicate(timeout=120)
    assert client_run.returncode == 0, errors
    entries = _report(out)
    assert len(entries) == 6 and all(entry["status"] == "ok" for entry in entries), errors
    assert len(list(out.glob("*_loop.bvh"))) == len(list(out.glob("*_loop.glb"))) == 6 and not _partials(out)


def test_sigterm_to_the_client_stops_the_cluster_tasks_and_exits_130(cluster, actions, tmp_path):
    cluster.ready()
    out = tmp_path / "out"
    progress = tmp_path / "stderr.txt"
    with open(progress, "w") as stream:
        client_run = subprocess.Popen([sys.executable, "-m", "loopsmith", "make-loop", str(actions), "-o", str(out), *SHORT,
                                       "--format", "bvh", "fbx", "glb", "--scheduler", cluster.address],
                                      stdout=subprocess.PIPE, stderr=stream, text=True)
    deadline = time.monotonic() + 60
    while not re.search(r"\] [1-5]/6 ", progress.read_text()) and time.monotonic() < deadline:  # a task done, as the bar shows
        time.sleep(0.05)
    assert _task_processes(cluster), "task processes should be running"
    client_run.send_signal(signal.SIGTERM)
    stopped = time.monotonic()
    output, _ = client_run.communicate(timeout=30)
    errors = progress.read_text()
    assert client_run.returncode == 130, errors
    assert time.monotonic() - stopped < 10
    assert "Traceback" not in errors and "interrupted" in output
    assert not _task_processes(cluster)  # the client waited for every task's process to end
    assert not _partials(out)
    entries = _report(out)
    assert 1 <= len(entries) < 6 and all(entry["status"] == "ok" for entry in entries)


def test_cluster_options_that_cannot_work_are_one_line_usage_errors(actions, tmp_path):
    unreachable = run_loopsmith("make-loop", actions, "-o", tmp_path, "--scheduler", f"tcp://127.0.0.1:{_free_port()}")
    assert unreachable.returncode == 2 and "no Dask scheduler answered" in unreachable.stderr
    with_jobs = run_loopsmith("make-loop", actions, "-o", tmp_path, "--scheduler", "tcp://127.0.0.1:8786", "--jobs", "2")
    assert with_jobs.returncode == 2 and "--jobs does not apply with --scheduler" in with_jobs.stderr
    for result in (unreachable, with_jobs):
        assert len(result.stderr.strip().splitlines()) == 1 and not list(tmp_path.glob("*_loop.*"))


def test_without_distributed_the_scheduler_option_says_how_to_add_it(actions, tmp_path):
    core = pathlib.Path(sys.executable).parents[1].parent / "core" / "bin" / "python"  # the venv without bpy, nor distributed
    if not core.is_file() or subprocess.run([str(core), "-c", "import distributed"], capture_output=True, check=False).returncode == 0:
        pytest.skip("needs the core venv (tools/test.sh makes it) without distributed")
    (tmp_path / "path").mkdir()
    (tmp_path / "path" / "loopsmith").symlink_to(pathlib.Path(__file__).resolve().parents[2])
    result = subprocess.run([str(core), "-m", "loopsmith", "make-loop", str(actions), "-o", str(tmp_path / "out"), "--scheduler", "tcp://127.0.0.1:8786"],
                            capture_output=True, text=True, check=False, env=dict(os.environ, PYTHONPATH=str(tmp_path / "path")))
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"loopsmith make-loop: error: --scheduler needs Dask's 'distributed' package in this Python: {core} -m pip install 'distributed==2026.8.0'"]
