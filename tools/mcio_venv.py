"""The one place that decides which Python the tools run under: the virtual environment that
scripts/setup.sh creates at the repository's root (.venv, matplotlib from PyPI as pinned in
tools/requirements.txt). A tool calls use_venv() before anything else; started by any other
interpreter (/usr/bin/python3 by its shebang), it re-executes itself under the environment's.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".venv")
PYTHON = os.path.join(VENV, "bin", "python3")


def use_venv():
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.access(PYTHON, os.X_OK):
        sys.exit("%s: %s is missing: scripts/setup.sh creates it" % (os.path.basename(sys.argv[0]),
                                                                       VENV))
    os.execv(PYTHON, [PYTHON, os.path.abspath(sys.argv[0])] + sys.argv[1:])
