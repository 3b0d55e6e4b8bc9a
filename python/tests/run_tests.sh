#!/usr/bin/env bash
# The Python package's tests (pytest, python/tests/test_*.py) against the build's package
# (PYTHONPATH=BUILD/python) and programs (BUILD/apps), in a pinned virtual environment made from
# the interpreter the module was built for (BUILD/venv-python: pytest, sacreBLEU 2.6.0), in a
# temporary folder holding the toy corpus, vocabulary and model of regression/tiny_model.sh.
# ../shared/data beside the repository, when there, adds the metrics' real-text cases.
# Usage: run_tests.sh BUILD_DIR PYTHON [pytest arguments...]
set -euo pipefail
build="$(cd "$1" && pwd)"
python="$2"
shift 2
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$(PYTHON="$python" "$repo/regression/pinned_venv.sh" "$build/venv-python" pytest==8.3.4 sacrebleu==2.6.0)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
source "$repo/regression/tiny_model.sh"
make_tiny_model "$build/apps"
export REALMT_BIN="$build/apps" REALMT_TINY="$tmp" REALMT_REPO="$repo" PYTHONPATH="$build/python"
export REALMT_SHARED_DATA="$repo/../shared/data"
exec "$venv" -m pytest -q -p no:cacheprovider "$repo/python/tests" "$@"
