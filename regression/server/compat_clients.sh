#!/usr/bin/env bash
# Runs compat_clients.py with the venv that clients_venv.sh makes (websockets, requests).
# Usage: compat_clients.sh BIN_DIR VENV_DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="$("$here/clients_venv.sh" "$2")"
exec "$python" "$here/compat_clients.py" "$1"
