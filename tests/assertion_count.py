"""A pytest plugin that counts the assert statements that ran and passed in test modules (``-p assertion_count``).

Load it with ``-p assertion_count -o enable_assertion_pass_hook=true`` (``tools/test.sh --count``): the count is
printed at the end of the run, summed over pytest-xdist's workers. Off by default, since a counted assert formats
its explanation even when it passes.
"""

_passed = 0


def pytest_assertion_pass(item, lineno, orig, expl):
    global _passed
    _passed += 1


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker hands its count to the controller
        workeroutput["assertions_passed"] = _passed


def pytest_testnodedown(node, error):
    global _passed
    _passed += getattr(node, "workeroutput", {}).get("assertions_passed", 0)


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"assertions passed: {_passed}")
