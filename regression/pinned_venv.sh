#!/usr/bin/env bash
# Creates (once) a virtual environment holding the pinned PyPI packages given, and prints its
# python path; an existing one is reused when every pin is installed at its version.
# Usage: [PYTHON=python3.11] pinned_venv.sh VENV_DIR NAME==VERSION...
# PYTHON: the interpreter the environment is made from (default python3; the Python package's
# tests give the one its extension module was built for).
set -euo pipefail
venv="$1"
shift
check='import sys
from importlib.metadata import version, PackageNotFoundError
def ok(pin):
    name, want = pin.split("==")
    try:
        return version(name) == want
    except PackageNotFoundError:
        return False
sys.exit(0 if all(ok(p) for p in sys.argv[1:]) else 1)'
if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c "$check" "$@" 2> /dev/null; then
  echo "$venv/bin/python"
  exit 0
fi
"${PYTHON:-python3}" -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check "$@" >&2
echo "$venv/bin/python"
