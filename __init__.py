# SPDX-License-Identifier: GPL-3.0-or-later
"""Loopsmith: seamless loops and clean transitions from motion capture.

Modules register in order and unregister in reverse; each owns its classes.
"""

from . import properties, operators, ui

_modules = (properties, operators, ui)


def register():
    for module in _modules:
        module.register()


def unregister():
    for module in reversed(_modules):
        module.unregister()
