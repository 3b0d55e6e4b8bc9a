#!/usr/bin/env bash
# Creates (once) the tests' Python virtual environment and prints its python path. It holds
# what tests need beyond the standard library: safetensors and numpy (tests/models, the
# safetensors interoperability test). Pinned, so that a test run does not change with PyPI.
# Usage: tests/python_venv.sh VENV_DIR
set -euo pipefail
venv="$1"
want=(safetensors==0.8.0 numpy==2.4.6)
check='import numpy, safetensors, sys; sys.exit((safetensors.__version__, numpy.__version__) != ("0.8.0", "2.4.6"))'
if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c "$check" 2>/dev/null; then
  echo "$venv/bin/python"
  exit 0
fi
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check "${want[@]}" >&2 ||
  { echo "python_venv.sh: pip could not install ${want[*]} into $venv (no access to PyPI?)" >&2; exit 1; }
"$venv/bin/python" -c "$check" || { echo "python_venv.sh: $venv lacks ${want[*]}" >&2; exit 1; }
echo "$venv/bin/python"
