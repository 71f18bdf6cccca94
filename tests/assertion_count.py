"""A pytest plugin that counts the assert statements that ran and passed in test modules (``-p assertion_count``).

Load it with ``-p assertion_count -o enable_assertion_pass_hook=true`` (``tools/test.sh --count``): the count is
printed at the end of the run, summed over pytest-xdist's workers. Off by default, since a counted assert formats
its explanation even when it passes. With ``LOOPSMITH_ASSERTIONS_JSON=PATH`` the counts per test file are written
there too (to compare two suites file by file).
"""

import collections
import json
import os

_passed = collections.Counter()


def pytest_assertion_pass(item, lineno, orig, expl):
    _passed[item.nodeid.split("::", 1)[0]] += 1


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker hands its counts to the controller
        workeroutput["assertions_passed"] = dict(_passed)


def pytest_testnodedown(node, error):
    _passed.update(getattr(node, "workeroutput", {}).get("assertions_passed", {}))


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"assertions passed: {sum(_passed.values())}")
    path = os.environ.get("LOOPSMITH_ASSERTIONS_JSON")
    if path:
        with open(path, "w", encoding="utf-8") as stream:
            json.dump(dict(sorted(_passed.items())), stream, indent=1)
