#!/usr/bin/env bash
# Creates (once) a virtual environment with the client libraries that Marian and OPUS-MT users
# talk to servers with, websockets==17.4 and requests==2.34.2, and prints its python path.
# Usage: clients_venv.sh VENV_DIR
set -euo pipefail
venv="$1"
check='import sys, websockets, requests; sys.exit(websockets.__version__ != "17.4" or requests.__version__ != "2.34.2")'
if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c "$check" 2>/dev/null; then
  echo "$venv/bin/python"
  exit 0
fi
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check 'websockets==17.4' 'requests==2.34.2' >&2
echo "$venv/bin/python"
