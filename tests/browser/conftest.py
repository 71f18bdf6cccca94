"""The browser tier: report pages opened in Debian's Chromium, headless, driven from subprocess (no Python dependency, no
browser downloaded by a test framework).

A page is copied with two scripts added: ``guard.js`` first (keeps every error and console.error of the page) and
``probe.js`` last (after load: steps every player, reads every timeline and chart, and writes its findings into the DOM),
then ``chromium --dump-dom`` prints the DOM and the findings are read back. Screenshots go where a person can open them:
``$LOOPSMITH_ARTEFACTS`` if set, else ``<repo>/.artefacts/browser/`` (git-ignored).
"""

import base64
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
INSTALL = "the browser tests need Debian's chromium: install it with `apt-get install chromium` (tools/test.sh does when run as root)"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--mute-audio")
WIDTH = 1200
_SHOTS = []  # the screenshots this session wrote, named in the terminal summary


@pytest.fixture(scope="session")
def artefacts():
    """Where screenshots go, for a person to open: ``$LOOPSMITH_ARTEFACTS``, else ``<repo>/.artefacts/browser`` (git-ignored)."""
    folder = pathlib.Path(os.environ.get("LOOPSMITH_ARTEFACTS") or REPO / ".artefacts" / "browser").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Chromium:
    """Headless Chromium at ``path``: :meth:`probe` a page, :meth:`screenshot` it."""

    width = WIDTH

    def __init__(self, path):
        self.path = path

    def _run(self, *args, timeout=120):
        with tempfile.TemporaryDirectory(prefix="loopsmith-chromium-") as profile:
            return subprocess.run([self.path, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)

    def probe(self, page, work):
        """What probe.js found on ``page`` (a report's HTML), as a dict with ``stderr_errors`` (the "Uncaught" lines
        Chromium logged) added; ``work``: a folder for the probed copy."""
        text = pathlib.Path(page).read_text(encoding="utf-8")
        guard = f"<script>{(HERE / 'guard.js').read_text()}</script>"
        probe = f"<script>{(HERE / 'probe.js').read_text()}</script>"
        text = text.replace("<head>", "<head>" + guard, 1) if "<head>" in text else guard + text
        text = text.replace("</body>", probe + "</body>", 1) if "</body>" in text else text + probe
        copy = pathlib.Path(work) / f"probed_{pathlib.Path(page).name}"
        copy.write_text(text, encoding="utf-8")
        result = self._run("--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", f"--window-size={WIDTH},1000",
                           "--dump-dom", copy.as_uri())
        found = re.search(r'<pre id="loopsmith-probe">([A-Za-z0-9+/=\s]*)</pre>', result.stdout)
        assert found, f"the probe did not report (chromium exit {result.returncode}):\n{result.stderr[-3000:]}"
        verdict = json.loads(base64.b64decode(found.group(1)).decode("utf-8"))
        verdict["stderr_errors"] = [line for line in result.stderr.splitlines() if "Uncaught" in line]
        return verdict

    def screenshot(self, page, png, height):
        """A screenshot of ``page`` at :data:`WIDTH` by ``height`` pixels into ``png`` (after the page played a moment)."""
        result = self._run("--virtual-time-budget=3000", f"--window-size={WIDTH},{height}", f"--screenshot={png}",
                           pathlib.Path(page).resolve().as_uri())
        assert pathlib.Path(png).is_file(), f"no screenshot (chromium exit {result.returncode}):\n{result.stderr[-3000:]}"
        _SHOTS.append(pathlib.Path(png))
        return png


@pytest.fixture(scope="session")
def chromium():
    """Debian's ``chromium`` on PATH; a failure in CI when missing, a skip elsewhere (with the line saying how to install)."""
    path = shutil.which("chromium")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(INSTALL)
        pytest.skip(INSTALL)
    return Chromium(path)


def pytest_terminal_summary(terminalreporter):
    if _SHOTS:
        folders = sorted({str(shot.parent) for shot in _SHOTS})
        terminalreporter.write_line(f"browser screenshots: {len(_SHOTS)} report pages in {', '.join(folders)} (PNG and the page beside it)")
